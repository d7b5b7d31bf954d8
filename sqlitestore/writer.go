package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// One goroutine owns the writer connection and runs every write. A write made with InTx runs
// alone in its own transaction, as it always did. Short writes made with InSharedTx (agent
// inventories) are group-committed: those that arrive while a transaction runs wait, and the
// next transaction runs every waiting one, each in its own savepoint, and commits them
// together. Each stays atomic (its savepoint is rolled back alone when it fails) and returns
// only after the commit that made it durable, so a caller still reads its own writes. Under
// concurrent load, pages every write touches (a product's counters, an index leaf) reach the
// WAL once per group instead of once per write, which is what limits SQLite's write rate.
// Bulk writes (imports) never join a group: a savepoint keeps the original of every page it
// changes in memory until it ends.
const (
	maxGroupWrites = 32
	maxGroupTime   = 100 * time.Millisecond
)

// errStoreClosed answers a write that arrives after Close.
var errStoreClosed = errors.New("store closed")

type writeRequest struct {
	ctx  context.Context
	fn   func(appliance.Tx) error
	done chan writeResult
}

// InTx runs fn in one write transaction of its own: committed when fn returns nil, rolled
// back otherwise.
func (s *Store) InTx(ctx context.Context, fn func(appliance.Tx) error) error {
	return s.write(ctx, fn, s.writes)
}

// InSharedTx runs fn like InTx, in a transaction it may share with other short writes that
// wait at the same time (group commit); fn's work is kept or undone on its own all the same.
func (s *Store) InSharedTx(ctx context.Context, fn func(appliance.Tx) error) error {
	return s.write(ctx, fn, s.sharedWrites)
}

type writeResult struct {
	err      error
	panicked any // a panic of fn, raised again in the caller's goroutine
}

// write hands fn to the write goroutine on queue and waits for its answer.
func (s *Store) write(ctx context.Context, fn func(appliance.Tx) error, queue chan *writeRequest) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req := &writeRequest{ctx: ctx, fn: fn, done: make(chan writeResult, 1)}
	s.queued.Add(1)
	select {
	case queue <- req:
		s.queued.Add(-1)
	case <-ctx.Done():
		s.queued.Add(-1)
		return ctx.Err()
	case <-s.quit:
		s.queued.Add(-1)
		return errStoreClosed
	}
	res := <-req.done // once taken, a write is answered (after its group commits)
	if res.panicked != nil {
		panic(res.panicked)
	}
	return res.err
}

// InSnapshot runs fn on a reader in one read transaction, so every read sees the database as
// of the first.
func (s *Store) InSnapshot(ctx context.Context, fn func(appliance.Reader) error) error {
	tx, err := s.reader.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a read transaction has nothing to keep
	return fn(&queries{db: tx, stmts: &txStatements{tx: tx, m: map[string]*sql.Stmt{}}})
}

// runWriter runs groups of writes until Close.
func (s *Store) runWriter() {
	defer close(s.writerDone)
	for {
		select {
		case <-s.quit:
			return
		case r := <-s.writes:
			s.runAlone(r)
		case first := <-s.sharedWrites:
			s.runGroup(first)
		}
	}
}

// runAlone runs one write in its own transaction; its statements stop when its caller gives up.
func (s *Store) runAlone(r *writeRequest) {
	if err := r.ctx.Err(); err != nil {
		r.done <- writeResult{err: err}
		return
	}
	tx, err := s.writer.BeginTx(r.ctx, nil)
	if err != nil {
		r.done <- writeResult{err: fmt.Errorf("begin: %w", translate(err))}
		return
	}
	defer tx.Rollback() //nolint:errcheck // after a commit this is a no-op
	res := callWrite(&queries{db: tx, stmts: &txStatements{tx: tx, m: map[string]*sql.Stmt{}}}, r.fn)
	if res.err == nil && res.panicked == nil {
		if err := tx.Commit(); err != nil {
			res.err = fmt.Errorf("commit: %w", translate(err))
		}
	}
	r.done <- res
}

// runGroup runs first and the shared writes that wait meanwhile in one transaction.
func (s *Store) runGroup(first *writeRequest) {
	var group []*writeRequest
	var results []writeResult
	answer := func() {
		for i, r := range group {
			r.done <- results[i]
		}
	}
	tx, err := s.writer.BeginTx(context.Background(), nil)
	if err != nil {
		group, results = []*writeRequest{first}, []writeResult{{err: fmt.Errorf("begin: %w", translate(err))}}
		answer()
		return
	}
	defer tx.Rollback() //nolint:errcheck // after a commit this is a no-op
	q := &queries{db: tx, stmts: &txStatements{tx: tx, m: map[string]*sql.Stmt{}}, detached: true}
	started := time.Now()
	for next := first; next != nil; next = s.waitingWrite(len(group), started) {
		group = append(group, next)
		res, broken := runInSavepoint(tx, q, next)
		results = append(results, res)
		if broken != nil { // the transaction itself failed: nothing of the group is kept
			for i := range results {
				if results[i].err == nil && results[i].panicked == nil {
					results[i].err = broken
				}
			}
			answer()
			return
		}
	}
	s.groups.Add(1)
	if err := tx.Commit(); err != nil {
		err = fmt.Errorf("commit: %w", translate(err))
		for i := range results {
			if results[i].panicked == nil {
				results[i].err = errors.Join(results[i].err, err)
			}
		}
	}
	answer()
}

// waitingWrite takes a write that waits now, if the group may grow; nil otherwise.
func (s *Store) waitingWrite(size int, started time.Time) *writeRequest {
	if size >= maxGroupWrites || time.Since(started) >= maxGroupTime {
		return nil
	}
	select {
	case r := <-s.sharedWrites:
		return r
	default:
		return nil
	}
}

// runInSavepoint runs one write inside a savepoint of the group's transaction. broken is set
// when the transaction can no longer be used (a savepoint statement failed).
func runInSavepoint(tx *sql.Tx, q *queries, r *writeRequest) (res writeResult, broken error) {
	if err := r.ctx.Err(); err != nil { // its caller gave up while it waited
		return writeResult{err: err}, nil
	}
	bg := context.Background()
	if _, err := tx.ExecContext(bg, "SAVEPOINT write"); err != nil {
		return writeResult{err: fmt.Errorf("begin: %w", err)}, fmt.Errorf("savepoint: %w", err)
	}
	res = callWrite(q, r.fn)
	if res.err == nil && res.panicked == nil {
		if _, err := tx.ExecContext(bg, "RELEASE write"); err != nil {
			return writeResult{err: fmt.Errorf("release: %w", err)}, fmt.Errorf("release savepoint: %w", err)
		}
		return res, nil
	}
	if _, err := tx.ExecContext(bg, "ROLLBACK TO write"); err != nil {
		return res, fmt.Errorf("roll back savepoint: %w", err)
	}
	if _, err := tx.ExecContext(bg, "RELEASE write"); err != nil {
		return res, fmt.Errorf("release savepoint: %w", err)
	}
	return res, nil
}

// callWrite runs fn, turning a panic into a result the caller raises again.
func callWrite(q *queries, fn func(appliance.Tx) error) (res writeResult) {
	defer func() {
		if p := recover(); p != nil {
			res = writeResult{panicked: p}
		}
	}()
	return writeResult{err: fn(q)}
}

package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Writes are group-committed. One goroutine owns the writer connection; a write that arrives
// while a transaction runs waits, and the next transaction runs every waiting write, each in
// its own savepoint, and commits them together. Each write stays atomic (its savepoint is
// rolled back alone when it fails) and InTx returns only after the commit that made it
// durable, so a caller still reads its own writes. Under concurrent load, pages every write
// touches (a product's counters, an index leaf) reach the WAL once per group instead of once
// per write, which is what limits SQLite's write rate.
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

type writeResult struct {
	err      error
	panicked any // a panic of fn, raised again in the caller's goroutine
}

// InTx runs fn in one write transaction: committed when fn returns nil, rolled back otherwise.
func (s *Store) InTx(ctx context.Context, fn func(appliance.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req := &writeRequest{ctx: ctx, fn: fn, done: make(chan writeResult, 1)}
	s.queued.Add(1)
	select {
	case s.writes <- req:
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
		case first := <-s.writes:
			s.runGroup(first)
		}
	}
}

// runGroup runs first and whatever writes wait meanwhile in one transaction.
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
	case r := <-s.writes:
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

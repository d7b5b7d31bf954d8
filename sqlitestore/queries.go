package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// dbtx is what *sql.DB and *sql.Tx share; queries run on either.
type dbtx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queries implements appliance.Tx; on the reader pool only its read methods are used.
type queries struct {
	db    dbtx
	stmts preparer
	// detached statements run to their end even when the caller's context is cancelled: in a
	// group-committed transaction (writer.go), SQLite answers an interrupted write by rolling
	// back the whole transaction, every other write of the group included.
	detached bool
}

// statementContext is the context a statement runs under.
func (q *queries) statementContext(ctx context.Context) context.Context {
	if q.detached {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// preparer hands out prepared statements, so SQLite parses each statement once per pool or
// per transaction rather than once per call (parsing dominated reconciliation before).
type preparer interface {
	prepare(ctx context.Context, query string) (*sql.Stmt, error)
}

// maxCachedStatements bounds the cache; dynamic list queries come in a bounded set of shapes.
const maxCachedStatements = 512

// poolStatements caches statements prepared on a pool (the readers); database/sql prepares
// each again lazily on every connection it runs on.
type poolStatements struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newPoolStatements(db *sql.DB) *poolStatements {
	return &poolStatements{db: db, m: map[string]*sql.Stmt{}}
}

func (p *poolStatements) prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.m[query]; ok {
		return st, nil
	}
	st, err := p.db.PrepareContext(ctx, query)
	if err != nil || len(p.m) >= maxCachedStatements {
		return st, err
	}
	p.m[query] = st
	return st, nil
}

func (p *poolStatements) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.m {
		st.Close()
	}
	p.m = map[string]*sql.Stmt{}
}

// txStatements caches statements for one transaction; they close with it. (Preparing on the
// one-connection writer pool while a transaction holds it would wait forever.)
type txStatements struct {
	tx *sql.Tx
	m  map[string]*sql.Stmt
}

func (t *txStatements) prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := t.m[query]; ok {
		return st, nil
	}
	st, err := t.tx.PrepareContext(ctx, query)
	if err == nil {
		t.m[query] = st
	}
	return st, err
}

// exec runs a write statement; an error names the statement's operation and carries the
// domain kind of a constraint it broke, with the driver error kept in the chain.
func (q *queries) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx = q.statementContext(ctx)
	st, err := q.stmts.prepare(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare %s: %w", statementOp(query), err)
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", statementOp(query), translate(err))
	}
	return res, nil
}

func (q *queries) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = q.statementContext(ctx)
	st, err := q.stmts.prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// queryAll runs query and scans every row with scan; no rows is an empty, non-nil slice.
func queryAll[T any](ctx context.Context, q *queries, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// queryRow falls back to an unprepared query when preparing fails, so the error surfaces
// through Row.Scan as callers expect.
func (q *queries) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = q.statementContext(ctx)
	st, err := q.stmts.prepare(ctx, query)
	if err != nil {
		return q.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

const timeLayout = "2006-01-02T15:04:05.000000Z"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) time.Time {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		t, _ = time.Parse(time.RFC3339Nano, s)
	}
	return t
}

func nullTime(s sql.NullString) time.Time {
	if !s.Valid {
		return time.Time{}
	}
	return parseTime(s.String)
}

func timeOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return fmtTime(t)
}

// translate maps driver errors onto the domain kinds. The driver error stays in the chain
// (for the log) and out of any text a client reads: a bare kind has none.
func translate(err error) error {
	if err == nil || errors.Is(err, appliance.ErrConflict) || errors.Is(err, appliance.ErrNotFound) {
		return err // nil, or translated already
	}
	if errors.Is(err, sql.ErrNoRows) {
		return appliance.ErrNotFound
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w (%w)", appliance.ErrConflict, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: a referenced record is missing (%w)", appliance.ErrNotFound, err)
		}
	}
	return err
}

// statementOp names what a write statement does ("insert organizations", "update users"),
// so a store error says which operation failed.
func statementOp(query string) string {
	f := strings.Fields(query)
	for i, w := range f {
		switch verb := strings.ToUpper(w); verb {
		case "INSERT", "UPDATE", "DELETE":
			for _, next := range f[i+1 : min(len(f), i+5)] {
				switch strings.ToUpper(next) {
				case "INTO", "FROM", "OR", "IGNORE", "REPLACE", "ABORT", "FAIL", "ROLLBACK":
					continue
				}
				table, _, _ := strings.Cut(next, "(")
				return strings.ToLower(verb) + " " + table
			}
		}
	}
	return "statement"
}

// execOne runs a statement and reports ErrNotFound when it touched no row.
func (q *queries) execOne(ctx context.Context, query string, args ...any) error {
	res, err := q.exec(ctx, query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", statementOp(query), err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", statementOp(query), appliance.ErrNotFound)
	}
	return nil
}

func (q *queries) insert(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.exec(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

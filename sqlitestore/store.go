// Package sqlitestore is the only code that speaks SQL. It opens the SQLite database, applies
// the embedded migrations and implements the storage interfaces declared by appliance.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/alexedwards/scs/sqlite3store"
	"github.com/alexedwards/scs/v2"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	_ "modernc.org/sqlite" // driver "sqlite"
)

// Options tune the database; zero values take the defaults.
type Options struct {
	// Synchronous is NORMAL (survives a process crash in WAL mode) or FULL (survives power loss).
	Synchronous string
	// Readers is the size of the read pool.
	Readers int
}

// DefaultOptions are the settings used when the configuration names none.
func DefaultOptions() Options {
	return Options{Synchronous: "normal", Readers: 4}
}

// Store holds one writer connection and a pool of query-only readers on the same file.
type Store struct {
	queries  // reads go to the reader pool
	path     string
	writer   *sql.DB
	reader   *sql.DB
	sessions *sqlite3store.SQLite3Store
	log      *slog.Logger
	// The write goroutine (writer.go): requests in, closed quit stops it, writerDone when it has.
	writes       chan *writeRequest // InTx: each alone
	sharedWrites chan *writeRequest // InSharedTx: group-committed
	quit         chan struct{}
	writerDone   chan struct{}
	queued       atomic.Int32 // writes waiting to be taken
	groups       atomic.Int64 // transactions committed by the write goroutine
}

// Open opens (creating if needed) the database file and migrates it to the current schema.
func Open(ctx context.Context, path string, opts Options, log *slog.Logger) (*Store, error) {
	if opts.Synchronous == "" {
		opts.Synchronous = DefaultOptions().Synchronous
	}
	if opts.Readers <= 0 {
		opts.Readers = DefaultOptions().Readers
	}
	if opts.Synchronous != "normal" && opts.Synchronous != "full" {
		return nil, fmt.Errorf("storage.synchronous must be normal or full, not %q", opts.Synchronous)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	writer, err := sql.Open("sqlite", dsn(path, opts, false))
	if err != nil {
		return nil, err
	}
	writer.SetMaxOpenConns(1)
	writer.SetConnMaxIdleTime(0)
	if err := migrate(ctx, writer); err != nil {
		writer.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	reader, err := sql.Open("sqlite", dsn(path, opts, true))
	if err != nil {
		writer.Close()
		return nil, err
	}
	reader.SetMaxOpenConns(opts.Readers)
	reader.SetMaxIdleConns(opts.Readers)
	s := &Store{queries: queries{db: reader, stmts: newPoolStatements(reader)}, path: path, writer: writer, reader: reader, log: log,
		writes: make(chan *writeRequest), sharedWrites: make(chan *writeRequest), quit: make(chan struct{}), writerDone: make(chan struct{})}
	go s.runWriter()
	return s, nil
}

func dsn(path string, opts Options, readOnly bool) string {
	q := url.Values{}
	// busy_timeout first, so every later pragma already waits instead of failing.
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous("+opts.Synchronous+")")
	q.Add("_time_format", "sqlite")
	// Page caches of 8 MiB per reader and 32 MiB for the writer (SQLite's default is 2 MiB):
	// a host's reconciliation touches hundreds of product and index pages. The writer keeps
	// statement and savepoint journals in memory (writer.go runs shared writes in savepoints),
	// and checkpoints every 32 MiB of WAL, so a page written by many transactions in a row
	// reaches the database file once.
	if readOnly {
		q.Add("_pragma", "query_only(1)")
		q.Add("_pragma", "cache_size(-8192)")
	} else {
		q.Add("_txlock", "immediate")
		q.Add("_pragma", "cache_size(-32768)")
		q.Add("_pragma", "temp_store(memory)")
		q.Add("_pragma", "wal_autocheckpoint(8192)")
	}
	return "file:" + path + "?" + q.Encode()
}

// Close stops the session cleanup and the write goroutine (after the group it runs) and
// closes both pools.
func (s *Store) Close() error {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	<-s.writerDone
	if s.sessions != nil {
		s.sessions.StopCleanup()
	}
	if ps, ok := s.stmts.(*poolStatements); ok {
		ps.close()
	}
	return errors.Join(s.reader.Close(), s.writer.Close())
}

// SessionStore is the scs store on this database; its cleanup runs every few minutes.
func (s *Store) SessionStore() scs.Store {
	if s.sessions == nil {
		s.sessions = sqlite3store.NewWithCleanupInterval(s.writer, 5*time.Minute)
	}
	return s.sessions
}

// Backup writes a consistent copy of the database to path with VACUUM INTO; safe while serving.
func (s *Store) Backup(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return appliance.Invalid("file", "absent", "%s already exists; choose a new file name", path)
	}
	// Not on the reader pool: query_only refuses VACUUM INTO. It only reads this database,
	// so the writer connection holds no write lock while it runs.
	if _, err := s.writer.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	return nil
}

// Maintain runs the periodic housekeeping: planner statistics and a WAL checkpoint.
func (s *Store) Maintain(ctx context.Context) error {
	if _, err := s.writer.ExecContext(ctx, "PRAGMA optimize"); err != nil {
		return err
	}
	_, err := s.writer.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

// DataVersion changes whenever another connection (another process too) commits a write;
// the server polls it to notice imports made by CLI commands.
func (s *Store) DataVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.writer.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v)
	return v, err
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict.
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	var res string
	err := s.reader.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res)
	return res, err
}

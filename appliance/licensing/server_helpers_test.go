package licensing

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// testClock is a clock the test moves.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

// fixture is a licence server on a fresh SQLite file with a clock the test controls.
type fixture struct {
	srv   *Server
	store *sqlitestore.Store
	clock *testClock
	dir   string
}

func newFixture(t testing.TB, opts Options) *fixture {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(dir, "lic.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clk := &testClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	srv := NewServer(st, testKey("licensing-test"), opts)
	srv.now = clk.now
	return &fixture{srv: srv, store: st, clock: clk, dir: dir}
}

// activate issues a code of edition valid for term and activates it for installation.
// Each installation is its own customer's; activateFor names the customer.
func (f *fixture) activate(t testing.TB, edition string, term time.Duration, installation string) Activation {
	t.Helper()
	return f.activateFor(t, "Customer of "+installation, edition, term, installation)
}

func (f *fixture) activateFor(t testing.TB, customer, edition string, term time.Duration, installation string) Activation {
	t.Helper()
	ctx := context.Background()
	code, err := f.srv.CreateCode(ctx, edition, term, customer)
	if err != nil {
		t.Fatalf("create code: %v", err)
	}
	act, err := f.srv.Activate(ctx, code, installation)
	if err != nil {
		t.Fatalf("activate: %v", err)
	}
	return act
}

// fileBytes is the database file and its WAL, as they are on disk now.
func (f *fixture) fileBytes(t testing.TB) []byte {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(f.dir, "lic.db*"))
	var all []byte
	for _, n := range names {
		raw, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, raw...)
	}
	return all
}

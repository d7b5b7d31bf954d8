package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func openTestStore(t *testing.T, path string, opts Options) *Store {
	t.Helper()
	st, err := Open(context.Background(), path, opts, nil)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func newStore(t *testing.T) *Store {
	t.Helper()
	return openTestStore(t, filepath.Join(t.TempDir(), "vk.db"), Options{})
}

func userVersion(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func createOrg(t *testing.T, st *Store, name string) int64 {
	t.Helper()
	var id int64
	err := st.InTx(context.Background(), func(tx appliance.Tx) error {
		var err error
		id, err = tx.CreateOrganization(context.Background(), appliance.Organization{Name: name, CreatedAt: time.Now()})
		return err
	})
	if err != nil {
		t.Fatalf("create organization %q: %v", name, err)
	}
	return id
}

func TestMigrateEmptyDatabase(t *testing.T) {
	st := newStore(t)
	if SchemaVersion() < 1 {
		t.Fatalf("SchemaVersion() = %d, want at least one migration", SchemaVersion())
	}
	if v := userVersion(t, st.writer); v != SchemaVersion() {
		t.Errorf("user_version = %d, want %d", v, SchemaVersion())
	}
	res, err := st.IntegrityCheck(context.Background())
	if err != nil || res != "ok" {
		t.Errorf("integrity_check = %q, %v; want ok", res, err)
	}
	var mode string
	if err := st.writer.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
}

func TestMigrateExistingDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vk.db")
	first, err := Open(context.Background(), path, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := createOrg(t, first, "acme")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := openTestStore(t, path, Options{})
	if v := userVersion(t, second.writer); v != SchemaVersion() {
		t.Errorf("user_version after reopening = %d, want %d", v, SchemaVersion())
	}
	org, err := second.OrganizationByName(context.Background(), "acme")
	if err != nil || org.ID != id {
		t.Errorf("organization after reopening = %+v, %v; want id %d", org, err, id)
	}
}

func TestRefuseNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vk.db")
	st, err := Open(context.Background(), path, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.writer.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if st, err := Open(context.Background(), path, Options{}, nil); err == nil {
		st.Close()
		t.Fatal("Open accepted a database from a newer binary")
	}
}

func TestOpenRefusesUnknownSynchronous(t *testing.T) {
	if _, err := Open(context.Background(), filepath.Join(t.TempDir(), "vk.db"), Options{Synchronous: "off"}, nil); err == nil {
		t.Fatal("Open accepted synchronous=off")
	}
}

func TestInTx(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	boom := errors.New("boom")
	err := st.InTx(ctx, func(tx appliance.Tx) error {
		if _, err := tx.CreateOrganization(ctx, appliance.Organization{Name: "rolled-back", CreatedAt: time.Now()}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx = %v, want the callback's error", err)
	}
	if _, err := st.OrganizationByName(ctx, "rolled-back"); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("after rollback: %v, want ErrNotFound", err)
	}
	id := createOrg(t, st, "committed")
	org, err := st.OrganizationByName(ctx, "committed")
	if err != nil || org.ID != id || org.Name != "committed" {
		t.Errorf("after commit: %+v, %v", org, err)
	}
}

func TestBackup(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	createOrg(t, st, "acme")
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := st.Backup(ctx, path); err != nil {
		t.Fatalf("backup: %v", err)
	}
	var ve *appliance.ValidationError
	if err := st.Backup(ctx, path); !errors.As(err, &ve) {
		t.Errorf("backup onto an existing file: %v, want a ValidationError", err)
	}
	copyStore := openTestStore(t, path, Options{})
	if _, err := copyStore.OrganizationByName(ctx, "acme"); err != nil {
		t.Errorf("backup lacks the organization: %v", err)
	}
	if res, err := copyStore.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Errorf("backup integrity_check = %q, %v", res, err)
	}
}

const countToBillion = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c`

// TestPoolSurvivesCancelledQuery: a cancelled long read must not leave a pooled connection
// that fails later queries (STYLE habit 15).
func TestPoolSurvivesCancelledQuery(t *testing.T) {
	for _, readers := range []int{1, 4} {
		st := openTestStore(t, filepath.Join(t.TempDir(), "vk.db"), Options{Readers: readers})
		createOrg(t, st, "acme")
		for _, pool := range []struct {
			name string
			db   *sql.DB
		}{{"reader", st.reader}, {"writer", st.writer}} {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			var n int64
			err := pool.db.QueryRowContext(ctx, countToBillion).Scan(&n)
			cancel()
			if err == nil {
				t.Fatalf("%s pool: counting to 1e9 finished (%d) before the timeout", pool.name, n)
			}
			for i := range 100 {
				if _, err := st.OrganizationByName(context.Background(), "acme"); err != nil {
					t.Fatalf("readers=%d %s pool: query %d after cancel: %v", readers, pool.name, i, err)
				}
				if err := st.InTx(context.Background(), func(tx appliance.Tx) error {
					_, err := tx.Organizations(context.Background())
					return err
				}); err != nil {
					t.Fatalf("readers=%d %s pool: transaction %d after cancel: %v", readers, pool.name, i, err)
				}
			}
		}
	}
}

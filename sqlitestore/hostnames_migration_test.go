package sqlitestore

import (
	"context"
	"path/filepath"
	"testing"
)

// TestHostnameMigrationNormalizes: rows written before hostnames had one spelling are rewritten
// by 0007; a row whose new spelling is taken stays as it was.
func TestHostnameMigrationNormalizes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	st, err := Open(ctx, path, Options{Readers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db := st.writer
	for _, q := range []string{
		`INSERT INTO organizations (id, name, created_at) VALUES (1, 'acme', '2026-01-01T00:00:00Z')`,
		`INSERT INTO assets (organization_id, hostname, created_at, last_seen_at) VALUES (1, ' PC-01. ', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
		`INSERT INTO assets (organization_id, hostname, created_at, last_seen_at) VALUES (1, 'db.', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
		`INSERT INTO assets (organization_id, hostname, created_at, last_seen_at) VALUES (1, 'db', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var sqlText string
	all, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.name == "0007_hostnames.sql" {
			sqlText = m.sql
		}
	}
	if sqlText == "" {
		t.Fatal("0007_hostnames.sql not found")
	}
	if _, err := db.ExecContext(ctx, sqlText); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT hostname FROM assets ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var h string
		_ = rows.Scan(&h)
		got = append(got, h)
	}
	want := []string{"pc-01", "db.", "db"}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("hostnames %q, want %q", got, want)
	}
}

package sqlitestore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestCountsMigrationBackfills: a database written before 0010 (hosts, installations live and
// removed, a host with two versions of one name, matches with severities and KEV, a deleted
// product, names with an unresolved version) gets every kept count right when 0010 runs.
func TestCountsMigrationBackfills(t *testing.T) {
	ctx := context.Background()
	path, db := databaseBefore(t, "0010")
	const at = `'2026-01-01T00:00:00Z'`
	for _, q := range []string{
		`INSERT INTO organizations (id, name, created_at) VALUES (1, 'acme', ` + at + `)`,
		`INSERT INTO assets (id, organization_id, hostname, created_at, last_seen_at) VALUES (1, 1, 'h1', ` + at + `, ` + at + `), (2, 1, 'h2', ` + at + `, ` + at + `)`,
		`INSERT INTO products (id, organization_id, vendor, name, version, resolution, created_at, updated_at, deleted_at) VALUES
			(1, 1, 'v', 'lib', '1', 'exact', ` + at + `, ` + at + `, NULL), (2, 1, 'v', 'lib', '2', 'unresolved', ` + at + `, ` + at + `, NULL),
			(3, 1, 'v', 'gone', '1', 'exact', ` + at + `, ` + at + `, ` + at + `), (4, 1, 'w', 'tool', '1', 'unresolved', ` + at + `, ` + at + `, NULL)`,
		`INSERT INTO installations (asset_id, product_id, created_at, updated_at, removed_at) VALUES
			(1, 1, ` + at + `, ` + at + `, NULL), (1, 2, ` + at + `, ` + at + `, NULL), (2, 2, ` + at + `, ` + at + `, NULL),
			(2, 1, ` + at + `, ` + at + `, ` + at + `), (1, 3, ` + at + `, ` + at + `, NULL), (2, 4, ` + at + `, ` + at + `, NULL)`,
		`INSERT INTO cves (id, severity, score, imported_at) VALUES ('CVE-1', 'critical', 9.8, ` + at + `), ('CVE-2', 'medium', 5, ` + at + `),
			('CVE-3', '', NULL, ` + at + `)`,
		`INSERT INTO kev (cve_id) VALUES ('CVE-1')`,
		`INSERT INTO matches (product_id, cve_id, criteria, created_at) VALUES (1, 'CVE-1', '', ` + at + `), (1, 'CVE-2', '', ` + at + `),
			(2, 'CVE-3', '', ` + at + `), (3, 'CVE-2', '', ` + at + `)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, path, Options{Readers: 1}, nil) // runs 0010
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	drift, err := st.CountDrift(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drift {
		t.Errorf("after 0010: %s", d)
	}
	h1, err := st.AssetByID(ctx, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c := h1.Findings; h1.ProductCount != 2 || c.Total != 3 || c.Critical != 1 || c.Medium != 1 || c.Unknown != 1 || c.KEV != 1 {
		t.Errorf("h1 = %d products, %+v; want lib 1 and 2 (the deleted product not counted), 3 findings, one each", h1.ProductCount, c)
	}
	var hosts int
	if err := st.reader.QueryRowContext(ctx, `SELECT host_count FROM reported_names WHERE vendor = 'v' AND name = 'lib'`).Scan(&hosts); err != nil || hosts != 2 {
		t.Errorf("hosts of v lib = %d (%v), want 2 (h1 has two versions, h2's removed one does not count)", hosts, err)
	}
	var tracked int
	if err := st.reader.QueryRowContext(ctx, `SELECT count(*) FROM reported_names`).Scan(&tracked); err != nil || tracked != 2 {
		t.Errorf("%d names tracked (%v), want 2: v lib and w tool have an unresolved version, v gone none", tracked, err)
	}
}

// databaseBefore is a new database file with the migrations before version applied, as an
// installation of that time left it; the caller opens the store on path to run the rest.
func databaseBefore(t *testing.T, version string) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", dsn(path, DefaultOptions(), false))
	if err != nil {
		t.Fatal(err)
	}
	all, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.name >= version {
			break
		}
		if err := applyMigration(context.Background(), db, m); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
	return path, db
}

package sqlitestore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// TestProductsRebuildKeepsData applies the migrations before the advisories one to a real
// file, stores a host, a product, an installation and a match, migrates to the newest schema
// and checks that everything is still there, still linked, and that products of two releases
// may now share vendor, name and version.
func TestProductsRebuildKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", dsn(path, Options{Synchronous: "NORMAL"}, false))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	before := 0
	for _, m := range ms {
		if m.name == "0006_advisories.sql" {
			break
		}
		if err := applyMigration(ctx, db, m); err != nil {
			t.Fatal(err)
		}
		before++
	}
	now := "2026-01-01T00:00:00Z"
	for _, q := range []string{
		`INSERT INTO organizations (id, name, created_at) VALUES (1, 'acme', '` + now + `')`,
		`INSERT INTO assets (id, organization_id, hostname, created_at, last_seen_at) VALUES (1, 1, 'h1', '` + now + `', '` + now + `')`,
		`INSERT INTO products (id, organization_id, vendor, name, version, created_at, updated_at) VALUES (7, 1, 'Debian', 'bash', '5.2.15-2+b2', '` + now + `', '` + now + `')`,
		`INSERT INTO installations (asset_id, product_id, created_at, updated_at) VALUES (1, 7, '` + now + `', '` + now + `')`,
		`INSERT INTO matches (product_id, cve_id, created_at) VALUES (7, 'CVE-2022-3715', '` + now + `')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	st := openTestStore(t, path, Options{})
	if v := userVersion(t, st.writer); v != SchemaVersion() || before >= v {
		t.Fatalf("user_version %d after migrating from %d, want %d", v, before, SchemaVersion())
	}
	var fkProblems int
	if err := st.writer.QueryRow(`SELECT count(*) FROM pragma_foreign_key_check`).Scan(&fkProblems); err != nil || fkProblems != 0 {
		t.Fatalf("foreign key problems %d, %v", fkProblems, err)
	}
	vulns, err := st.ProductVulnerabilities(ctx, 1, 7)
	if err != nil || len(vulns) != 1 || vulns[0].Source != "nvd" || vulns[0].Basis != appliance.BasisCPERange {
		t.Fatalf("matches after the rebuild: %+v, %v", vulns, err)
	}
	live, err := st.LiveInstalledProducts(ctx, 1)
	if err != nil || len(live) != 1 || live[0].Product.Name != "bash" {
		t.Fatalf("installations after the rebuild: %+v, %v", live, err)
	}
	err = st.InTx(ctx, func(tx appliance.Tx) error {
		_, err := tx.CreateProduct(ctx, appliance.Product{OrganizationID: 1, Vendor: "Debian", Name: "bash", Version: "5.2.15-2+b2",
			Criticality: 2, CreatedAt: time.Now(), UpdatedAt: time.Now(), Package: appliance.PackageInfo{Source: "deb", Release: "debian:12"}})
		return err
	})
	if err != nil {
		t.Fatalf("a product of another release with the same vendor, name and version: %v", err)
	}
	// Deleting the host still cascades to its installations through the rebuilt table.
	if _, err := st.writer.Exec(`DELETE FROM products WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.writer.QueryRow(`SELECT count(*) FROM installations`).Scan(&n); err != nil || n != 0 {
		t.Errorf("installations after deleting their product: %d, %v; want 0 (cascade)", n, err)
	}
}

// TestAdvisoryEntryUnchanged stores an entry twice: the second time changes nothing.
func TestAdvisoryEntryUnchanged(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	e := appliance.AdvisoryEntry{Source: "ubuntu", ID: "USN-1", Ecosystem: "Ubuntu:22.04:LTS", Package: "openssl",
		Distro: "ubuntu", Release: "22.04", Fixed: "3.0.2-0ubuntu1.7", FixState: "fixed",
		Binaries: map[string]string{"libssl3": "3.0.2-0ubuntu1.7"}, CVEs: []string{"CVE-2022-3602"}, Detail: []byte(`{}`)}
	for i, want := range []bool{true, false} {
		var changed bool
		err := st.InTx(ctx, func(tx appliance.Tx) error {
			var err error
			changed, err = tx.UpsertAdvisoryEntry(ctx, e, time.Now())
			return err
		})
		if err != nil || changed != want {
			t.Fatalf("store %d: changed %v, %v; want %v", i, changed, err, want)
		}
	}
	e.Fixed = "3.0.2-0ubuntu1.8"
	var got []appliance.AdvisoryEntry
	err := st.InTx(ctx, func(tx appliance.Tx) error {
		if changed, err := tx.UpsertAdvisoryEntry(ctx, e, time.Now()); err != nil || !changed {
			t.Errorf("a changed entry: changed %v, %v", changed, err)
		}
		return tx.EachAdvisoryEntry(ctx, func(a appliance.AdvisoryEntry) error { got = append(got, a); return nil })
	})
	if err != nil || len(got) != 1 || got[0].Fixed != e.Fixed || got[0].Binaries["libssl3"] == "" || got[0].CVEs[0] != "CVE-2022-3602" {
		t.Fatalf("stored entries %+v, %v", got, err)
	}
}

package sqlitestore

import (
	"context"
	"fmt"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// TestIngestMigrationMovesHostCounts: a database written before 0019 keeps each product's
// host count (now in product_hosts), every counter still agrees with a recount, and products
// created afterwards get their row.
func TestIngestMigrationMovesHostCounts(t *testing.T) {
	ctx := context.Background()
	path, db := databaseBefore(t, "0019")
	const at = `'2026-01-01T00:00:00Z'`
	for _, q := range []string{
		`INSERT INTO organizations (id, name, created_at) VALUES (1, 'acme', ` + at + `)`,
		`INSERT INTO assets (id, organization_id, hostname, created_at, last_seen_at, product_count) VALUES
			(1, 1, 'h1', ` + at + `, ` + at + `, 2), (2, 1, 'h2', ` + at + `, ` + at + `, 1)`,
		`INSERT INTO products (id, organization_id, vendor, name, version, resolution, created_at, updated_at, asset_count) VALUES
			(1, 1, 'v', 'lib', '1', 'exact', ` + at + `, ` + at + `, 2), (2, 1, 'v', 'app', '1', 'exact', ` + at + `, ` + at + `, 1),
			(3, 1, 'v', 'gone', '1', 'exact', ` + at + `, ` + at + `, 0)`,
		`INSERT INTO installations (asset_id, product_id, created_at, updated_at) VALUES
			(1, 1, ` + at + `, ` + at + `), (2, 1, ` + at + `, ` + at + `), (1, 2, ` + at + `, ` + at + `)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, path, Options{Readers: 1}, nil) // runs 0019
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id, want := range map[int64]int{1: 2, 2: 1, 3: 0} {
		if _, n, err := st.ProductAssetsPage(ctx, 1, id, 1, 10); err != nil || n != want {
			t.Errorf("product %d: %d hosts (%v), want %d", id, n, err, want)
		}
	}
	if drift, err := st.CountDrift(ctx); err != nil || len(drift) != 0 {
		t.Errorf("counters after 0019 differ from a recount: %v %v", drift, err)
	}
	if _, err := st.writer.ExecContext(ctx, `INSERT INTO products (id, organization_id, vendor, name, version, created_at, updated_at)
		VALUES (4, 1, 'v', 'new', '1', `+at+`, `+at+`)`); err != nil {
		t.Fatal(err)
	}
	var hosts int
	if err := st.writer.QueryRowContext(ctx, `SELECT hosts FROM product_hosts WHERE product_id = 4`).Scan(&hosts); err != nil || hosts != 0 {
		t.Errorf("a product created after 0019: hosts %d (%v), want a row with 0", hosts, err)
	}
}

// CreateInstallations inserts a host's installations 64 to a statement and counts them from
// the ids it inserted: hosts of 1, 64, 65 and 300 installations (one, exactly one, just over
// one, several statements), some sharing products, leave every kept count equal to a recount.
func TestCreateInstallationsCountsEveryChunk(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	org := createOrg(t, st, "acme")
	var ps []appliance.Product
	for i := range 300 {
		ps = append(ps, newProduct(org, "v", fmt.Sprintf("p%03d", i), "1"))
	}
	pids := createProducts(t, st, ps...)
	sizes := []int{1, 64, 65, 300}
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		for h, n := range sizes {
			asset, err := tx.CreateAsset(ctx, appliance.Asset{OrganizationID: org, Hostname: fmt.Sprintf("h%d", h), CreatedAt: t0, LastSeenAt: t0})
			if err != nil {
				return err
			}
			ins := make([]appliance.Installation, n)
			for i := range ins {
				ins[i] = appliance.Installation{AssetID: asset, ProductID: pids[i], Path: fmt.Sprintf("/opt/%d", i), CreatedAt: t0}
			}
			if err := tx.CreateInstallations(ctx, ins); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if drift, err := st.CountDrift(ctx); err != nil || len(drift) != 0 {
		t.Fatalf("kept counts differ from a recount: %v (%v)", drift, err)
	}
	for i, want := range map[int]int{0: 4, 63: 3, 64: 2, 65: 1, 299: 1} {
		if _, n, err := st.ProductAssetsPage(ctx, org, pids[i], 1, 10); err != nil || n != want {
			t.Errorf("product %d: %d hosts (%v), want %d", i, n, err, want)
		}
	}
}

package sqlitestore

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

var t0 = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

func newProduct(orgID int64, vendor, name, version string) appliance.Product {
	return appliance.Product{OrganizationID: orgID, Vendor: vendor, Name: name, Version: version, Resolution: appliance.ResolutionUnresolved,
		Criticality: 2, CreatedAt: t0, UpdatedAt: t0}
}

// host creates an asset of orgID with one live installation of each product.
func host(t *testing.T, st *Store, orgID int64, hostname string, productIDs ...int64) (assetID int64, installs []int64) {
	t.Helper()
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		var err error
		if assetID, err = tx.CreateAsset(ctx, appliance.Asset{OrganizationID: orgID, Hostname: hostname, CreatedAt: t0, LastSeenAt: t0}); err != nil {
			return err
		}
		for _, pid := range productIDs {
			id, err := tx.CreateInstallation(ctx, appliance.Installation{AssetID: assetID, ProductID: pid, CreatedAt: t0})
			if err != nil {
				return err
			}
			installs = append(installs, id)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("host %s: %v", hostname, err)
	}
	return assetID, installs
}

func createProducts(t *testing.T, st *Store, ps ...appliance.Product) []int64 {
	t.Helper()
	var ids []int64
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		for _, p := range ps {
			id, err := tx.CreateProduct(ctx, p)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("create products: %v", err)
	}
	return ids
}

func TestInventoryConstraints(t *testing.T) {
	st := newStore(t)
	s := seedTwoOrgs(t, st)
	createProducts(t, st, newProduct(s.orgA, "v", "p", "1"))
	host(t, st, s.orgA, "Host-A")
	cases := []struct {
		name string
		fn   func(ctx context.Context, tx appliance.Tx) error
		want error
	}{
		{"same product key", func(ctx context.Context, tx appliance.Tx) error {
			return second(tx.CreateProduct(ctx, newProduct(s.orgA, "v", "p", "1")))
		}, appliance.ErrConflict},
		{"same key in another organization", func(ctx context.Context, tx appliance.Tx) error {
			return second(tx.CreateProduct(ctx, newProduct(s.orgB, "v", "p", "1")))
		}, nil},
		{"hostname differing in case", func(ctx context.Context, tx appliance.Tx) error {
			return second(tx.CreateAsset(ctx, appliance.Asset{OrganizationID: s.orgB, Hostname: "host-a", CreatedAt: t0, LastSeenAt: t0}))
		}, appliance.ErrConflict},
		{"installation of a missing product", func(ctx context.Context, tx appliance.Tx) error {
			return second(tx.CreateInstallation(ctx, appliance.Installation{AssetID: 1, ProductID: 999, CreatedAt: t0}))
		}, appliance.ErrNotFound},
		{"update another organization's product", func(ctx context.Context, tx appliance.Tx) error {
			p := newProduct(s.orgB, "v", "p", "1")
			p.ID = 1
			return tx.UpdateProduct(ctx, p)
		}, appliance.ErrNotFound},
		{"unknown override", func(ctx context.Context, tx appliance.Tx) error {
			return second(tx.OverrideFor(ctx, s.orgA, "v", "p"))
		}, appliance.ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := inTx(st, c.fn)
			if (c.want == nil && err != nil) || (c.want != nil && !errors.Is(err, c.want)) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
		})
	}
}

func TestInstallationHistory(t *testing.T) {
	st := newStore(t)
	s := seedTwoOrgs(t, st)
	ids := createProducts(t, st, newProduct(s.orgA, "v", "p", "1"), newProduct(s.orgA, "v", "q", "1"))
	asset, installs := host(t, st, s.orgA, "h1", ids...)
	ctx := context.Background()
	if err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		return tx.RemoveInstallation(ctx, installs[0], t0.Add(time.Hour))
	}); err != nil {
		t.Fatal(err)
	}
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error { return tx.RemoveInstallation(ctx, installs[0], t0) })
	if !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("removing a removed installation: %v, want ErrNotFound", err)
	}
	live, err := st.LiveInstallations(ctx, asset)
	if err != nil || len(live) != 1 || live[0].ProductID != ids[1] {
		t.Errorf("live installations = %+v (%v), want only product %d", live, err, ids[1])
	}
	var removedAt string
	if err := st.writer.QueryRow(`SELECT removed_at FROM installations WHERE id = ?`, installs[0]).Scan(&removedAt); err != nil {
		t.Fatalf("the removed installation is gone, want it kept as history: %v", err)
	}
	if !parseTime(removedAt).Equal(t0.Add(time.Hour)) {
		t.Errorf("removed_at = %q, want %v", removedAt, t0.Add(time.Hour))
	}
	p, err := st.ProductByID(ctx, s.orgA, ids[0])
	if err != nil || p.AssetCount != 0 {
		t.Errorf("product after removal = %+v (%v), want it kept with asset_count 0", p, err)
	}
	// The same product may be installed again beside its history.
	if _, again := host(t, st, s.orgA, "h2", ids[0]); len(again) != 1 {
		t.Error("reinstall failed")
	}
}

func TestReplaceMatches(t *testing.T) {
	st := newStore(t)
	s := seedTwoOrgs(t, st)
	pid := createProducts(t, st, newProduct(s.orgA, "v", "p", "1"))[0]
	ctx := context.Background()
	steps := []struct {
		cves        []string
		gen         int64
		wantRemoved int
	}{
		{[]string{"CVE-1", "CVE-2"}, 3, 0},
		{[]string{"CVE-2", "CVE-3"}, 4, 1},
		{[]string{"CVE-2", "CVE-3"}, 4, 0},
		{nil, 5, 2},
	}
	var kept int64
	for i, step := range steps {
		var ms []appliance.MatchInput
		for _, id := range step.cves {
			ms = append(ms, appliance.MatchInput{CVEID: id, Criteria: "cpe:2.3:a:v:p:*:*:*:*:*:*:*:*"})
		}
		var removed int
		err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
			var err error
			removed, err = tx.ReplaceMatches(ctx, pid, ms, step.gen, t0)
			return err
		})
		if err != nil || removed != step.wantRemoved {
			t.Errorf("step %d: removed %d (%v), want %d", i, removed, err, step.wantRemoved)
		}
		vulns, err := st.ProductVulnerabilities(ctx, s.orgA, pid)
		var got []string
		for _, v := range vulns {
			got = append(got, v.CVEID)
			if v.CVEID == "CVE-2" && kept == 0 {
				kept = v.MatchID
			} else if v.CVEID == "CVE-2" && v.MatchID != kept {
				t.Errorf("step %d: CVE-2's match id changed %d → %d", i, kept, v.MatchID)
			}
		}
		slices.Sort(got)
		if err != nil || !slices.Equal(got, step.cves) {
			t.Errorf("step %d: matches %v (%v), want %v", i, got, err, step.cves)
		}
		if p, _ := st.ProductByID(ctx, s.orgA, pid); p.MatchGeneration != step.gen {
			t.Errorf("step %d: match_generation %d, want %d", i, p.MatchGeneration, step.gen)
		}
	}
	if vulns, _ := st.ProductVulnerabilities(ctx, s.orgB, pid); len(vulns) != 0 {
		t.Errorf("another organization reads the matches: %v", vulns)
	}
}

func TestListProductsScopeAndFilters(t *testing.T) {
	st := newStore(t)
	s := seedTwoOrgs(t, st)
	deleted := newProduct(s.orgA, "v", "Gone", "1")
	deleted.DeletedAt = t0
	ids := createProducts(t, st, newProduct(s.orgA, "Zeta", "b_100%", "1"), newProduct(s.orgA, "alpha", "A tool", "2"),
		newProduct(s.orgB, "Zeta", "b_100%", "1"), deleted)
	if err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		deleted.ID = ids[3]
		return tx.UpdateProduct(ctx, deleted)
	}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		f    appliance.ProductFilter
		want []string
	}{
		{"all of the organization, by name", appliance.ProductFilter{}, []string{"A tool", "b_100%"}},
		{"desc", appliance.ProductFilter{Desc: true}, []string{"b_100%", "A tool"}},
		{"search escapes LIKE", appliance.ProductFilter{Search: "_100%"}, []string{"b_100%"}},
		{"percent alone matches literally", appliance.ProductFilter{Search: "%"}, []string{"b_100%"}},
		{"vendor ignores case", appliance.ProductFilter{Vendor: "zeta"}, []string{"b_100%"}},
		{"sort by vendor", appliance.ProductFilter{Sort: "vendor"}, []string{"A tool", "b_100%"}},
		{"second page", appliance.ProductFilter{PerPage: 1, Page: 2}, []string{"b_100%"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.OrganizationID = s.orgA
			if c.f.PerPage == 0 {
				c.f.Page, c.f.PerPage = 1, 50
			}
			items, total, err := st.ListProducts(context.Background(), c.f)
			var got []string
			for _, p := range items {
				got = append(got, p.Name)
			}
			if err != nil || !slices.Equal(got, c.want) || (c.f.PerPage == 50 && total != len(c.want)) {
				t.Errorf("got %v (total %d, %v), want %v", got, total, err, c.want)
			}
		})
	}
	if _, err := st.ProductByID(context.Background(), s.orgA, ids[3]); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("ProductByID of a deleted product: %v, want ErrNotFound", err)
	}
	if p, err := st.ProductByKey(context.Background(), s.orgA, deleted.Key()); err != nil || p.DeletedAt.IsZero() {
		t.Errorf("ProductByKey of a deleted product = %+v, %v; want it found with deleted_at", p, err)
	}
}

func TestReviewQueueCountsLiveHosts(t *testing.T) {
	st := newStore(t)
	s := seedTwoOrgs(t, st)
	ids := createProducts(t, st, newProduct(s.orgA, "w", "Widget", "1"), newProduct(s.orgA, "w", "Widget", "2"),
		newProduct(s.orgA, "r", "Rare", "1"), newProduct(s.orgB, "w", "Widget", "1"))
	host(t, st, s.orgA, "h1", ids[0], ids[1])
	host(t, st, s.orgA, "h2", ids[0])
	_, gone := host(t, st, s.orgA, "h3", ids[1], ids[2])
	host(t, st, s.orgB, "g1", ids[3])
	if err := inTx(st, func(ctx context.Context, tx appliance.Tx) error { return tx.RemoveInstallation(ctx, gone[0], t0) }); err != nil {
		t.Fatal(err)
	}
	items, total, err := st.ReviewQueue(context.Background(), s.orgA, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if total != 2 || len(items) != 2 || items[0].Name != "Widget" || items[0].HostCount != 2 || len(items[0].ProductIDs) != 2 ||
		items[1].Name != "Rare" || items[1].HostCount != 1 {
		t.Errorf("review queue = %+v (total %d), want Widget on 2 live hosts (2 products), then Rare on 1", items, total)
	}
	for page, want := range map[int]string{1: "Widget", 2: "Rare", 3: ""} {
		items, total, err := st.ReviewQueue(context.Background(), s.orgA, page, 1)
		var got string
		if len(items) > 0 {
			got = items[0].Name
		}
		if err != nil || total != 2 || len(items) > 1 || got != want {
			t.Errorf("page %d of 1: %+v, total %d, %v; want %q of 2", page, items, total, err, want)
		}
	}
}

func TestGenerationsAndCatalogue(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		for range 2 {
			if err := tx.UpsertCatalogEntry(ctx, appliance.CatalogEntry{Identity: appliance.Identity{Part: "a", Vendor: "v", Product: "p"}, Source: "nvd"}, t0); err != nil {
				return err
			}
		}
		_, err := tx.BumpGeneration(ctx, appliance.GenerationCatalog)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := st.EachCatalogEntry(ctx, func(appliance.CatalogEntry) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("catalogue holds %d entries (%v), want 1 after two upserts", n, err)
	}
	if g, err := st.Generation(ctx, appliance.GenerationCatalog); err != nil || g != 1 {
		t.Errorf("catalogue generation = %d (%v), want 1", g, err)
	}
	if g, err := st.Generation(ctx, appliance.GenerationCVE); err != nil || g != 0 {
		t.Errorf("CVE generation = %d (%v), want 0", g, err)
	}
}

// The store folds what each import says of an identity's platform as appliance.MergePlatform
// does: nothing known takes the first word, a second platform makes it any, "" changes nothing.
func TestCataloguePlatformMerges(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	id := appliance.Identity{Part: "a", Vendor: "chromedriver_project", Product: "chromedriver"}
	steps := []struct{ seen, want string }{
		{"", ""},
		{"node.js", "node.js"},
		{"", "node.js"},
		{"node.js", "node.js"},
		{"rust", appliance.PlatformAny},
		{"node.js", appliance.PlatformAny},
	}
	known := ""
	for i, step := range steps {
		err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
			return tx.UpsertCatalogEntry(ctx, appliance.CatalogEntry{Identity: id, Source: "test", Platform: step.seen}, t0)
		})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := st.EachCatalogEntry(ctx, func(e appliance.CatalogEntry) error { got = e.Platform; return nil }); err != nil {
			t.Fatal(err)
		}
		known = appliance.MergePlatform(known, step.seen)
		if got != step.want || known != step.want {
			t.Errorf("step %d (%q): store says %q, MergePlatform %q, want %q", i, step.seen, got, known, step.want)
		}
	}
}

package sqlitestore

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Real CPE identities from the shared test data.
const vendorProductTSV = "../../shared/data/cpe/vendor_product.tsv.gz"

// realPairs reads n (part, vendor, product) rows of vendor_product.tsv.gz; a missing file fails.
func realPairs(t testing.TB, n int) [][3]string {
	t.Helper()
	f, err := os.Open(vendorProductTSV)
	if err != nil {
		t.Fatalf("real data missing: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", vendorProductTSV, err)
	}
	var out [][3]string
	sc := bufio.NewScanner(gz)
	for sc.Scan() && len(out) < n {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 3 || cols[0] == "part" {
			continue
		}
		out = append(out, [3]string{cols[0], cols[1], cols[2]})
	}
	if len(out) < n {
		t.Fatalf("%s: %d rows, want %d (%v)", vendorProductTSV, len(out), n, sc.Err())
	}
	return out
}

// seedPull stores community and catalogue rows, all updated at the same instant.
func seedPull(t *testing.T, st *Store, community, catalog int, at time.Time) {
	t.Helper()
	pairs := realPairs(t, community+catalog)
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		for i, p := range pairs {
			if i >= community {
				if err := tx.UpsertCatalogEntry(ctx, appliance.CatalogEntry{Identity: appliance.Identity{Part: p[0], Vendor: p[1], Product: p[2]}, Source: "nvd"}, at); err != nil {
					return err
				}
				continue
			}
			m := appliance.KBMapping{Source: appliance.SourceCommunity, VendorPattern: p[1], ProductPattern: p[2], CPEVendor: p[1],
				CPEProduct: p[2], TupleKey: fmt.Sprintf("k%d", i), Confidence: 0.9, ContributionCount: 3, Published: true,
				CreatedAt: at, UpdatedAt: at}
			if _, err := tx.UpsertKBMapping(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// pullAll pages through q with limit-sized pages and returns every (source, id) once seen.
func pullAll(t *testing.T, st *Store, q appliance.PullQuery) (seen map[string]int, newest time.Time) {
	t.Helper()
	seen = map[string]int{}
	for {
		n := 0
		total, err := st.PullMappings(context.Background(), q, func(m appliance.KBMapping) error {
			seen[fmt.Sprintf("%s/%d", m.Source, m.ID)]++
			if m.UpdatedAt.After(newest) {
				newest = m.UpdatedAt
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatalf("pull %+v: %v", q, err)
		}
		q.Offset += n
		if n == 0 || q.Offset >= total {
			return seen, newest
		}
	}
}

func TestPullPagingWithOneSharedTimestamp(t *testing.T) {
	st := newStore(t)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)
	seedPull(t, st, 3000, 1500, t0)
	seen, newest := pullAll(t, st, appliance.PullQuery{Limit: 500})
	if len(seen) != 4500 {
		t.Fatalf("paged pull saw %d distinct mappings, want 4500", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%s served %d times", k, n)
		}
	}
	if !newest.Equal(t0) {
		t.Errorf("newest updated_at = %v, want %v", newest, t0)
	}
	cases := []struct {
		name string
		q    appliance.PullQuery
		want int
	}{
		{"since the last updated_at", appliance.PullQuery{Limit: 500, Since: newest, HasSince: true}, 0},
		{"since just before", appliance.PullQuery{Limit: 500, Since: t0.Add(-time.Microsecond), HasSince: true}, 4500},
		{"since without fraction", appliance.PullQuery{Limit: 500, Since: t0.Truncate(time.Second), HasSince: true}, 4500},
		{"community only", appliance.PullQuery{Limit: 500, Source: appliance.SourceCommunity}, 3000},
		{"nvd only", appliance.PullQuery{Limit: 500, Source: appliance.SourceNVD}, 1500},
		{"curated only", appliance.PullQuery{Limit: 500, Source: appliance.SourceCurated}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, _ := pullAll(t, st, c.q); len(got) != c.want {
				t.Errorf("pull saw %d mappings, want %d", len(got), c.want)
			}
		})
	}
}

func TestPullServesOnlyPublishedAndRetracted(t *testing.T) {
	st := newStore(t)
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	rows := []appliance.KBMapping{
		{Source: "community", TupleKey: "unpublished", Confidence: 0.5, ContributionCount: 2},
		{Source: "community", TupleKey: "published", Confidence: 0.9, ContributionCount: 3, Published: true},
		{Source: "community", TupleKey: "retracted", Confidence: 0.9, ContributionCount: 3, Retracted: true},
		{Source: "curated", TupleKey: "curated", Confidence: 1, Published: true},
	}
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		for _, m := range rows {
			m.VendorPattern, m.ProductPattern, m.CPEVendor, m.CPEProduct = m.TupleKey, "p", "v", "p"
			m.CreatedAt, m.UpdatedAt = at, at
			if _, err := tx.UpsertKBMapping(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	total, err := st.PullMappings(context.Background(), appliance.PullQuery{Limit: 100}, func(m appliance.KBMapping) error {
		got[m.VendorPattern] = m.Retracted
		return nil
	})
	want := map[string]bool{"published": false, "retracted": true, "curated": false}
	if err != nil || total != 3 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pull = %v (total %d, %v), want %v", got, total, err, want)
	}
}

func TestContributionsCountOncePerInstallation(t *testing.T) {
	st := newStore(t)
	at := time.Now()
	var id int64
	var fresh []bool
	var voices []int
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		var err error
		id, err = tx.UpsertKBMapping(ctx, appliance.KBMapping{Source: "community", VendorPattern: "v", ProductPattern: "p",
			CPEVendor: "v", CPEProduct: "p", TupleKey: "v|p", Confidence: 0.5, CreatedAt: at, UpdatedAt: at})
		for _, inst := range []string{"a", "b", "a", "c"} {
			// a and b are one customer's installations; c another customer's.
			voice := map[string]string{"a": "customer:x", "b": "customer:x", "c": "customer:y"}[inst]
			ok, n, err := tx.AddContribution(ctx, id, inst, voice, 0.5, at)
			if err != nil {
				return err
			}
			fresh, voices = append(fresh, ok), append(voices, n)
		}
		return err
	})
	if err != nil || fmt.Sprint(fresh) != "[true true false true]" || fmt.Sprint(voices) != "[1 1 1 2]" {
		t.Errorf("contributions new = %v, voices %v (%v), want [true true false true] and [1 1 1 2]", fresh, voices, err)
	}
	again, err := inTxID(st, appliance.KBMapping{Source: "community", VendorPattern: "v", ProductPattern: "p",
		CPEVendor: "v", CPEProduct: "p", TupleKey: "v|p", Confidence: 0.7, ContributionCount: 2, CreatedAt: at, UpdatedAt: at})
	if err != nil || again != id {
		t.Errorf("upsert of the same tuple gave id %d (%v), want %d", again, err, id)
	}
	m, err := st.KBMappingByTuple(context.Background(), "community", "v|p")
	if err != nil || m.ContributionCount != 2 || m.Confidence != 0.7 {
		t.Errorf("row = %+v (%v), want 2 contributions at 0.7", m, err)
	}
	if _, err := st.KBMappingByTuple(context.Background(), "curated", "v|p"); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("curated lookup: %v, want ErrNotFound", err)
	}
}

func inTxID(st *Store, m appliance.KBMapping) (int64, error) {
	var id int64
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		var err error
		id, err = tx.UpsertKBMapping(ctx, m)
		return err
	})
	return id, err
}

// The credential (the licence's first 64 characters) must never reach the file: only its hash.
func TestOnlyTheCredentialHashIsStored(t *testing.T) {
	dir := t.TempDir()
	st := openTestStore(t, filepath.Join(dir, "vk.db"), Options{})
	credential := strings.Repeat("Q2x1ZVNlY3JldA", 5)[:64]
	hash := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		codeID, err := tx.CreateActivationCode(ctx, appliance.ActivationCode{Hash: "code-hash", Edition: "professional",
			ValidFor: time.Hour, CreatedAt: time.Now()})
		if err != nil {
			return err
		}
		return tx.CreateLicense(ctx, appliance.License{ID: "lic1", CodeID: codeID, InstallationID: "inst-1", Edition: "professional",
			IssuedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour), CredentialHash: hash})
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if l, err := st.LicenseByCredential(ctx, hash); err != nil || l.InstallationID != "inst-1" {
		t.Errorf("by hash: %+v %v", l, err)
	}
	c, err := st.ActivationCodeByHash(ctx, "code-hash")
	if err != nil || c.LicenseID != "lic1" || c.Installation != "inst-1" || c.ValidFor != time.Hour {
		t.Errorf("code = %+v (%v), want bound to lic1/inst-1 with a 1h term", c, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "vk.db*"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(credential)) {
			t.Errorf("%s holds the raw credential", f)
		}
	}
}

func TestPendingOverridesAndPushMark(t *testing.T) {
	st := newStore(t)
	org := createOrg(t, st, "acme")
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	overrides := []appliance.Override{
		{OrganizationID: org, VendorKey: "acme", ProductKey: "widget", ReportedVendor: "Acme", ReportedName: "Widget"},
		{OrganizationID: org, VendorKey: "", ProductKey: "tool", ReportedVendor: "", ReportedName: "Tool"},
		{OrganizationID: org, VendorKey: "acme", ProductKey: "gadget", ReportedVendor: "Acme", ReportedName: "Gadget"},
	}
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		for i, o := range overrides {
			o.Identity = appliance.Identity{Part: "a", Vendor: "acme", Product: o.ProductKey}
			o.CreatedAt = at.Add(time.Duration(i) * time.Second)
			if err := tx.SaveOverride(ctx, o); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pending, err := st.PendingOverrides(ctx, 500)
	// An override without a reported vendor cannot be pushed (vendor_pattern is required):
	// it must not be offered, or it would block every later push.
	if err != nil || len(pending) != 2 || pending[0].ReportedName != "Widget" || pending[1].ReportedName != "Gadget" {
		t.Fatalf("pending = %+v (%v), want Widget then Gadget", pending, err)
	}
	if err := inTx(st, func(ctx context.Context, tx appliance.Tx) error { return tx.MarkOverridesPushed(ctx, pending[:1], at) }); err != nil {
		t.Fatal(err)
	}
	if pending, _ = st.PendingOverrides(ctx, 500); len(pending) != 1 || pending[0].ReportedName != "Gadget" {
		t.Errorf("after marking Widget pushed: %+v, want only Gadget", pending)
	}
	if pending, _ = st.PendingOverrides(ctx, 0); len(pending) != 0 {
		t.Errorf("limit 0 returned %d overrides", len(pending))
	}
}

// TestNotTrackedOverride stores a "not tracked" decision: no identity is kept, lookups say
// so, it is never offered for a push, a confirmed identity replaces it (and is offered),
// and deleting it leaves no override.
func TestNotTrackedOverride(t *testing.T) {
	st := newStore(t)
	org := createOrg(t, st, "acme")
	ctx := context.Background()
	ov := appliance.Override{OrganizationID: org, VendorKey: "acme", ProductKey: "widget", ReportedVendor: "Acme", ReportedName: "Widget",
		Identity: appliance.Identity{Part: "a", Vendor: "acme", Product: "widget"}, NotTracked: true, CreatedAt: time.Now()}
	save := func(o appliance.Override) {
		t.Helper()
		if err := inTx(st, func(ctx context.Context, tx appliance.Tx) error { return tx.SaveOverride(ctx, o) }); err != nil {
			t.Fatal(err)
		}
	}
	save(ov)
	got, err := st.OverrideFor(ctx, org, "acme", "widget")
	if err != nil || !got.NotTracked || got.Identity != (appliance.Identity{}) {
		t.Errorf("OverrideFor = %+v (%v), want not tracked without identity", got, err)
	}
	found, err := st.OverridesFor(ctx, org, [][2]string{{"acme", "widget"}})
	if err != nil || !found[[2]string{"acme", "widget"}].NotTracked {
		t.Errorf("OverridesFor = %+v (%v), want the not tracked decision", found, err)
	}
	if pending, err := st.PendingOverrides(ctx, 500); err != nil || len(pending) != 0 {
		t.Errorf("pending = %+v (%v), want none: not tracked is no contribution", pending, err)
	}
	ov.NotTracked = false
	save(ov)
	if pending, _ := st.PendingOverrides(ctx, 500); len(pending) != 1 || pending[0].Identity.Product != "widget" {
		t.Errorf("after confirming an identity: pending %+v, want it", pending)
	}
	if err := inTx(st, func(ctx context.Context, tx appliance.Tx) error { return tx.DeleteOverride(ctx, org, "acme", "widget") }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.OverrideFor(ctx, org, "acme", "widget"); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("after delete: %v, want not found", err)
	}
}

func TestSettingsAndSourceStats(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	if _, err := st.Setting(ctx, "kb.since"); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("missing setting: %v, want ErrNotFound", err)
	}
	for _, v := range []string{"one", "two"} {
		if err := inTx(st, func(ctx context.Context, tx appliance.Tx) error { return tx.SetSetting(ctx, "kb.since", v) }); err != nil {
			t.Fatal(err)
		}
	}
	if v, err := st.Setting(ctx, "kb.since"); v != "two" || err != nil {
		t.Errorf("setting = %q (%v), want the last value", v, err)
	}
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	seedPull(t, st, 4, 3, at)
	stats, err := st.KBSourceStats(ctx)
	got := map[string]string{}
	for _, s := range stats {
		got[string(s.Source)] = fmt.Sprintf("%d/%d/%d@%s", s.Total, s.Published, s.Retracted, s.LastUpdate.Format(time.RFC3339))
	}
	want := map[string]string{"nvd": "3/3/0@2026-03-01T00:00:00Z", "community": "4/4/0@2026-03-01T00:00:00Z"}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stats = %v (%v), want %v", got, err, want)
	}
}

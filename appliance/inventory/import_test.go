package inventory_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/data"
)

func importFeed(t testing.TB, im *inventory.Importer, name string) inventory.FeedStats {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer f.Close()
	st, err := im.ImportFeed(context.Background(), name, f)
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	return st
}

func generation(t *testing.T, w *world, name string) int64 {
	t.Helper()
	g, err := w.store.Generation(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestImportFeedsIdempotent imports each fixture twice: the counts repeat, and every
// import that carries records moves the CVE generation the server watches.
func TestImportFeedsIdempotent(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		file       string
		cves, kev  int
		identities bool
	}{
		{nvdMini, 7, 0, true},
		{kevMini, 0, 2, false},
		{nvdLive, 1, 0, true},
		{sharedData + "/nvd/nvdcve-2.0-recent.json.gz", 1447, 0, true},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			for round := range 2 {
				before := generation(t, w, appliance.GenerationCVE)
				st := importFeed(t, w.importer, c.file)
				if st.CVEs+st.Rejected != c.cves || st.KEV != c.kev || (st.Identities > 0) != c.identities {
					t.Errorf("round %d: stats %+v, want %d CVEs (rejected included), %d KEV, identities %v", round, st, c.cves, c.kev, c.identities)
				}
				if after := generation(t, w, appliance.GenerationCVE); after <= before {
					t.Errorf("round %d: CVE generation %d → %d, want it moved", round, before, after)
				}
			}
		})
	}
	for _, id := range []string{"CVE-2021-3711", "CVE-2022-2068"} {
		if ok, err := w.store.CVEExists(context.Background(), id); err != nil || !ok {
			t.Errorf("CVEExists(%s) = %v, %v; want true", id, ok, err)
		}
	}
}

func TestImportCatalog(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for _, c := range []struct {
		file string
		want int
	}{{catalogMini, 29}, {catalogMini, 29}} {
		f, err := os.Open(c.file)
		if err != nil {
			t.Fatal(err)
		}
		before := generation(t, w, appliance.GenerationCatalog)
		n, err := w.importer.ImportCatalog(ctx, c.file, f, "nvd")
		f.Close()
		if err != nil || n != c.want {
			t.Errorf("ImportCatalog(%s) = %d, %v; want %d", c.file, n, err, c.want)
		}
		if generation(t, w, appliance.GenerationCatalog) <= before {
			t.Errorf("catalogue generation did not move")
		}
	}
	entries := 0
	err := w.store.EachCatalogEntry(ctx, func(appliance.CatalogEntry) error { entries++; return nil })
	if err != nil || entries != 29 {
		t.Errorf("catalogue holds %d entries (%v) after importing the same file twice, want 29", entries, err)
	}
}

// TestImportFailureRollsBack: a feed that breaks after a valid record stores nothing.
func TestImportFailureRollsBack(t *testing.T) {
	w := newWorld(t)
	raw, err := os.ReadFile(nvdLive)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.TrimSpace(string(raw))
	broken = broken[:strings.LastIndex(broken, "]")] + `, {"cve": {"id": 42}} ]}`
	before := generation(t, w, appliance.GenerationCVE)
	if _, err := w.importer.ImportFeed(context.Background(), "broken.json", strings.NewReader(broken)); err == nil {
		t.Fatal("a feed with a malformed record imported without an error")
	}
	if ok, _ := w.store.CVEExists(context.Background(), "CVE-2022-2068"); ok {
		t.Error("the valid record before the malformed one was kept: the import is not one transaction")
	}
	if after := generation(t, w, appliance.GenerationCVE); after != before {
		t.Errorf("CVE generation moved (%d → %d) on a failed import", before, after)
	}
	for _, junk := range []string{"", "not json", `{"vulnerabilities": 3}`, "\x1f\x8b\x08garbage"} {
		if _, err := w.importer.ImportFeed(context.Background(), "junk", strings.NewReader(junk)); err == nil {
			t.Errorf("ImportFeed(%q) succeeded, want an error", junk)
		}
	}
}

func TestLoadDefaults(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	loaded, err := w.importer.LoadDefaults(ctx, data.Defaults(), true)
	if err != nil || !loaded {
		t.Fatalf("LoadDefaults on an empty store = %v, %v; want loaded", loaded, err)
	}
	if err := w.service.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	w.submit(t, w.acme, report("pc-1", item("OpenSSL", "OpenSSL", "1.1.1k")))
	if d := w.product(t, "OpenSSL", "OpenSSL", "1.1.1k"); len(d.Vulnerabilities) == 0 {
		t.Errorf("the starter data shows no match for OpenSSL 1.1.1k (cpe %q)", inventory.CPE(d.Product))
	}
	again, err := w.importer.LoadDefaults(ctx, data.Defaults(), true)
	if err != nil || again {
		t.Errorf("LoadDefaults on a store with data = %v, %v; want it left alone", again, err)
	}
}

// TestLoadDefaultsWithoutDemo: plain serve loads the starter catalogue only; no demo CVEs.
func TestLoadDefaultsWithoutDemo(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if loaded, err := w.importer.LoadDefaults(ctx, data.Defaults(), false); err != nil || !loaded {
		t.Fatalf("LoadDefaults = %v, %v", loaded, err)
	}
	if err := w.service.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	w.submit(t, w.acme, report("pc-1", item("OpenSSL", "OpenSSL", "1.1.1k")))
	d := w.product(t, "OpenSSL", "OpenSSL", "1.1.1k")
	if inventory.CPE(d.Product) == "" || len(d.Vulnerabilities) != 0 {
		t.Errorf("without the demo feed: cpe %q, %d vulnerabilities; want resolved and none", inventory.CPE(d.Product), len(d.Vulnerabilities))
	}
}

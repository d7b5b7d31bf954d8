package web

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance/exposure"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/kbindex"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// Real files, by path relative to this package.
const (
	fixtureDir  = "../../shared/conformance/fixtures"
	catalogMini = fixtureDir + "/catalog-mini.tsv"
	nvdMini     = fixtureDir + "/nvd-mini.json"
	kevMini     = fixtureDir + "/kev-mini.json"
	nvdLive     = fixtureDir + "/nvd-live.json"
)

// inventoryServices are the inventory service the server was built with and an importer
// over the same store, as the CLI would write into it.
type inventoryServices struct {
	Service  *inventory.Service
	Importer *inventory.Importer
}

// withInventory imports files (catalogue .tsv[.gz] or feeds) into the fresh store, then wires
// an inventory service over a Bleve candidate index in a temporary directory, as serve does.
func withInventory(into *inventoryServices, files ...string) envOption {
	return withDeps(func(t testing.TB, d *Deps, st *sqlitestore.Store) {
		t.Helper()
		ctx := context.Background()
		im := inventory.NewImporter(st)
		for _, f := range files {
			importInto(t, im, f)
		}
		idx := kbindex.NewLive(filepath.Join(t.TempDir(), "kbindex"))
		t.Cleanup(func() { _ = idx.Close() })
		log := slog.New(slog.DiscardHandler)
		svc := inventory.NewService(st, inventory.NewEngine(st, idx, log), d.AgentConfig, log)
		if err := svc.Refresh(ctx); err != nil {
			t.Fatalf("load inventory engine: %v", err)
		}
		d.Inventory = svc
		d.Exposure = exposure.NewService(st, d.AgentConfig).WithClock(d.Now)
		*into = inventoryServices{Service: svc, Importer: im}
	})
}

// importInto imports one file; a missing file fails the test.
func importInto(t testing.TB, im *inventory.Importer, name string) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer f.Close()
	if strings.Contains(name, ".tsv") {
		_, err = im.ImportCatalog(context.Background(), name, f, "nvd")
	} else {
		_, err = im.ImportFeed(context.Background(), name, f)
	}
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
}

// mustJSON encodes v, failing the test on error.
func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	return b
}

// fullCatalogue is the real-scale catalogue of the shared data (110K identities).
const fullCatalogue = "../../shared/data/cpe/vendor_product.tsv.gz"

// fleet is a benchmark's hosts: each reports its products drawn from a pool of distinct
// products named after the full catalogue, the way agents spell them.
type fleet struct {
	hosts [][]inventoryItem
}

// newFleet draws hosts × perHost products from distinct products, deterministically.
func newFleet(tb testing.TB, hosts, perHost, distinct int) fleet {
	tb.Helper()
	pool := productPool(tb, distinct)
	rng := rand.New(rand.NewPCG(1, 2))
	f := fleet{hosts: make([][]inventoryItem, hosts)}
	for h := range f.hosts {
		for _, i := range rng.Perm(len(pool))[:perHost] {
			f.hosts[h] = append(f.hosts[h], pool[i])
		}
	}
	return f
}

// productPool spreads n picks evenly over the catalogue's applications: the publisher and
// title (or product name) as a person reads them, with a dotted version.
func productPool(tb testing.TB, n int) []inventoryItem {
	tb.Helper()
	fh, err := os.Open(fullCatalogue)
	if err != nil {
		tb.Fatalf("open %s: %v", fullCatalogue, err)
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		tb.Fatal(err)
	}
	var apps [][]string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		if cols := strings.Split(sc.Text(), "\t"); len(cols) >= 4 && cols[0] == "a" {
			apps = append(apps, cols)
		}
	}
	if err := sc.Err(); err != nil || len(apps) < n {
		tb.Fatalf("read %s: %d applications (%v), want at least %d", fullCatalogue, len(apps), err, n)
	}
	out := make([]inventoryItem, n)
	for i := range out {
		cols := apps[i*len(apps)/n]
		name := cols[3]
		if name == "" {
			name = strings.ReplaceAll(cols[2], "_", " ")
		}
		version := fmt.Sprintf("%d.%d.%d", 1+i%13, i%7, (i*31)%200)
		out[i] = inv(strings.ReplaceAll(cols[1], "_", " "), name, version)
	}
	return out
}

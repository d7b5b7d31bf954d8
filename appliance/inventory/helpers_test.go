package inventory_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// Real files, by path relative to this package.
const (
	fixtures    = "../../../shared/conformance/fixtures"
	sharedData  = "../../../shared/data"
	catalogMini = fixtures + "/catalog-mini.tsv"
	nvdMini     = fixtures + "/nvd-mini.json"
	kevMini     = fixtures + "/kev-mini.json"
	nvdLive     = fixtures + "/nvd-live.json"
)

// world is a fresh store with two organizations and the inventory services over it.
type world struct {
	store    *sqlitestore.Store
	importer *inventory.Importer
	service  *inventory.Service
	engine   *inventory.Engine
	acme     int64
	globex   int64
}

// newWorld opens a store in t.TempDir(), imports the named catalogue and feed files and
// loads a service over them (without a fuzzy candidate index: exact sources only).
func newWorld(t testing.TB, files ...string) *world {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "inventory.db"), sqlitestore.Options{Readers: 4}, nil)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	w := &world{store: st, importer: inventory.NewImporter(st)}
	acc := accounts.NewAccounts(st, accounts.DefaultAuthOptions())
	w.acme, w.globex = createOrg(t, acc, "acme"), createOrg(t, acc, "globex")
	for _, f := range files {
		importFile(t, w.importer, f)
	}
	log := slog.New(slog.DiscardHandler)
	w.engine = inventory.NewEngine(st, nil, log)
	w.service = inventory.NewService(st, w.engine, appliance.DefaultAgentConfig(), log)
	if err := w.service.Refresh(ctx); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	return w
}

func createOrg(t testing.TB, acc *accounts.Accounts, name string) int64 {
	t.Helper()
	o, err := acc.CreateOrganization(context.Background(), name)
	if err != nil {
		t.Fatalf("create organization %q: %v", name, err)
	}
	return o.ID
}

// importFile imports a catalogue (.tsv) or a feed (anything else); a missing file fails the test.
func importFile(t testing.TB, im *inventory.Importer, name string) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer f.Close()
	if strings.HasSuffix(name, ".tsv") || strings.HasSuffix(name, ".tsv.gz") {
		_, err = im.ImportCatalog(context.Background(), name, f, "nvd")
	} else {
		_, err = im.ImportFeed(context.Background(), name, f)
	}
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
}

func item(vendor, product, version string) inventory.Item {
	return inventory.Item{Vendor: vendor, Product: product, Version: version}
}

// hostA is the conformance suite's first host.
var hostA = []inventory.Item{
	item("openssl", "openssl", "1.1.1k"),
	item("Google LLC", "Google Chrome", "116.0.5845.96"),
	item("Notepad++ Team", "Notepad++ (64-bit x64)", "8.5.6"),
	item("Apache Software Foundation", "Apache Log4j", "2.17.1"),
	item("Acme Widgets", "Totally Unknown Widget", "1.0"),
	item("Igor Pavlov", "7-Zip 21.07 (x64)", "21.07"),
	item("Mozilla", "Mozilla Firefox (x64 en-US)", "118.0.1"),
}

func report(host string, items ...inventory.Item) inventory.Report {
	return inventory.Report{Hostname: host, HasProducts: true, Items: slices.Clone(items)}
}

func (w *world) submit(t testing.TB, orgID int64, rep inventory.Report) inventory.Summary {
	t.Helper()
	res, err := w.service.Submit(context.Background(), orgID, rep)
	if err != nil {
		t.Fatalf("submit %s: %v", rep.Hostname, err)
	}
	return res.Summary
}

// product finds acme's product by reported vendor, name and version, with its detail.
func (w *world) product(t testing.TB, vendor, name, version string) inventory.ProductDetail {
	t.Helper()
	ctx := context.Background()
	p, err := w.store.ProductByKey(ctx, w.acme, appliance.ProductKey{Vendor: vendor, Name: name, Version: version})
	if err != nil {
		t.Fatalf("product %q %q %q: %v", vendor, name, version, err)
	}
	d, err := w.service.Product(ctx, w.acme, p.ID)
	if err != nil {
		t.Fatalf("product %d detail: %v", p.ID, err)
	}
	return d
}

func cveIDs(d inventory.ProductDetail) []string {
	var out []string
	for _, v := range d.Vulnerabilities {
		out = append(out, v.CVEID)
	}
	return out
}

func wantInvalid(t testing.TB, err error, field string) {
	t.Helper()
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v, want a validation error on %s", err, field)
	}
	if ve.Field != field {
		t.Errorf("validation error field = %q, want %q (%v)", ve.Field, field, err)
	}
}

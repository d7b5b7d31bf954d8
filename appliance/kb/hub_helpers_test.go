package kb

import (
	"bufio"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// testClock is a clock the test moves.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

// fixture is a licence server on a fresh SQLite file with a clock the test controls.
type fixture struct {
	srv   *licensing.Server
	hub   *Hub
	store *sqlitestore.Store
	clock *testClock
	dir   string
}

func newFixture(t testing.TB, opts licensing.Options) *fixture {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(dir, "lic.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clk := &testClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	key := keyOf("licensing-test")
	srv, hub := licensing.NewServer(st, key, opts), NewHub(st, key)
	srv.SetClock(clk.now)
	hub.SetClock(clk.now)
	return &fixture{srv: srv, hub: hub, store: st, clock: clk, dir: dir}
}

// activate issues a code of edition valid for term and activates it for installation.
// Each installation is its own customer's; activateFor names the customer.
func (f *fixture) activate(t testing.TB, edition string, term time.Duration, installation string) licensing.Activation {
	t.Helper()
	return f.activateFor(t, "Customer of "+installation, edition, term, installation)
}

func (f *fixture) activateFor(t testing.TB, customer, edition string, term time.Duration, installation string) licensing.Activation {
	t.Helper()
	ctx := context.Background()
	code, err := f.srv.CreateCode(ctx, edition, term, customer)
	if err != nil {
		t.Fatalf("create code: %v", err)
	}
	act, err := f.srv.Activate(ctx, code, installation)
	if err != nil {
		t.Fatalf("activate: %v", err)
	}
	return act
}

// licensee activates a licence for installation and authenticates with its credential.
func (f *fixture) licensee(t testing.TB, edition, installation string) licensing.Licensee {
	t.Helper()
	act := f.activate(t, edition, 365*24*time.Hour, installation)
	who, err := f.srv.Authenticate(context.Background(), licensing.Credential(act.License), installation)
	if err != nil {
		t.Fatalf("authenticate %s: %v", installation, err)
	}
	return who
}

// push sends ms as who, with the professional edition header.
func (f *fixture) push(t testing.TB, who licensing.Licensee, ms ...Mapping) {
	t.Helper()
	if _, err := f.hub.Push(context.Background(), who, who.License.InstallationID, "professional", ms); err != nil {
		t.Fatalf("push by %s: %v", who.License.InstallationID, err)
	}
}

// pulled is every mapping a full pull returns, keyed by vendor_pattern/product_pattern → cpe.
func (f *fixture) pulled(t testing.TB, who licensing.Licensee, source appliance.KBSource) []appliance.KBMapping {
	t.Helper()
	var out []appliance.KBMapping
	_, err := f.hub.Pull(context.Background(), who, appliance.PullQuery{Source: source}, func(m appliance.KBMapping) error {
		out = append(out, m)
		return nil
	})
	if err != nil {
		t.Fatalf("pull: %v", err)
	}
	return out
}

func pushMapping(vp, pp, cv, cp string, c *float64) Mapping {
	return Mapping{VendorPattern: vp, ProductPattern: pp, CPEVendor: cv, CPEProduct: cp, Confidence: c}
}

// realMappings turns n rows of vendor_product.tsv.gz into pushable mappings; a missing file fails.
func realMappings(t testing.TB, n int) []Mapping {
	t.Helper()
	f, err := os.Open(storetest.VendorProductTSV)
	if err != nil {
		t.Fatalf("real data missing: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", storetest.VendorProductTSV, err)
	}
	var out []Mapping
	sc := bufio.NewScanner(gz)
	for sc.Scan() && len(out) < n {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 3 || cols[0] != "a" || !IsCPEComponent(cols[1]) || !IsCPEComponent(cols[2]) {
			continue
		}
		out = append(out, pushMapping(cols[1], cols[2], cols[1], cols[2], nil))
	}
	if len(out) < n {
		t.Fatalf("%s: %d usable rows, want %d", storetest.VendorProductTSV, len(out), n)
	}
	return out
}

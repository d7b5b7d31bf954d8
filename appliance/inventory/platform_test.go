package inventory_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

// NVD names uglifyjs_project:uglifyjs only for target_sw node.js (CVE-2015-8857 before 2.4.24,
// CVE-2015-8858 up to 2.5.0): it is the npm package. A name a Mac or a bare list reports stays
// unresolved instead of taking the package's CVEs (as a Mac runner's ChromeDriver, Google's
// binary, must not take those of the npm package chromedriver); the npm package resolves and
// gets them, and a distribution's package of it is never refused for its platform.
func TestPlatformBoundIdentity(t *testing.T) {
	w := newWorld(t, sharedData+"/nvd/nvdcve-2.0-2015.json.gz")
	ctx := context.Background()
	uglify := appliance.Identity{Part: "a", Vendor: "uglifyjs_project", Product: "uglifyjs"}
	var platform string
	if err := w.store.EachCatalogEntry(ctx, func(e appliance.CatalogEntry) error {
		if e.Identity == uglify {
			platform = e.Platform
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if platform != "node.js" {
		t.Fatalf("uglifyjs's platform after the feed: %q, want node.js", platform)
	}
	mac := inventory.Item{Product: "UglifyJS", Version: "2.4.0", Package: appliance.PackageInfo{Source: "macos"}}
	bare := inventory.Item{Product: "uglifyjs", Version: "2.3.0"}
	npm := inventory.Item{Product: "uglifyjs", Version: "2.4.0", Package: appliance.PackageInfo{PURL: "pkg:npm/uglifyjs@2.4.0"}}
	deb := inventory.Item{Product: "uglifyjs", Version: "2.4.0-1", Package: appliance.PackageInfo{Source: "deb"}}
	w.submit(t, w.acme, report("mac-runner", mac, bare, npm, deb))

	for _, it := range []inventory.Item{mac, bare} {
		d := w.product(t, it.Vendor, it.Product, it.Version)
		if d.Identity.Resolved() || d.Resolution != appliance.ResolutionUnresolved || len(d.Vulnerabilities) > 0 {
			t.Errorf("%s %s (%q): %s by %s with %v, want unresolved without CVEs", it.Product, it.Version, it.Package.Source,
				d.Identity, d.Resolution, cveIDs(d))
		}
	}
	for _, it := range []inventory.Item{npm, deb} {
		d := w.product(t, it.Vendor, it.Product, it.Version)
		got := cveIDs(d)
		slices.Sort(got)
		if d.Identity.Pair() != uglify.Pair() || !slices.Equal(got, []string{"CVE-2015-8857", "CVE-2015-8858"}) {
			t.Errorf("%s %s (%s): %s with %v, want %s with CVE-2015-8857 and CVE-2015-8858", it.Product, it.Version, it.Package.Source, d.Identity, got, uglify)
		}
	}
}

// The inventory resolves with what the catalogue says of CVE use: of two vendors the
// dictionary lists for "pip", the one NVD files pip's CVEs under owns the name (the shared
// catalogue's rows, sources included).
func TestInventoryPrefersIdentitiesCVEDataUses(t *testing.T) {
	tsv := filepath.Join(t.TempDir(), "catalog.tsv")
	rows := "part\tvendor\tproduct\ttitle\tsources\n" +
		"a\tpip-installer\tpip\tpip-installer pip 1.0\tdict2015\n" +
		"a\tpypa\tpip\t\tcpedict,nvd11\n"
	if err := os.WriteFile(tsv, []byte(rows), 0o600); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, tsv)
	w.submit(t, w.acme, report("runner-1", item("", "Pip", "23.0")))
	if d := w.product(t, "", "Pip", "23.0"); d.Identity.String() != "pypa:pip" {
		t.Errorf("Pip resolved to %q by %s, want pypa:pip", d.Identity, d.Resolution)
	}
}

package inventory

import (
	"slices"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/resolve"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// TestReviewedMacIdentitiesAreUsedByCVEs: every identity of the bundle-id and Homebrew tables is
// in the real catalogue with CVE data naming it (sources nvd11/nvd20), not a dictionary-only
// spelling, and the lookups answer the examples.
func TestReviewedMacIdentitiesAreUsedByCVEs(t *testing.T) {
	rows := storetest.CPERows(t, 0)
	cveUsed := make(map[appliance.Identity]bool, len(rows))
	for _, r := range rows {
		if sources := strings.Split(r.Sources, ","); slices.Contains(sources, "nvd11") || slices.Contains(sources, "nvd20") {
			cveUsed[appliance.Identity{Part: r.Part, Vendor: r.Vendor, Product: r.Product}] = true
		}
	}
	for k, id := range resolve.ReviewedIdentities() {
		if !cveUsed[id] {
			t.Errorf("%s → %s is not an identity CVE data uses", k, id)
		}
	}
	r := resolve.New(nil, nil, nil, resolve.Options{})
	for _, c := range []struct {
		it   Item
		want string
	}{
		{Item{Product: "Google Chrome", Package: appliance.PackageInfo{Source: "macos", BundleID: "com.google.Chrome"}}, "google:chrome"},
		{Item{Product: "Firefox", Package: appliance.PackageInfo{Source: "macos", BundleID: "org.mozilla.firefox"}}, "mozilla:firefox"},
		{Item{Vendor: "homebrew", Product: "openssl@3", Package: appliance.PackageInfo{Source: "brew"}}, "openssl:openssl"},
		{Item{Vendor: "homebrew", Product: "node", Package: appliance.PackageInfo{Source: "brew"}}, "nodejs:node.js"},
		{Item{Vendor: "homebrew", Product: "python@3.12", Package: appliance.PackageInfo{Source: "brew"}}, "python:python"},
	} {
		res, ok := r.SourceIdentity(c.it.Vendor, c.it.Product, c.it.Package)
		if got := res.Vendor + ":" + res.Product; !ok || got != c.want {
			t.Errorf("%s %s: %v %v, want %s", c.it.Product, c.it.Package.BundleID, got, ok, c.want)
		}
	}
	if _, ok := r.SourceIdentity("homebrew", "some-unknown-formula", appliance.PackageInfo{Source: "brew"}); ok {
		t.Error("an unknown formula got an identity from the table")
	}
}

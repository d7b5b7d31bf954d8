package inventory

import (
	"slices"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
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
	for name, tables := range map[string]map[string]appliance.Identity{"bundle ids": bundleIdentities, "homebrew": brewIdentities} {
		for k, id := range tables {
			if !cveUsed[id] {
				t.Errorf("%s: %s → %s is not an identity CVE data uses", name, k, id)
			}
		}
	}
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
		id, ok := reviewedIdentity(c.it)
		if !ok || id.String() != c.want {
			t.Errorf("%s %s: %v %v, want %s", c.it.Product, c.it.Package.BundleID, id, ok, c.want)
		}
	}
	if _, ok := reviewedIdentity(Item{Vendor: "homebrew", Product: "some-unknown-formula", Package: appliance.PackageInfo{Source: "brew"}}); ok {
		t.Error("an unknown formula got an identity from the table")
	}
}

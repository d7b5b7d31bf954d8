package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLanguagePackagesMatchTheirEcosystemAdvisories imports the shared GitHub advisories (OSV)
// and posts npm and Go packages through the agent API: each package's findings are exactly the
// CVEs whose GHSA record names it with a range containing its version, computed here from the
// files with a plain dotted-number comparison.
func TestLanguagePackagesMatchTheirEcosystemAdvisories(t *testing.T) {
	w := ghsaWorld(t)
	dir := advData + "/ghsa-osv"
	// Each item with the OSV ecosystem and name its GHSA records use; the last two say theirs
	// by purl only.
	cases := []ecosystemItem{
		{inventoryItem{Product: "lodash", Version: "4.17.15", packageItemJSON: packageItemJSON{Source: "npm"}}, "npm", "lodash"},
		{inventoryItem{Product: "ws", Version: "7.4.5", packageItemJSON: packageItemJSON{Source: "npm"}}, "npm", "ws"},
		{inventoryItem{Product: "semver", Version: "7.3.8", packageItemJSON: packageItemJSON{Source: "npm"}}, "npm", "semver"},
		{inventoryItem{Product: "moment", Version: "2.29.4", packageItemJSON: packageItemJSON{Source: "npm"}}, "npm", "moment"},
		{inventoryItem{Product: "golang.org/x/net", Version: "0.10.0", packageItemJSON: packageItemJSON{Source: "go"}}, "Go", "golang.org/x/net"},
		{inventoryItem{Product: "github.com/gin-gonic/gin", Version: "1.8.1", packageItemJSON: packageItemJSON{Source: "go"}}, "Go", "github.com/gin-gonic/gin"},
		{inventoryItem{Product: "snakeyaml", Version: "1.26", packageItemJSON: packageItemJSON{PURL: "pkg:maven/org.yaml/snakeyaml@1.26"}}, "Maven", "org.yaml:snakeyaml"},
		{inventoryItem{Product: "psr7", Version: "1.9.0", packageItemJSON: packageItemJSON{PURL: "pkg:composer/guzzlehttp/psr7@1.9.0"}}, "Packagist", "guzzlehttp/psr7"},
	}
	var items []inventoryItem
	for _, c := range cases {
		items = append(items, c.item)
	}
	postHost(t, w, distroHost{hostname: "app1", items: func(testing.TB, string) []inventoryItem { return items }})
	want := ghsaExpected(t, dir, cases)
	got, products := hostFindings(t, w, "")
	gotBy := map[string][]string{}
	for _, f := range got {
		gotBy[f.pkg] = append(gotBy[f.pkg], f.CVEID)
		if f.Basis != "advisory" || !strings.HasPrefix(f.Source, "osv") && f.Source != "ghsa" {
			t.Errorf("%s %s: basis %q source %q, want the ecosystem advisory", f.pkg, f.CVEID, f.Basis, f.Source)
		}
	}
	for _, it := range items {
		g := slices.Compact(slices.Sorted(slices.Values(gotBy[it.Product])))
		if !slices.Equal(g, want[it.Product]) {
			t.Errorf("%s %s: findings %v, want %v", it.Product, it.Version, g, want[it.Product])
		}
	}
	if len(want["lodash"]) == 0 || len(want["snakeyaml"]) == 0 || len(want["psr7"]) == 0 || len(want["moment"]) != 0 {
		t.Fatalf("expected sets look wrong: %v", want)
	}
	for _, p := range products {
		if p.Resolution != "package" {
			t.Errorf("%s resolved by %q, want package (its ecosystem's advisories are imported)", p.Name, p.Resolution)
		}
	}
}

// ecosystemItem is an inventory item and the OSV ecosystem and package name it stands for.
type ecosystemItem struct {
	item            inventoryItem
	ecosystem, name string
}

// ghsaExpected reads every GHSA record and returns, per product, the sorted CVE aliases of the
// records with a range holding the item's version (introduced ≤ v < fixed).
func ghsaExpected(t *testing.T, dir string, items []ecosystemItem) map[string][]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "GHSA-*.json"))
	type rec struct {
		Aliases  []string
		Affected []struct {
			Package struct{ Ecosystem, Name string }
			Ranges  []struct{ Events []map[string]string }
		}
	}
	out := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r rec
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		for _, c := range items {
			it := c.item
			for _, a := range r.Affected {
				if a.Package.Ecosystem != c.ecosystem || a.Package.Name != c.name {
					continue
				}
				for _, rg := range a.Ranges {
					in := false
					for _, ev := range rg.Events {
						if v, ok := ev["introduced"]; ok && dotted(it.Version) >= dotted(v) {
							in = true
						}
						if v, ok := ev["fixed"]; ok && dotted(it.Version) >= dotted(v) {
							in = false
						}
					}
					if in {
						out[it.Product] = append(out[it.Product], r.Aliases...)
					}
				}
			}
		}
	}
	for k, v := range out {
		out[k] = slices.Compact(slices.Sorted(slices.Values(v)))
	}
	return out
}

// dotted turns 1.2.3 (up to four numbers; any pre-release or pseudo-version suffix sorts before its release) into a
// string that orders like the version.
func dotted(v string) string {
	num, pre, _ := strings.Cut(v, "-")
	var b strings.Builder
	parts := strings.Split(num, ".")
	for i := range 4 {
		n := 0
		if i < len(parts) {
			n, _ = strconv.Atoi(parts[i])
		}
		b.WriteString(strconv.Itoa(100000 + n))
	}
	if pre == "" {
		b.WriteString("~")
	}
	return b.String()
}

package catalog

import (
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const syftCPEIndex = "../../../shared/data/cpe/syft-cpe-index.json.gz"

// Syft's index names the platform of each package's CPE: the npm package chromedriver and the
// Rust crate stack are bound to their platforms; Flask's name says none.
func TestParseRealCPEIndex(t *testing.T) {
	ids := parseAll(t, syftCPEIndex)
	if len(ids) != 8035 {
		t.Fatalf("%d identities, want the index's 8,035 distinct names (escapes read)", len(ids))
	}
	m := byKey(ids)
	for key, platform := range map[identityKey]string{
		{"a", "chromedriver_project", "chromedriver"}: "node.js",
		{"a", "stack_project", "stack"}:               "rust",
		{"a", "elegantthemes", "divi"}:                "wordpress",
		{"a", "jenkins", "anchorchain"}:               "jenkins",
		{"a", "palletsprojects", "flask"}:             appliance.PlatformAny,
	} {
		got, ok := m[key]
		if !ok {
			t.Errorf("%s:%s missing", key.vendor, key.product)
			continue
		}
		if got.Platform != platform {
			t.Errorf("%s:%s platform %q, want %q", key.vendor, key.product, got.Platform, platform)
		}
	}
	again := parseAll(t, syftCPEIndex)
	for i := range ids {
		if ids[i] != again[i] {
			t.Fatalf("identity %d differs between two reads: %+v, %+v", i, ids[i], again[i])
		}
	}
}

func TestParseCPEIndexMerge(t *testing.T) {
	doc := `{"ecosystems":{
	  "npm":{"tar":["cpe:2.3:a:tar_project:tar:*:*:*:*:*:node.js:*:*"],"chromedriver":["cpe:2.3:a:chromedriver_project:chromedriver:*:*:*:*:*:node.js:*:*"]},
	  "rust_crates":{"tar":["cpe:2.3:a:tar_project:tar:*:*:*:*:*:rust:*:*"]}
	}}`
	got, err := parseString(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []appliance.CatalogEntry{
		{Identity: appliance.Identity{Part: "a", Vendor: "chromedriver_project", Product: "chromedriver"}, Platform: "node.js"},
		{Identity: appliance.Identity{Part: "a", Vendor: "tar_project", Product: "tar"}, Platform: appliance.PlatformAny},
	}
	if !equalIdentities(got, want) {
		t.Errorf("got  %+v\nwant %+v (two platforms make none)", got, want)
	}
	for _, bad := range []struct{ doc, want string }{
		{`{"ecosystems":{"npm":{"x":["cpe:2.3:a:only"]}}}`, "package x"},
		{`{"ecosystems":{"npm":{"x":"cpe:2.3:a:a:b:*:*:*:*:*:*:*:*"}}}`, "ecosystem npm"},
		{`{"other":1}`, `no "products" array`},
	} {
		_, err := parseString(bad.doc)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want one naming %q", bad.doc, err, bad.want)
		}
	}
}

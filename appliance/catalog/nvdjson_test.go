package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestParseNVDCPEAPISample(t *testing.T) {
	got := parseAll(t, nvdCPESample)
	want := []appliance.CatalogEntry{
		{Identity: appliance.Identity{Part: "a", Vendor: "notepad-plus-plus", Product: "notepad++"}, Title: "Notepad++", Platform: "*"},
		{Identity: appliance.Identity{Part: "a", Vendor: "nodejs", Product: "node.js"}, Title: "Node.js", Platform: "*"},
		{Identity: appliance.Identity{Part: "a", Vendor: "haxx", Product: "curl"}, Title: "Haxx curl", Deprecated: true, Platform: "*"},
		{Identity: appliance.Identity{Part: "a", Vendor: "curl", Product: "curl"}, Title: "curl", Platform: "*"},
		{Identity: appliance.Identity{Part: "o", Vendor: "microsoft", Product: "windows_10_22h2"}, Title: "Microsoft Windows 10 22H2", Platform: "*"},
	}
	if !equalIdentities(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseNVDJSONCollapsesVersions(t *testing.T) {
	doc := `{"products":[
	 {"cpe":{"cpeName":"cpe:2.3:a:acme:widget:1.0:*:*:*:*:*:*:*","deprecated":true,"titles":[{"title":"ACME Widget 1.0","lang":"en"}]}},
	 {"cpe":{"cpeName":"cpe:2.3:a:acme:widget:2.0:beta:*:*:*:*:*:*","deprecated":false,"titles":[{"title":"ACME Widget 2.0 beta","lang":"en"}]}},
	 {"cpe":{"cpeName":"cpe:2.3:a:acme:widget:3.0:*:*:*:*:*:*:*","titles":[{"title":"Widget","lang":"fr"}]}}
	],"format":"NVD_CPE"}`
	got, err := parseString(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []appliance.CatalogEntry{{Identity: appliance.Identity{Part: "a", Vendor: "acme", Product: "widget"}, Title: "ACME Widget", Platform: "*"}}
	if !equalIdentities(got, want) {
		t.Errorf("got %+v, want %+v (not deprecated: one version is live)", got, want)
	}
}

func TestParseNVDJSONMalformed(t *testing.T) {
	tests := []struct{ name, input, wantInMessage string }{
		{"no products key", `{"format":"NVD_CVE","vulnerabilities":[]}`, `no "products"`},
		{"products not array", `{"products":{}}`, `want "["`},
		{"bad cpe name", `{"products":[{"cpe":{"cpeName":"cpe:2.3:a:acme"}}]}`, "product 0"},
		{"empty cpe name", `{"products":[{"cpe":{}}]}`, "product 0"},
		{"any part", `{"products":[{"cpe":{"cpeName":"cpe:2.3:*:acme:w:1:*:*:*:*:*:*:*"}}]}`, "part"},
		{"truncated", `{"products":[{"cpe":{"cpeName":"cpe:2.3:a:acme:w:1:*:*:*:*:*:*:*"}}`, "near byte"},
		{"wrong field type", `{"products":[{"cpe":{"cpeName":7}}]}`, "product 0"},
		{"top-level array", `[1]`, `want "{"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseString(tt.input)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a *appliance.ValidationError", err)
			}
			if !strings.Contains(err.Error(), tt.wantInMessage) {
				t.Errorf("error %q does not mention %q", err, tt.wantInMessage)
			}
		})
	}
}

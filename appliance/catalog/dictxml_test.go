package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// The 2015 dictionary holds 101,371 <cpe-item> versions; they collapse to 13,557 distinct
// products, the number an independent scan of its cpe23-item names finds (and the number of
// titled rows of vendor_product.tsv.gz, which took its titles from this file).
func TestParseRealDictionary(t *testing.T) {
	ids := parseAll(t, dictionaryXML)
	want := map[string]int{"a": 10728, "o": 658, "h": 2171}
	got := countParts(ids)
	for part, n := range want {
		if got[part] != n {
			t.Errorf("part %s: %d products, want %d", part, got[part], n)
		}
	}
	m := byKey(ids)
	for _, w := range []appliance.CatalogEntry{
		{Identity: appliance.Identity{Part: "a", Vendor: "1024cms", Product: "1024_cms"}, Title: "1024cms.org 1024 CMS", Platform: "*"},
		{Identity: appliance.Identity{Part: "a", Vendor: "openssl", Product: "openssl"}, Title: "OpenSSL OpenSSL", Platform: "*"},
	} {
		if g := m[keyOf(w)]; g != w {
			t.Errorf("got %+v, want %+v", g, w)
		}
	}
	if len(ids) != 13557 {
		t.Errorf("%d products, want 13557", len(ids))
	}
	if _, ok := m[identityKey{"a", "$0.99_kindle_books_project", "$0.99_kindle_books"}]; !ok {
		t.Error(`"\$0.99_kindle_books" was not unescaped`)
	}
}

const dictionaryHead = `<?xml version='1.0' encoding='UTF-8'?>
<cpe-list xmlns="http://cpe.mitre.org/dictionary/2.0" xmlns:cpe-23="http://scap.nist.gov/schema/cpe-extension/2.3">
`

func TestParseDictionaryItems(t *testing.T) {
	doc := dictionaryHead + `
  <cpe-item name="cpe:/a:acme:widget:1.0" deprecated="true">
    <title xml:lang="ja-JP">ウィジェット</title>
    <title xml:lang="en-US">ACME   Widget 1.0</title>
    <cpe-23:cpe23-item name="cpe:2.3:a:acme:widget:1.0:*:*:*:*:*:*:*"/>
  </cpe-item>
  <cpe-item name="cpe:/a:acme:widget:1.1:beta">
    <title xml:lang="en-US">ACME Widget 1.1 Beta</title>
    <references><reference href="https://example.invalid/">Vendor</reference></references>
    <cpe-23:cpe23-item name="cpe:2.3:a:acme:widget:1.1:beta:*:*:*:*:*:*"/>
  </cpe-item>
  <cpe-item name="cpe:/o:acme:os_%2b%2b:2" deprecated="true">
    <title xml:lang="en-US">ACME OS++ 2 for routers</title>
  </cpe-item>
</cpe-list>`
	got, err := parseString(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []appliance.CatalogEntry{
		{Identity: appliance.Identity{Part: "a", Vendor: "acme", Product: "widget"}, Title: "ACME Widget", Platform: "*"},
		{Identity: appliance.Identity{Part: "o", Vendor: "acme", Product: "os_++"}, Title: "ACME OS++ 2 for routers", Deprecated: true, Platform: "*"},
	}
	if !equalIdentities(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseDictionaryMalformed(t *testing.T) {
	tests := []struct{ name, input, wantInMessage string }{
		{"not a dictionary", `<rss><channel/></rss>`, "not a CPE dictionary"},
		{"unclosed item", dictionaryHead + `<cpe-item name="cpe:/a:acme:w:1">`, "ends inside the item"},
		{"bad name", dictionaryHead + `<cpe-item name="cpe:/x:acme:w"/></cpe-list>`, "cpe-item at byte"},
		{"no name", dictionaryHead + `<cpe-item/></cpe-list>`, "cpe-item at byte"},
		{"bad deprecated flag", dictionaryHead + `<cpe-item name="cpe:/a:acme:w" deprecated="maybe"/></cpe-list>`, "cpe-item at byte"},
		{"nested item", dictionaryHead + `<cpe-item name="cpe:/a:acme:w"><cpe-item name="cpe:/a:acme:v"/></cpe-item>`, "inside cpe-item"},
		{"no elements", `<?xml version="1.0"?>`, "no elements"},
		{"syntax error", dictionaryHead + `<cpe-item name="x></cpe-list>`, "XML line"},
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

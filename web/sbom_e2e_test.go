package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"slices"
	"testing"

	spdxjson "github.com/spdx/tools-golang/json"
	"github.com/spdx/tools-golang/spdx"
	"github.com/spdx/tools-golang/spdx/v2/common"
	"github.com/spdx/tools-golang/tagvalue"
)

// sbomCase is a shared SBOM and the components the shared GHSA records affect, as the data's
// README lists them (checked by hand against the records).
type sbomCase struct {
	file     string
	affected []string
}

var sbomCases = []sbomCase{
	{"cyclonedx_laravel-7.12.0.cdx.json", []string{"psr7", "http-kernel"}},
	{"cyclonedx_proton-bridge-1.8.0.cdx.json", []string{"golang.org/x/net", "golang.org/x/sys", "golang.org/x/text", "gopkg.in/yaml.v3",
		"github.com/dgrijalva/jwt-go", "github.com/gin-gonic/gin", "github.com/microcosm-cc/bluemonday"}},
	{"cyclonedx_keycloak-10.0.2.cdx.json", []string{"jackson-databind", "log4j", "h2", "postgresql", "snakeyaml", "guava", "gson",
		"protobuf-java", "commons-io", "logback-core", "woodstox-core", "xercesImpl", "xalan", "jsoup", "hibernate-validator",
		"keycloak-services", "netty-codec", "netty-handler", "netty", "jetty-server", "spring-beans", "spring-webmvc", "spring-core",
		"spring-expression", "spring-boot-autoconfigure", "spring-boot-starter-web"}},
}

// TestSBOMsAreInventories uploads each shared CycloneDX SBOM through the agent API with the
// shared GitHub advisories imported: every component becomes a product of the application's
// asset, and the components with findings are exactly those the data's README lists.
func TestSBOMsAreInventories(t *testing.T) {
	w := ghsaWorld(t)
	want := map[string]bool{}
	for _, c := range sbomCases {
		body, err := os.ReadFile(invData + "/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		got := postSBOM(t, w, c.file, body)
		if got.Format != "cyclonedx-json" || got.Components != cdxComponents(t, body) || got.Summary.TotalProducts == 0 {
			t.Errorf("%s: %+v, want every one of its %d components", c.file, got, cdxComponents(t, body))
		}
		for _, n := range c.affected {
			want[n] = true
		}
		if names := vulnerableNames(t, w); !slices.Equal(names, slices.Sorted(maps.Keys(want))) {
			t.Errorf("after %s: vulnerable components %v, want %v", c.file, names, slices.Sorted(maps.Keys(want)))
		}
	}

	// Each SBOM is an application, apart from the hosts.
	apps := decodeBody[listResponse[assetJSON]](t, w.alice.do(t, "GET", "/api/assets?kind=application", nil))
	if apps.Total != len(sbomCases) {
		t.Errorf("applications: %d, want one per SBOM", apps.Total)
	}
	for _, a := range apps.Items {
		if a.Kind != "application" {
			t.Errorf("%s: kind %q", a.Hostname, a.Kind)
		}
	}
	if hosts := decodeBody[listResponse[assetJSON]](t, w.alice.do(t, "GET", "/api/assets?kind=host", nil)); hosts.Total != 0 {
		t.Errorf("hosts: %d, want none (only SBOMs were posted)", hosts.Total)
	}
	if res := w.alice.do(t, "GET", "/api/assets?kind=vm", nil); res.Status != 400 {
		t.Errorf("kind=vm: %d, want 400", res.Status)
	}
	// A re-upload replaces: the Laravel SBOM without guzzlehttp/psr7 removes it.
	body, _ := os.ReadFile(invData + "/" + sbomCases[0].file)
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	kept := []any{}
	for _, c := range doc["components"].([]any) {
		if c.(map[string]any)["name"] != "psr7" {
			kept = append(kept, c)
		}
	}
	doc["components"] = kept
	if got := postSBOM(t, w, sbomCases[0].file, mustJSON(t, doc)); got.Summary.InstallationsRemoved != 1 {
		t.Errorf("re-upload without psr7: %+v, want one installation removed", got.Summary)
	}
}

// TestSPDXAndSyftDocumentsAreInventories writes the Laravel SBOM's components as SPDX 2.3
// (JSON and tag-value, with the SPDX project's library) and uploads both, then the shared
// Syft document of an Alpine image: the same components are vulnerable, and the image's
// packages belong to its Alpine release.
func TestSPDXAndSyftDocumentsAreInventories(t *testing.T) {
	w := ghsaWorld(t)
	body, err := os.ReadFile(invData + "/" + sbomCases[0].file)
	if err != nil {
		t.Fatal(err)
	}
	var cdx struct {
		Components []struct{ Name, Version, Purl string }
	}
	if err := json.Unmarshal(body, &cdx); err != nil {
		t.Fatal(err)
	}
	doc := &spdx.Document{SPDXVersion: spdx.Version, DataLicense: spdx.DataLicense, SPDXIdentifier: "DOCUMENT",
		DocumentName: "laravel", DocumentNamespace: "https://example.invalid/laravel",
		CreationInfo: &spdx.CreationInfo{Created: "2026-11-28T00:00:00Z", Creators: []common.Creator{{CreatorType: "Tool", Creator: "vulnkeeper-test"}}}}
	for i, c := range cdx.Components {
		doc.Packages = append(doc.Packages, &spdx.Package{PackageName: c.Name, PackageVersion: c.Version,
			PackageSPDXIdentifier: common.ElementID(fmt.Sprintf("Package-%d", i)), PackageDownloadLocation: "NOASSERTION",
			PackageExternalReferences: []*spdx.PackageExternalReference{{Category: "PACKAGE-MANAGER", RefType: "purl", Locator: c.Purl}}})
	}
	for _, f := range []struct {
		format string
		write  func(any, io.Writer) error
	}{
		{"spdx-json", func(d any, w io.Writer) error { return spdxjson.Write(d, w) }},
		{"spdx-tag-value", func(d any, w io.Writer) error { return tagvalue.Write(d, w) }},
	} {
		var buf bytes.Buffer
		if err := f.write(doc, &buf); err != nil {
			t.Fatal(err)
		}
		got := postSBOM(t, w, "laravel-"+f.format, buf.Bytes())
		if got.Format != f.format || got.Components != len(cdx.Components) {
			t.Errorf("%s: %+v, want %d components", f.format, got, len(cdx.Components))
		}
		if names := vulnerableNames(t, w); !slices.Equal(names, slices.Sorted(slices.Values(sbomCases[0].affected))) {
			t.Errorf("%s: vulnerable components %v, want %v", f.format, names, sbomCases[0].affected)
		}
	}

	syft, err := os.ReadFile(invData + "/syft_alpine-image.syft.json")
	if err != nil {
		t.Fatal(err)
	}
	res := w.acme.do(t, "POST", "/api/agent/sbom?kind=host&hostname=alpine-image", syft)
	if res.Status != 200 {
		t.Fatalf("syft as a host: %d %s", res.Status, res.Body)
	}
	got := decodeBody[sbomResponse](t, res)
	if a := decodeBody[listResponse[assetJSON]](t, w.alice.do(t, "GET", "/api/assets?kind=host", nil)); a.Total != 1 || a.Items[0].Hostname != "alpine-image" {
		t.Errorf("the Syft upload as a host: %+v", a.Items)
	}
	if res := w.acme.do(t, "POST", "/api/agent/sbom?kind=vm&hostname=x", syft); res.Status != 400 {
		t.Errorf("kind=vm: %d, want 400", res.Status)
	}
	if got.Format != "syft-json" || got.Components != 14 {
		t.Errorf("syft: %+v", got)
	}
	list := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", "/api/products?per_page=200&search=musl", nil))
	if len(list.Items) == 0 || list.Items[0].Release != "alpine:3.16" {
		t.Errorf("musl of the Alpine image: %+v, want release alpine:3.16", list.Items)
	}
	for _, bad := range []string{"", "not an sbom", `{"hello":"world"}`, `{"bomFormat":"CycloneDX","components":[{"name":1}]}`} {
		if res := w.acme.do(t, "POST", "/api/agent/sbom?hostname=x", bad); res.Status != 400 {
			t.Errorf("%q: %d, want 400", bad, res.Status)
		}
	}
}

// ghsaWorld is an installation with the shared GitHub advisories (OSV) imported.
func ghsaWorld(t *testing.T) *invWorld {
	t.Helper()
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini))
	ctx := context.Background()
	dir := advData + "/ghsa-osv"
	if _, err := w.inv.Importer.ImportOSVDir(ctx, dir, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := w.inv.Service.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return w
}

func postSBOM(t *testing.T, w *invWorld, host string, body []byte) sbomResponse {
	t.Helper()
	res := w.acme.do(t, "POST", "/api/agent/sbom?hostname="+url.QueryEscape(host), body)
	if res.Status != 200 {
		t.Fatalf("%s: %d %.300s", host, res.Status, res.Body)
	}
	return decodeBody[sbomResponse](t, res)
}

// vulnerableNames are the names of the organization's installed products with findings.
func vulnerableNames(t *testing.T, w *invWorld) []string {
	t.Helper()
	seen := map[string]bool{}
	for page := 1; ; page++ {
		list := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products?per_page=200&page=%d&has_vulnerabilities=true", page), nil))
		for _, p := range list.Items {
			seen[p.Name] = true
		}
		if page >= list.Pages {
			return slices.Sorted(maps.Keys(seen))
		}
	}
}

// cdxComponents counts a CycloneDX document's components, nested ones too, files aside.
func cdxComponents(t *testing.T, body []byte) int {
	t.Helper()
	type comp struct {
		Type       string
		Components []json.RawMessage
	}
	var count func([]json.RawMessage) int
	count = func(cs []json.RawMessage) int {
		n := 0
		for _, raw := range cs {
			var c comp
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatal(err)
			}
			if c.Type != "file" {
				n++
			}
			n += count(c.Components)
		}
		return n
	}
	var doc struct{ Components []json.RawMessage }
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	return count(doc.Components)
}

package sbom

import (
	"bytes"
	"os"
	"strings"
	"testing"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

const laravel = "../../../shared/data/inventory/cyclonedx_laravel-7.12.0.cdx.json"

// TestCycloneDXXMLReadsLikeJSON re-encodes the shared Laravel SBOM as CycloneDX XML with the
// CycloneDX library and reads both: the same items, in the same order.
func TestCycloneDXXMLReadsLikeJSON(t *testing.T) {
	raw, err := os.ReadFile(laravel)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var bom cdx.BOM
	if err := cdx.NewBOMDecoder(bytes.NewReader(raw), cdx.BOMFileFormatJSON).Decode(&bom); err != nil {
		t.Fatal(err)
	}
	var xml bytes.Buffer
	if err := cdx.NewBOMEncoder(&xml, cdx.BOMFileFormatXML).Encode(&bom); err != nil {
		t.Fatal(err)
	}
	fromXML, err := Read(&xml)
	if err != nil {
		t.Fatal(err)
	}
	if fromJSON.Format != CycloneDXJSON || fromXML.Format != CycloneDXXML || len(fromJSON.Items) != 62 || len(fromXML.Items) != len(fromJSON.Items) {
		t.Fatalf("json %s %d items, xml %s %d items", fromJSON.Format, len(fromJSON.Items), fromXML.Format, len(fromXML.Items))
	}
	for i := range fromJSON.Items {
		if fromJSON.Items[i] != fromXML.Items[i] {
			t.Errorf("item %d: json %+v, xml %+v", i, fromJSON.Items[i], fromXML.Items[i])
		}
	}
}

// TestComponentWithOnlyACPEIsNamedByIt: no purl, a CPE — the item carries the CPE's vendor and
// product, so resolution takes the CPE path.
func TestComponentWithOnlyACPEIsNamedByIt(t *testing.T) {
	doc := `{"bomFormat":"CycloneDX","specVersion":"1.5","components":[
		{"type":"library","name":"libcurl","version":"8.4.0","cpe":"cpe:2.3:a:haxx:curl:8.4.0:*:*:*:*:*:*:*"},
		{"type":"file","name":"/etc/passwd"},
		{"type":"library","name":"","version":"1"}]}`
	d, err := Read(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Items) != 1 || d.Items[0].Vendor != "haxx" || d.Items[0].Product != "curl" || d.Items[0].Version != "8.4.0" || d.Skipped != 1 {
		t.Errorf("items %+v, skipped %d", d.Items, d.Skipped)
	}
}

// FuzzRead: no document makes the reader panic.
func FuzzRead(f *testing.F) {
	if raw, err := os.ReadFile(laravel); err == nil {
		f.Add(raw[:4096])
	}
	f.Add([]byte(`{"bomFormat":"CycloneDX","components":[{"name":"a","components":[{"name":"b"}]}]}`))
	f.Add([]byte("SPDXVersion: SPDX-2.3\nDataLicense: CC0-1.0\nPackageName: x\n"))
	f.Add([]byte(`{"spdxVersion":"SPDX-2.3","packages":[{"name":"x","externalRefs":[{"referenceType":"purl"}]}]}`))
	f.Add([]byte(`{"artifacts":[{"name":"musl","cpes":[{"cpe":"cpe:2.3:a:musl:musl"}]}]}`))
	f.Add([]byte(`<bom xmlns="http://cyclonedx.org/schema/bom/1.5"><components><component type="library"><name>x</name></component></components></bom>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Read(bytes.NewReader(b))
		if err == nil && d.Format == "" {
			t.Error("a document read without a format")
		}
	})
}

// Package sbom reads software bills of materials — CycloneDX (JSON and XML), SPDX 2.x (JSON
// and tag-value) and Syft's own JSON — as inventories: each component becomes an item with
// its purl, its CPE identity when it states one, and its version.
package sbom

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	cdx "github.com/CycloneDX/cyclonedx-go"
	spdxjson "github.com/spdx/tools-golang/json"
	"github.com/spdx/tools-golang/spdx"
	"github.com/spdx/tools-golang/tagvalue"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

// Formats of a document.
const (
	CycloneDXJSON = "cyclonedx-json"
	CycloneDXXML  = "cyclonedx-xml"
	SPDXJSON      = "spdx-json"
	SPDXTagValue  = "spdx-tag-value"
	SyftJSON      = "syft-json"
)

// Document is an SBOM read as the inventory of the software it describes.
type Document struct {
	Format        string
	Name, Version string           // the described application, when the document names it
	OS            appliance.HostOS // the distribution of an image's packages, when stated
	OSName        string
	Items         []inventory.Item
	Skipped       int // components with no name
}

// Read decodes a document of any supported format, told apart by its first bytes.
func Read(r io.Reader) (Document, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(64 << 10)
	format, err := sniff(head)
	if err != nil {
		return Document{}, err
	}
	var d Document
	switch format {
	case CycloneDXJSON, CycloneDXXML:
		d, err = readCycloneDX(br, format)
	case SPDXJSON, SPDXTagValue:
		d, err = readSPDX(br, format)
	case SyftJSON:
		d, err = readSyft(br)
	}
	if err != nil {
		return Document{}, appliance.Invalid("sbom", "format", "the %s document could not be read: %s", format, clip(err.Error()))
	}
	d.Format = format
	return d, nil
}

// sniff names the format from the start of a document.
func sniff(head []byte) (string, error) {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(t, []byte("<")):
		return CycloneDXXML, nil
	case bytes.HasPrefix(t, []byte("{")):
		switch {
		case bytes.Contains(head, []byte(`"bomFormat"`)):
			return CycloneDXJSON, nil
		case bytes.Contains(head, []byte(`"spdxVersion"`)):
			return SPDXJSON, nil
		case bytes.Contains(head, []byte(`"artifacts"`)):
			return SyftJSON, nil
		}
	case bytes.Contains(head, []byte("SPDXVersion:")):
		return SPDXTagValue, nil
	}
	return "", appliance.Invalid("sbom", "format", "not a CycloneDX, SPDX or Syft document")
}

func readCycloneDX(r io.Reader, format string) (Document, error) {
	ff := cdx.BOMFileFormatJSON
	if format == CycloneDXXML {
		ff = cdx.BOMFileFormatXML
	}
	var bom cdx.BOM
	if err := cdx.NewBOMDecoder(r, ff).Decode(&bom); err != nil {
		return Document{}, err
	}
	var d Document
	if bom.Metadata != nil && bom.Metadata.Component != nil {
		d.Name, d.Version = bom.Metadata.Component.Name, bom.Metadata.Component.Version
	}
	var walk func([]cdx.Component)
	walk = func(cs []cdx.Component) {
		for _, c := range cs {
			if c.Type != cdx.ComponentTypeFile {
				vendor := c.Group
				if vendor == "" {
					vendor = c.Publisher
				}
				d.add(vendor, c.Name, c.Version, c.PackageURL, c.CPE)
			}
			if c.Components != nil {
				walk(*c.Components)
			}
		}
	}
	if bom.Components != nil {
		walk(*bom.Components)
	}
	return d, nil
}

func readSPDX(r io.Reader, format string) (Document, error) {
	var doc *spdx.Document
	var err error
	if format == SPDXJSON {
		doc, err = spdxjson.Read(r)
	} else {
		doc, err = tagvalue.Read(r)
	}
	if err != nil {
		return Document{}, err
	}
	d := Document{Name: doc.DocumentName}
	for _, p := range doc.Packages {
		if p == nil {
			continue
		}
		var purl, cpeName string
		for _, ref := range p.PackageExternalReferences {
			switch {
			case ref == nil:
			case ref.RefType == "purl" && purl == "":
				purl = ref.Locator
			case strings.HasPrefix(ref.RefType, "cpe23") && cpeName == "":
				cpeName = ref.Locator
			}
		}
		vendor := ""
		if p.PackageSupplier != nil && p.PackageSupplier.Supplier != "NOASSERTION" {
			vendor = p.PackageSupplier.Supplier
		}
		d.add(vendor, p.PackageName, p.PackageVersion, purl, cpeName)
	}
	return d, nil
}

// syftDocument is the part of Syft's JSON an inventory needs.
type syftDocument struct {
	Artifacts []struct {
		Name, Version, PURL string
		CPEs                []json.RawMessage // strings (older Syft) or {"cpe": …} objects
	}
	Source struct{ Name, Version string }
	Distro struct {
		ID        string `json:"id"`
		VersionID string `json:"versionID"`
		Name      string `json:"prettyName"`
	}
}

func readSyft(r io.Reader) (Document, error) {
	var doc syftDocument
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return Document{}, err
	}
	d := Document{Name: doc.Source.Name, Version: doc.Source.Version,
		OS: appliance.HostOS{ID: doc.Distro.ID, VersionID: doc.Distro.VersionID}, OSName: doc.Distro.Name}
	for _, a := range doc.Artifacts {
		cpeName := ""
		if len(a.CPEs) > 0 {
			var s string
			var o struct{ CPE string }
			if json.Unmarshal(a.CPEs[0], &s) == nil {
				cpeName = s
			} else if json.Unmarshal(a.CPEs[0], &o) == nil {
				cpeName = o.CPE
			}
		}
		d.add("", a.Name, a.Version, a.PURL, cpeName)
	}
	return d, nil
}

// add appends one component. A component with a purl is a package of its ecosystem (the
// inventory resolves it by purl); one with only a CPE is named by the CPE's identity, so it
// takes the CPE path; the rest is resolved by name, or goes to review.
func (d *Document) add(vendor, name, version, purl, cpeName string) {
	name, version = strings.TrimSpace(name), strings.TrimSpace(version)
	if name == "" {
		d.Skipped++
		return
	}
	it := inventory.Item{Vendor: strings.TrimSpace(vendor), Product: name, Version: version}
	it.Package.PURL = strings.TrimSpace(purl)
	if it.Package.PURL == "" && cpeName != "" {
		if n, err := cpe.Parse(cpeName); err == nil && n.Vendor != "" && n.Product != "" {
			it.Vendor, it.Product = n.Vendor, n.Product
			if it.Version == "" && n.Version != "*" && n.Version != "-" {
				it.Version = n.Version
			}
		}
	}
	d.Items = append(d.Items, it)
}

// clip keeps a library's message short enough for an error body.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// Report is the full-state inventory of the asset the document describes: an application
// unless kind says it is a host.
func (d Document) Report(hostname string, kind appliance.AssetKind) (inventory.Report, error) {
	kind = appliance.AssetKind(strings.TrimSpace(string(kind)))
	if kind == "" {
		kind = appliance.AssetApplication
	}
	if kind != appliance.AssetApplication && kind != appliance.AssetHost {
		return inventory.Report{}, appliance.Invalid("kind", "enum", "kind must be application or host")
	}
	if len(d.Items) == 0 {
		return inventory.Report{}, appliance.Invalid("sbom", "empty", "the document lists no component with a name")
	}
	rep := inventory.Report{Hostname: hostname, Kind: kind, OSName: fmt.Sprintf("SBOM (%s)", d.Format), OS: d.OS, Items: d.Items, HasProducts: true}
	if d.OS.ID != "" {
		rep.OSName, rep.OSVersion = d.OSName, d.OS.VersionID
	}
	return rep, nil
}

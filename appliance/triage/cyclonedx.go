package triage

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
	openvex "github.com/openvex/go-vex/pkg/vex"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// A CycloneDX VEX document states the same as an OpenVEX one in its own words: the analysis
// states are ours (in_triage, exploitable, not_affected, false_positive, resolved), the
// justifications its own. These tables translate both ways.
var (
	cdxJustification = map[string]cdx.ImpactAnalysisJustification{
		"component_not_present":                             cdx.IAJRequiresDependency,
		"vulnerable_code_not_present":                       cdx.IAJCodeNotPresent,
		"vulnerable_code_not_in_execute_path":               cdx.IAJCodeNotReachable,
		"vulnerable_code_cannot_be_controlled_by_adversary": cdx.IAJProtectedByMitigatingControl,
		"inline_mitigations_already_exist":                  cdx.IAJProtectedAtRuntime,
	}
	fromCDXJustification = map[cdx.ImpactAnalysisJustification]string{
		cdx.IAJRequiresDependency:           "component_not_present",
		cdx.IAJCodeNotPresent:               "vulnerable_code_not_present",
		cdx.IAJCodeNotReachable:             "vulnerable_code_not_in_execute_path",
		cdx.IAJRequiresConfiguration:        "vulnerable_code_cannot_be_controlled_by_adversary",
		cdx.IAJRequiresEnvironment:          "vulnerable_code_cannot_be_controlled_by_adversary",
		cdx.IAJProtectedByMitigatingControl: "vulnerable_code_cannot_be_controlled_by_adversary",
		cdx.IAJProtectedByCompiler:          "inline_mitigations_already_exist",
		cdx.IAJProtectedAtRuntime:           "inline_mitigations_already_exist",
		cdx.IAJProtectedAtPerimeter:         "inline_mitigations_already_exist",
	}
)

// CycloneDXSpec reads a requested CycloneDX version ("" is 1.6).
func CycloneDXSpec(v string) (cdx.SpecVersion, error) {
	switch v {
	case "", "1.6":
		return cdx.SpecVersion1_6, nil
	case "1.5":
		return cdx.SpecVersion1_5, nil
	}
	return 0, appliance.Invalid("spec_version", "enum", "spec_version must be 1.5 or 1.6")
}

// ExportCycloneDX is the CycloneDX VEX document of the same statements as ExportOpenVEX: each
// product named once as a component (by its CPE or package URL), each statement a
// vulnerability whose analysis is the rule's state and which affects those components.
func (s *Service) ExportCycloneDX(ctx context.Context, orgID int64, sc ExportScope) (*cdx.BOM, error) {
	doc, err := s.ExportOpenVEX(ctx, orgID, sc)
	if err != nil {
		return nil, err
	}
	bom := cdx.NewBOM()
	bom.SerialNumber = "urn:uuid:" + uuidOf(doc.ID)
	bom.Metadata = &cdx.Metadata{Timestamp: doc.Timestamp.UTC().Format(time.RFC3339),
		Authors: &[]cdx.OrganizationalContact{{Name: doc.Author}},
		Tools:   &cdx.ToolsChoice{Components: &[]cdx.Component{{Type: cdx.ComponentTypeApplication, Name: "vulnkeeper"}}}}
	var components []cdx.Component
	refs := map[string]bool{}
	var vulns []cdx.Vulnerability
	for _, st := range doc.Statements {
		var affects []cdx.Affects
		for _, p := range st.Products {
			if !refs[p.ID] {
				refs[p.ID] = true
				components = append(components, componentFor(p.Component))
			}
			affects = append(affects, cdx.Affects{Ref: p.ID})
		}
		v := cdx.Vulnerability{ID: string(st.Vulnerability.Name), Affects: &affects,
			Source:   &cdx.Source{Name: "NVD", URL: "https://nvd.nist.gov/vuln/detail/" + string(st.Vulnerability.Name)},
			Analysis: analysisOf(st)}
		vulns = append(vulns, v)
	}
	bom.Components, bom.Vulnerabilities = &components, &vulns
	return bom, nil
}

// componentFor is the CycloneDX component a CPE or package URL names, with its name as bom-ref.
func componentFor(c openvex.Component) cdx.Component {
	out := cdx.Component{BOMRef: c.ID, Type: cdx.ComponentTypeApplication}
	if purl := c.Identifiers[openvex.PURL]; purl != "" {
		out.PackageURL, out.Type, out.Name = purl, cdx.ComponentTypeLibrary, purl
	}
	if name := c.Identifiers[openvex.CPE23]; name != "" {
		out.CPE = name
		if f := strings.Split(name, ":"); len(f) > 5 {
			out.Name, out.Group = f[4], f[3]
			if f[5] != "*" {
				out.Version = f[5]
			}
		}
	}
	return out
}

// analysisOf is the CycloneDX analysis of an OpenVEX statement we made (statementOf).
func analysisOf(st openvex.Statement) *cdx.VulnerabilityAnalysis {
	a := &cdx.VulnerabilityAnalysis{Detail: st.StatusNotes}
	if st.Timestamp != nil {
		a.LastUpdated = st.Timestamp.UTC().Format(time.RFC3339)
	}
	switch {
	case st.Status == openvex.StatusNotAffected && strings.HasPrefix(st.ImpactStatement, "false positive"):
		a.State = cdx.IASFalsePositive
	case st.Status == openvex.StatusNotAffected:
		a.State, a.Justification = cdx.IASNotAffected, cdxJustification[string(st.Justification)]
	case st.Status == openvex.StatusFixed:
		a.State = cdx.IASResolved
	case st.Status == openvex.StatusUnderInvestigation:
		a.State = cdx.IASInTriage
	case strings.HasPrefix(st.ActionStatement, "risk accepted"):
		a.State, a.Response, a.Detail = cdx.IASExploitable, &[]cdx.ImpactAnalysisResponse{cdx.IARWillNotFix}, st.ActionStatement
	default:
		a.State, a.Detail = cdx.IASExploitable, st.ActionStatement
	}
	return a
}

// uuidOf shapes a document id into the UUID CycloneDX serial numbers are (stable per id).
func uuidOf(id string) string {
	var h [16]byte
	for i, b := range []byte(id) {
		h[i%16] = h[i%16]*31 + b
	}
	h[6], h[8] = h[6]&0x0f|0x50, h[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:])
}

// ImportCycloneDX turns the not_affected analyses of a CycloneDX VEX document (JSON) into
// rules, as ImportOpenVEX does: each affected component is named by its CPE or package URL,
// the document's first author (or manufacturer, or supplier) is the rules' author.
func (s *Service) ImportCycloneDX(ctx context.Context, actor appliance.User, data []byte) (ImportResult, error) {
	if err := mayWrite(actor, StateNotAffected); err != nil {
		return ImportResult{}, err
	}
	var bom cdx.BOM
	if err := cdx.NewBOMDecoder(bytes.NewReader(data), cdx.BOMFileFormatJSON).Decode(&bom); err != nil || bom.BOMFormat != "CycloneDX" {
		return ImportResult{}, appliance.Invalid("document", "format", "the document is not CycloneDX JSON")
	}
	author := cdxAuthor(bom)
	if author == "" {
		return ImportResult{}, appliance.Invalid("metadata.authors", "required", "the document names no author, manufacturer or supplier")
	}
	components := map[string]cdx.Component{}
	var walk func([]cdx.Component)
	walk = func(cs []cdx.Component) {
		for _, c := range cs {
			if c.BOMRef != "" {
				components[c.BOMRef] = c
			}
			if c.Components != nil {
				walk(*c.Components)
			}
		}
	}
	if bom.Metadata != nil && bom.Metadata.Component != nil {
		walk([]cdx.Component{*bom.Metadata.Component})
	}
	if bom.Components != nil {
		walk(*bom.Components)
	}
	var statements []openvex.Statement
	if bom.Vulnerabilities != nil {
		for i, v := range *bom.Vulnerabilities {
			st, err := statementFromCDX(v, components)
			if err != nil {
				return ImportResult{}, atVulnerability(i, err)
			}
			statements = append(statements, st)
		}
	}
	return s.importStatements(ctx, actor, author, "CycloneDX document "+bom.SerialNumber, statements, "vulnerabilities")
}

func cdxAuthor(bom cdx.BOM) string {
	m := bom.Metadata
	switch {
	case m == nil:
		return ""
	case m.Authors != nil && len(*m.Authors) > 0 && strings.TrimSpace((*m.Authors)[0].Name) != "":
		return strings.TrimSpace((*m.Authors)[0].Name)
	case m.Manufacture != nil && strings.TrimSpace(m.Manufacture.Name) != "":
		return strings.TrimSpace(m.Manufacture.Name)
	case m.Supplier != nil:
		return strings.TrimSpace(m.Supplier.Name)
	}
	return ""
}

// statementFromCDX is the OpenVEX statement a CycloneDX vulnerability's analysis makes.
func statementFromCDX(v cdx.Vulnerability, components map[string]cdx.Component) (openvex.Statement, error) {
	st := openvex.Statement{Vulnerability: openvex.Vulnerability{Name: openvex.VulnerabilityID(v.ID)}}
	if v.Analysis == nil {
		return st, nil // no analysis: nothing decided
	}
	switch v.Analysis.State {
	case cdx.IASNotAffected:
		j, ok := fromCDXJustification[v.Analysis.Justification]
		if !ok {
			return st, appliance.Invalid("analysis.justification", "enum", "a not_affected analysis needs a justification CycloneDX defines")
		}
		st.Status, st.Justification, st.ImpactStatement = openvex.StatusNotAffected, openvex.Justification(j), v.Analysis.Detail
	case cdx.IASResolved, cdx.IASResolvedWithPedigree:
		st.Status = openvex.StatusFixed
	case cdx.IASExploitable:
		st.Status, st.ActionStatement = openvex.StatusAffected, "exploitable"
	case cdx.IASInTriage, cdx.IASFalsePositive, "":
		st.Status = openvex.StatusUnderInvestigation
	default:
		return st, appliance.Invalid("analysis.state", "enum", "unknown analysis state %q", v.Analysis.State)
	}
	if v.Affects == nil || len(*v.Affects) == 0 {
		return st, appliance.Invalid("affects", "required", "the vulnerability affects no component")
	}
	for _, a := range *v.Affects {
		c, ok := components[a.Ref]
		if !ok {
			return st, appliance.Invalid("affects", "ref", "no component has bom-ref %q", a.Ref)
		}
		vc := openvex.Component{ID: a.Ref, Identifiers: map[openvex.IdentifierType]string{}}
		if c.CPE != "" {
			vc.Identifiers[openvex.CPE23] = c.CPE
		}
		if c.PackageURL != "" {
			vc.Identifiers[openvex.PURL] = c.PackageURL
		}
		st.Products = append(st.Products, openvex.Product{Component: vc})
	}
	return st, nil
}

// atVulnerability names the vulnerability a validation error is about.
func atVulnerability(i int, err error) error {
	return atItem(fmt.Sprintf("vulnerabilities[%d]", i), err)
}

// ImportVEX imports an OpenVEX or a CycloneDX VEX document (JSON), told apart by content.
func (s *Service) ImportVEX(ctx context.Context, actor appliance.User, data []byte) (ImportResult, error) {
	if bytes.Contains(data[:min(len(data), 4096)], []byte(`"bomFormat"`)) {
		return s.ImportCycloneDX(ctx, actor, data)
	}
	return s.ImportOpenVEX(ctx, actor, data)
}

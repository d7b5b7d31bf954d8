package nvd

import (
	"fmt"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
)

// A CVE JSON 5 record (the CVE Program's format, as in the cvelistV5 repository and CISA's
// vulnrichment): the fields vulnkeeper reads.
type wireCVE5 struct {
	DataType   string         `json:"dataType"`
	Metadata   wireCVE5Meta   `json:"cveMetadata"`
	Containers wireContainers `json:"containers"`
}

type wireCVE5Meta struct {
	ID        string `json:"cveId"`
	State     string `json:"state"` // PUBLISHED or REJECTED
	Published string `json:"datePublished"`
	Updated   string `json:"dateUpdated"`
}

type wireContainers struct {
	CNA wireContainer   `json:"cna"`
	ADP []wireContainer `json:"adp"`
}

type wireContainer struct {
	Provider struct {
		ShortName string `json:"shortName"`
	} `json:"providerMetadata"`
	Descriptions []wireDescription `json:"descriptions"`
	Affected     []wireAffected    `json:"affected"`
	Metrics      []wireCVE5Metric  `json:"metrics"`
	References   []wireReference   `json:"references"`
}

type wireAffected struct {
	Vendor        string        `json:"vendor"`
	Product       string        `json:"product"`
	CPEs          []string      `json:"cpes"`
	Versions      []wireVersion `json:"versions"`
	DefaultStatus string        `json:"defaultStatus"`
}

type wireVersion struct {
	Version         string `json:"version"`
	Status          string `json:"status"`
	LessThan        string `json:"lessThan"`
	LessThanOrEqual string `json:"lessThanOrEqual"`
	VersionType     string `json:"versionType"`
}

type wireCVE5Metric struct {
	V40 *wireCVSS `json:"cvssV4_0"`
	V31 *wireCVSS `json:"cvssV3_1"`
	V30 *wireCVSS `json:"cvssV3_0"`
	V2  *wireCVSS `json:"cvssV2_0"`
}

// fieldFor maps a top-level key of a CVE JSON 5 record to the field it fills.
func (w *wireCVE5) fieldFor(key string) any {
	switch key {
	case "dataType":
		return &w.DataType
	case "cveMetadata":
		return &w.Metadata
	case "containers":
		return &w.Containers
	}
	return nil
}

// toCVE converts the record. Its configurations come from the affected data: each affected
// product (of the CNA, and of every ADP container such as CISA's vulnrichment) named by its CPEs,
// or by its vendor and product as a CPE names them; each affected version or range is one
// vulnerable criterion. Unaffected entries and git commit ranges are not read.
func (w *wireCVE5) toCVE() (CVE, error) {
	m := w.Metadata
	if !cveIDPattern.MatchString(m.ID) {
		return CVE{}, appliance.Invalid("cveMetadata.cveId", "format", "CVE id %q is not of the form CVE-YYYY-NNNN", m.ID)
	}
	published, err := parseTimestamp("cveMetadata.datePublished", m.Published)
	if err != nil {
		return CVE{}, fmt.Errorf("%s: %w", m.ID, err)
	}
	updated, err := parseTimestamp("cveMetadata.dateUpdated", m.Updated)
	if err != nil {
		return CVE{}, fmt.Errorf("%s: %w", m.ID, err)
	}
	c := CVE{ID: m.ID, Status: "CVE JSON 5 " + strings.ToLower(m.State), Published: published, Modified: updated,
		Description: englishDescription(w.Containers.CNA.Descriptions), Origin: OriginCVE5}
	if strings.EqualFold(m.State, "REJECTED") {
		c.Status = StatusRejected
		return c, nil
	}
	containers := append([]wireContainer{w.Containers.CNA}, w.Containers.ADP...)
	scoreCVE5(&c, containers)
	matches := containerMatches(containers, true)
	if len(matches) == 0 { // no container names a CPE: the CNA's vendor and product stand in
		matches = containerMatches(containers, false)
	}
	seenRef := map[string]bool{}
	for _, ct := range containers {
		for _, r := range fixReferences(cve5Tags(ct.References)) {
			if !seenRef[r.URL] {
				seenRef[r.URL] = true
				c.References = append(c.References, r)
			}
		}
	}
	if len(matches) > 0 {
		c.Configurations = []Configuration{{Operator: OperatorOR, Nodes: []Node{{Operator: OperatorOR, Matches: dedupe(matches)}}}}
	}
	return c, nil
}

// scoreCVE5 takes the newest CVSS version any container scored, the CNA's before an ADP's.
func scoreCVE5(c *CVE, containers []wireContainer) {
	for _, version := range []string{"4.0", "3.1", "3.0", "2.0"} {
		for _, ct := range containers {
			for _, m := range ct.Metrics {
				s := map[string]*wireCVSS{"4.0": m.V40, "3.1": m.V31, "3.0": m.V30, "2.0": m.V2}[version]
				if s == nil {
					continue
				}
				c.ScoreVersion, c.Score, c.Vector, c.ScoreSource = version, s.BaseScore, s.VectorString, ct.Provider.ShortName
				c.Severity = strings.ToLower(s.BaseSeverity)
				if c.Severity == "" {
					c.Severity = SeverityFromScore(version, s.BaseScore)
				}
				return
			}
		}
	}
}

// cve5Tags spells CVE JSON 5 reference tags as NVD does ("patch" → "Patch").
func cve5Tags(refs []wireReference) []wireReference {
	out := make([]wireReference, len(refs))
	for i, r := range refs {
		out[i] = wireReference{URL: r.URL}
		for _, t := range r.Tags {
			switch t {
			case "patch":
				out[i].Tags = append(out[i].Tags, appliance.TagPatch)
			case "vendor-advisory":
				out[i].Tags = append(out[i].Tags, appliance.TagVendorAdvisory)
			}
		}
	}
	return out
}

// containerMatches are the criteria of every affected entry that names CPEs (byCPE), or of
// every entry by its vendor and product.
func containerMatches(containers []wireContainer, byCPE bool) []Match {
	var out []Match
	for _, ct := range containers {
		for _, a := range ct.Affected {
			out = append(out, affectedMatches(a, byCPE)...)
		}
	}
	return out
}

// affectedMatches turns one affected entry into vulnerable criteria.
func affectedMatches(a wireAffected, byCPE bool) []Match {
	names := affectedNames(a, byCPE)
	var out []Match
	for _, n := range names {
		if len(a.Versions) == 0 {
			if n.Version != cpe.Any && n.Version != "" { // a CPE naming its version
				out = append(out, Match{Vulnerable: true, Criteria: n.String()})
			}
			continue
		}
		for _, v := range a.Versions {
			if m, ok := versionMatch(n, v); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// affectedNames are the identities an affected entry names: its CPEs (byCPE), or its vendor
// and product lowercased with spaces as underscores, as CPE names spell them (none for "n/a").
func affectedNames(a wireAffected, byCPE bool) []cpe.Name {
	if byCPE {
		var out []cpe.Name
		for _, s := range a.CPEs {
			if n, err := cpe.Parse(s); err == nil && cpe.ValidComponent(n.Vendor) && cpe.ValidComponent(n.Product) {
				out = append(out, n)
			}
		}
		return out
	}
	vendor, product := cpeValue(a.Vendor), cpeValue(a.Product)
	if !cpe.ValidComponent(vendor) || !cpe.ValidComponent(product) {
		return nil
	}
	return []cpe.Name{{Part: "a", Vendor: vendor, Product: product}}
}

func cpeValue(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "n/a" || s == "unknown" {
		return ""
	}
	return strings.Join(strings.Fields(s), "_")
}

// versionMatch is the criterion of one affected version or range of an identity.
func versionMatch(n cpe.Name, v wireVersion) (Match, bool) {
	if !strings.EqualFold(v.Status, "affected") || strings.EqualFold(v.VersionType, "git") {
		return Match{}, false
	}
	start := strings.TrimSpace(v.Version)
	if start == "0" || start == "*" || strings.EqualFold(start, "n/a") || strings.EqualFold(start, "unspecified") {
		start = ""
	}
	m := Match{Vulnerable: true}
	switch {
	case v.LessThan != "" && v.LessThan != "*":
		m.VersionStartIncluding, m.VersionEndExcluding = start, v.LessThan
	case v.LessThanOrEqual != "" && v.LessThanOrEqual != "*":
		m.VersionStartIncluding, m.VersionEndIncluding = start, v.LessThanOrEqual
	case start != "" && !strings.ContainsAny(start, " <>=*"):
		n.Version = start
		m.Criteria = n.String()
		return m, true
	default:
		return Match{}, false // every version, or words: nothing a version can be compared with
	}
	n.Version = cpe.Any
	m.Criteria = n.String()
	return m, true
}

func dedupe(ms []Match) []Match {
	seen := map[Match]bool{}
	out := ms[:0]
	for _, m := range ms {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

package nvd

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// The fields of an NVD CVE API 2.0 record that vulnkeeper reads.
type wireCVE struct {
	ID             string              `json:"id"`
	VulnStatus     string              `json:"vulnStatus"`
	Published      string              `json:"published"`
	LastModified   string              `json:"lastModified"`
	Descriptions   []wireDescription   `json:"descriptions"`
	Metrics        wireMetrics         `json:"metrics"`
	Configurations []wireConfiguration `json:"configurations"`
	References     []wireReference     `json:"references"`
}

type wireReference struct {
	URL  string   `json:"url"`
	Tags []string `json:"tags"`
}

type wireDescription struct {
	Lang  string `json:"lang"`
	Value string `json:"value"`
}

type wireConfiguration struct {
	Operator string     `json:"operator"`
	Negate   bool       `json:"negate"`
	Nodes    []wireNode `json:"nodes"`
}

type wireNode struct {
	Operator string      `json:"operator"`
	Negate   bool        `json:"negate"`
	CPEMatch []wireMatch `json:"cpeMatch"`
}

type wireMatch struct {
	Vulnerable            bool   `json:"vulnerable"`
	Criteria              string `json:"criteria"`
	MatchCriteriaID       string `json:"matchCriteriaId"`
	VersionStartIncluding string `json:"versionStartIncluding"`
	VersionStartExcluding string `json:"versionStartExcluding"`
	VersionEndIncluding   string `json:"versionEndIncluding"`
	VersionEndExcluding   string `json:"versionEndExcluding"`
}

// fieldFor maps a key of a bare CVE document to the field it fills, nil for keys not read.
func (w *wireCVE) fieldFor(key string) any {
	switch key {
	case "id":
		return &w.ID
	case "vulnStatus":
		return &w.VulnStatus
	case "published":
		return &w.Published
	case "lastModified":
		return &w.LastModified
	case "descriptions":
		return &w.Descriptions
	case "metrics":
		return &w.Metrics
	case "configurations":
		return &w.Configurations
	case "references":
		return &w.References
	}
	return nil
}

var cveIDPattern = regexp.MustCompile(`^CVE-\d{4}-\d{4,}$`)

func (w *wireCVE) toCVE() (CVE, error) {
	if !cveIDPattern.MatchString(w.ID) {
		return CVE{}, appliance.Invalid("cve.id", "format", "CVE id %q is not of the form CVE-YYYY-NNNN", w.ID)
	}
	published, err := parseTimestamp("published", w.Published)
	if err != nil {
		return CVE{}, fmt.Errorf("%s: %w", w.ID, err)
	}
	modified, err := parseTimestamp("lastModified", w.LastModified)
	if err != nil {
		return CVE{}, fmt.Errorf("%s: %w", w.ID, err)
	}
	configs, err := convertConfigurations(w.Configurations)
	if err != nil {
		return CVE{}, fmt.Errorf("%s: %w", w.ID, err)
	}
	c := CVE{ID: w.ID, Description: englishDescription(w.Descriptions), Status: w.VulnStatus,
		Published: published, Modified: modified, Configurations: configs, References: fixReferences(w.References),
		Origin: OriginNVD}
	w.Metrics.best().apply(&c)
	return c, nil
}

// fixReferences keeps the references NVD tagged "Patch" or "Vendor Advisory", with those tags.
func fixReferences(ws []wireReference) []appliance.Reference {
	var out []appliance.Reference
	for _, w := range ws {
		var tags []string
		for _, t := range w.Tags {
			if t == appliance.TagPatch || t == appliance.TagVendorAdvisory {
				tags = append(tags, t)
			}
		}
		if len(tags) > 0 && w.URL != "" {
			out = append(out, appliance.Reference{URL: w.URL, Tags: tags})
		}
	}
	return out
}

func englishDescription(ds []wireDescription) string {
	for _, d := range ds {
		if strings.EqualFold(d.Lang, "en") {
			return d.Value
		}
	}
	return ""
}

// NVD writes timestamps without a zone, in UTC; RFC 3339 is accepted too.
var timestampLayouts = []string{"2006-01-02T15:04:05.999999999", time.RFC3339Nano}

func parseTimestamp(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range timestampLayouts {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, appliance.Invalid(field, "timestamp", "%q is not an NVD timestamp", s)
}

func convertConfigurations(ws []wireConfiguration) ([]Configuration, error) {
	if len(ws) == 0 {
		return nil, nil
	}
	out := make([]Configuration, len(ws))
	for i, w := range ws {
		op, err := operator(fmt.Sprintf("configurations[%d].operator", i), w.Operator)
		if err != nil {
			return nil, err
		}
		nodes, err := convertNodes(i, w.Nodes)
		if err != nil {
			return nil, err
		}
		out[i] = Configuration{Operator: op, Negate: w.Negate, Nodes: nodes}
	}
	return out, nil
}

func convertNodes(config int, ws []wireNode) ([]Node, error) {
	out := make([]Node, len(ws))
	for i, w := range ws {
		where := fmt.Sprintf("configurations[%d].nodes[%d]", config, i)
		op, err := operator(where+".operator", w.Operator)
		if err != nil {
			return nil, err
		}
		matches, err := convertMatches(where, w.CPEMatch)
		if err != nil {
			return nil, err
		}
		out[i] = Node{Operator: op, Negate: w.Negate, Matches: matches}
	}
	return out, nil
}

func convertMatches(where string, ws []wireMatch) ([]Match, error) {
	out := make([]Match, len(ws))
	for i, w := range ws {
		if !strings.HasPrefix(w.Criteria, "cpe:2.3:") {
			return nil, appliance.Invalid(fmt.Sprintf("%s.cpeMatch[%d].criteria", where, i), "cpe23",
				"criteria %q is not a CPE 2.3 formatted string", w.Criteria)
		}
		out[i] = Match(w)
	}
	return out, nil
}

// operator defaults an absent operator to OR, as NVD does for single-node configurations.
func operator(field, op string) (string, error) {
	switch strings.ToUpper(op) {
	case "", OperatorOR:
		return OperatorOR, nil
	case OperatorAND:
		return OperatorAND, nil
	}
	return "", appliance.Invalid(field, "oneof", "operator %q is neither AND nor OR", op)
}

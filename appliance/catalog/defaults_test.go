package catalog

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
)

// rawTriples reads the part, vendor and product columns verbatim (still escaped), header excluded.
func rawTriples(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r *bufio.Scanner
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = bufio.NewScanner(zr)
	} else {
		r = bufio.NewScanner(f)
	}
	var triples []string
	for r.Scan() {
		cols := strings.SplitN(r.Text(), "\t", 4)
		if len(cols) >= 3 && cols[0] != "part" {
			triples = append(triples, strings.Join(cols[:3], "\t"))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return triples
}

// Every starter identity is spelled exactly as in NVD's data, byte for byte.
func TestStarterCatalogSpelledAsNVD(t *testing.T) {
	known := map[string]bool{}
	for _, tr := range rawTriples(t, vendorProductTSV) {
		known[tr] = true
	}
	mine := rawTriples(t, starterCatalog)
	for _, tr := range mine {
		if !known[tr] {
			t.Errorf("%q is not in vendor_product.tsv.gz", tr)
		}
	}
	ids := parseAll(t, starterCatalog)
	if len(ids) != len(mine) || len(ids) < 300 || len(ids) > 500 {
		t.Errorf("%d identities from %d lines, want one per line and 300-500 lines", len(ids), len(mine))
	}
	for _, id := range ids {
		if id.Title == "" {
			t.Errorf("%v has no title", keyOf(id))
		}
	}
}

func TestStarterCatalogHasAliases(t *testing.T) {
	m := byKey(parseAll(t, starterCatalog))
	for _, k := range []identityKey{
		{"a", "haxx", "curl"}, {"a", "curl", "curl"},
		{"a", "git-scm", "git"}, {"a", "git", "git"},
		{"a", "nginx", "nginx"}, {"a", "f5", "nginx"},
		{"a", "notepad-plus-plus", "notepad++"}, {"a", "nodejs", "node.js"},
		{"o", "microsoft", "windows"}, {"o", "canonical", "ubuntu_linux"}, {"o", "apple", "macos"},
	} {
		if _, ok := m[k]; !ok {
			t.Errorf("starter catalogue lacks %v", k)
		}
	}
}

// Decoding shapes of the NVD CVE API 2.0 envelope, as far as the checks below need them.
type feedDoc struct {
	Format          string `json:"format"`
	Version         string `json:"version"`
	TotalResults    int    `json:"totalResults"`
	Vulnerabilities []struct {
		CVE feedCVE `json:"cve"`
	} `json:"vulnerabilities"`
}

type feedCVE struct {
	ID           string `json:"id"`
	Published    string `json:"published"`
	Descriptions []struct {
		Lang  string `json:"lang"`
		Value string `json:"value"`
	} `json:"descriptions"`
	Metrics struct {
		V31 []struct {
			Data struct {
				Version  string  `json:"version"`
				Vector   string  `json:"vectorString"`
				Score    float64 `json:"baseScore"`
				Severity string  `json:"baseSeverity"`
			} `json:"cvssData"`
		} `json:"cvssMetricV31"`
	} `json:"metrics"`
	Configurations []struct {
		Operator string     `json:"operator"`
		Nodes    []feedNode `json:"nodes"`
	} `json:"configurations"`
}

type feedNode struct {
	Operator string `json:"operator"`
	Negate   bool   `json:"negate"`
	CPEMatch []struct {
		Vulnerable bool   `json:"vulnerable"`
		Criteria   string `json:"criteria"`
		StartIncl  string `json:"versionStartIncluding"`
		StartExcl  string `json:"versionStartExcluding"`
		EndIncl    string `json:"versionEndIncluding"`
		EndExcl    string `json:"versionEndExcluding"`
	} `json:"cpeMatch"`
}

func loadDemoFeed(t *testing.T) feedDoc {
	t.Helper()
	var doc feedDoc
	if err := json.Unmarshal(readFile(t, demoFeed), &doc); err != nil {
		t.Fatalf("demo feed: %v", err)
	}
	if doc.Format != "NVD_CVE" || doc.Version != "2.0" || doc.TotalResults != len(doc.Vulnerabilities) {
		t.Fatalf("envelope format=%q version=%q totalResults=%d for %d records",
			doc.Format, doc.Version, doc.TotalResults, len(doc.Vulnerabilities))
	}
	if n := len(doc.Vulnerabilities); n < 25 || n > 40 {
		t.Errorf("%d CVEs, want 25-40", n)
	}
	return doc
}

var cveID = regexp.MustCompile(`^CVE-\d{4}-\d{4,}$`)

func TestDemoFeedRecords(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range loadDemoFeed(t).Vulnerabilities {
		c := v.CVE
		if !cveID.MatchString(c.ID) || seen[c.ID] {
			t.Errorf("bad or repeated id %q", c.ID)
		}
		seen[c.ID] = true
		if len(c.Descriptions) == 0 || c.Descriptions[0].Lang != "en" || len(c.Descriptions[0].Value) < 40 {
			t.Errorf("%s: want an English description", c.ID)
		}
		checkMetrics(t, c)
	}
}

func checkMetrics(t *testing.T, c feedCVE) {
	t.Helper()
	if len(c.Metrics.V31) != 1 {
		t.Fatalf("%s: %d CVSS v3.1 metrics, want 1", c.ID, len(c.Metrics.V31))
	}
	d := c.Metrics.V31[0].Data
	if d.Version != "3.1" || !strings.HasPrefix(d.Vector, "CVSS:3.1/AV:") || d.Severity != severityOf(d.Score) {
		t.Errorf("%s: cvssData %+v is inconsistent", c.ID, d)
	}
}

func severityOf(score float64) string {
	switch {
	case score >= 9:
		return "CRITICAL"
	case score >= 7:
		return "HIGH"
	case score >= 4:
		return "MEDIUM"
	case score > 0:
		return "LOW"
	}
	return "NONE"
}

// Every criterion names an identity of the starter catalogue, version ranges sit only on
// criteria whose version is ANY, and at least one AND configuration has a platform node.
func TestDemoFeedCriteriaInStarterCatalog(t *testing.T) {
	catalogue := byKey(parseAll(t, starterCatalog))
	platformANDs := 0
	for _, v := range loadDemoFeed(t).Vulnerabilities {
		for _, cfg := range v.CVE.Configurations {
			if cfg.Operator == "AND" && hasPlatformNode(cfg.Nodes) {
				platformANDs++
			}
			for _, node := range cfg.Nodes {
				checkNode(t, v.CVE.ID, node, catalogue)
			}
		}
	}
	if platformANDs == 0 {
		t.Error("no AND configuration with a vulnerable:false platform node")
	}
}

func checkNode(t *testing.T, id string, node feedNode, catalogue map[identityKey]appliance.CatalogEntry) {
	t.Helper()
	if node.Operator != "OR" && node.Operator != "AND" {
		t.Errorf("%s: node operator %q", id, node.Operator)
	}
	for _, m := range node.CPEMatch {
		name, err := cpe.Parse(m.Criteria)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if _, ok := catalogue[identityKey{name.Part, name.Vendor, name.Product}]; !ok {
			t.Errorf("%s: %s:%s:%s is not in the starter catalogue", id, name.Part, name.Vendor, name.Product)
		}
		ranged := m.StartIncl+m.StartExcl+m.EndIncl+m.EndExcl != ""
		if ranged && name.Version != cpe.Any {
			t.Errorf("%s: range on a criterion with version %q", id, name.Version)
		}
	}
}

func hasPlatformNode(nodes []feedNode) bool {
	for _, n := range nodes {
		for _, m := range n.CPEMatch {
			if !m.Vulnerable {
				return true
			}
		}
	}
	return false
}

func TestDemoKEVNamesFeedCVEs(t *testing.T) {
	var kev struct {
		CatalogVersion  string `json:"catalogVersion"`
		Count           int    `json:"count"`
		Vulnerabilities []struct {
			CVEID     string   `json:"cveID"`
			Vendor    string   `json:"vendorProject"`
			Product   string   `json:"product"`
			DateAdded string   `json:"dateAdded"`
			DueDate   string   `json:"dueDate"`
			CWEs      []string `json:"cwes"`
		} `json:"vulnerabilities"`
	}
	if err := json.Unmarshal(readFile(t, demoKEV), &kev); err != nil {
		t.Fatalf("kev: %v", err)
	}
	inFeed := map[string]bool{}
	for _, v := range loadDemoFeed(t).Vulnerabilities {
		inFeed[v.CVE.ID] = true
	}
	if kev.CatalogVersion == "" || kev.Count != len(kev.Vulnerabilities) || kev.Count < 5 {
		t.Errorf("catalogVersion %q, count %d for %d entries", kev.CatalogVersion, kev.Count, len(kev.Vulnerabilities))
	}
	for _, e := range kev.Vulnerabilities {
		if !inFeed[e.CVEID] || e.Vendor == "" || e.Product == "" || e.DateAdded == "" || e.DueDate < e.DateAdded {
			t.Errorf("KEV entry %+v: not in the feed or incomplete", e)
		}
	}
}

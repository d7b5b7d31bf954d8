package matcher

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	"github.com/vulnkeeper/vulnkeeper/appliance/nvd"
)

const (
	dataDir     = "../../../shared/data"
	fixturesDir = "../../../shared/conformance/fixtures"
)

// Builders of hand-written configurations.

func vulnerable(criteria string) nvd.Match {
	return nvd.Match{Vulnerable: true, Criteria: criteria, MatchCriteriaID: "id:" + criteria}
}

func platformOnly(criteria string) nvd.Match {
	return nvd.Match{Criteria: criteria, MatchCriteriaID: "id:" + criteria}
}

// ranged sets the four bounds of a match: start including, start excluding, end including, end excluding.
func ranged(m nvd.Match, si, se, ei, ee string) nvd.Match {
	m.VersionStartIncluding, m.VersionStartExcluding = si, se
	m.VersionEndIncluding, m.VersionEndExcluding = ei, ee
	m.MatchCriteriaID += ":" + si + ":" + se + ":" + ei + ":" + ee
	return m
}

func anyOf(matches ...nvd.Match) nvd.Node { return nvd.Node{Operator: "OR", Matches: matches} }

func allOf(matches ...nvd.Match) nvd.Node { return nvd.Node{Operator: "AND", Matches: matches} }

func negated(n nvd.Node) nvd.Node {
	n.Negate = true
	return n
}

func orConfig(nodes ...nvd.Node) nvd.Configuration {
	return nvd.Configuration{Operator: "OR", Nodes: nodes}
}

func andConfig(nodes ...nvd.Node) nvd.Configuration {
	return nvd.Configuration{Operator: "AND", Nodes: nodes}
}

func product(vendor, name, v string) Query {
	return Query{Aliases: []appliance.Identity{{Vendor: vendor, Product: name}}, Version: v}
}

// loadIndex builds an index from real feed or fixture files; missing files fail the test.
func loadIndex(t testing.TB, paths ...string) *Index {
	t.Helper()
	b := NewBuilder()
	h := nvd.HandlerFuncs{OnCVE: func(_ context.Context, c nvd.CVE) error {
		b.Add(c.ID, c.Configurations)
		return nil
	}}
	for _, path := range paths {
		if _, err := nvd.ImportFile(context.Background(), path, h); err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
	}
	return b.Build()
}

func allFeeds(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dataDir, "nvd", "nvdcve-2.0-*.json.gz"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no NVD 2.0 feeds under %s (err %v)", dataDir, err)
	}
	return paths
}

func cveIDs(findings []Finding) []string {
	ids := make([]string, len(findings))
	for i, f := range findings {
		ids[i] = f.CVEID
	}
	return ids
}

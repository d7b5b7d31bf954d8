package nvd

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// Every shared CVE JSON 5 record (cvelistV5 and vulnrichment layouts) imports as one CVE of
// origin cve5 named like its file.
func TestCVE5RecordsImport(t *testing.T) {
	n := 0
	err := filepath.WalkDir(filepath.Join(dataDir, "cve5"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		c, stats := importPath(t, path)
		if stats.CVEs != 1 || c.cves[0].ID != strings.TrimSuffix(d.Name(), ".json") || c.cves[0].Origin != OriginCVE5 {
			t.Errorf("%s: %d records, %+v", path, stats.CVEs, c.cves)
		}
		n++
		return nil
	})
	if err != nil || n < 100 {
		t.Fatalf("walked %d records: %v", n, err)
	}
}

// A record NVD has not enriched gets configurations from the CNA's affected data (its vendor
// and product as CPE names spell them) and CISA ADP's score; one CISA ADP enriched with CPEs
// is named by those CPEs only.
func TestCVE5AffectedDataAndADP(t *testing.T) {
	path := filepath.Join(dataDir, "cve5", "cvelistV5", "cves", "2026", "27xxx", "CVE-2026-27138.json")
	raw := storetest.JSONFile(t, path)
	got, _ := importPath(t, path)
	c := got.cves[0]
	affected := storetest.JSONAt(raw, "containers", "cna", "affected", 0)
	version := storetest.JSONAt(affected, "versions", 0)
	wantCriteria := "cpe:2.3:a:go_standard_library:crypto\\/x509:*:*:*:*:*:*:*:*"
	if len(c.Configurations) != 1 || len(c.Configurations[0].Nodes[0].Matches) != 1 {
		t.Fatalf("configurations = %+v", c.Configurations)
	}
	m := c.Configurations[0].Nodes[0].Matches[0]
	if !m.Vulnerable || m.Criteria != wantCriteria || m.VersionStartIncluding != storetest.JSONAt(version, "version") || m.VersionEndExcluding != storetest.JSONAt(version, "lessThan") {
		t.Errorf("match = %+v, want %s from %v", m, wantCriteria, version)
	}
	adpScore := storetest.JSONAt(raw, "containers", "adp", 0, "metrics", 0, "cvssV3_1", "baseScore")
	if c.ScoreVersion != "3.1" || c.Score != adpScore || c.ScoreSource != SourceCISAADP || c.Severity != "medium" {
		t.Errorf("score %s %v %s %s, want CISA ADP's %v", c.ScoreVersion, c.Score, c.ScoreSource, c.Severity, adpScore)
	}

	path = filepath.Join(dataDir, "cve5", "vulnrichment", "2015", "10xxx", "CVE-2015-10123.json")
	raw = storetest.JSONFile(t, path)
	got, _ = importPath(t, path)
	c = got.cves[0]
	var adp any
	for i := 0; storetest.JSONAt(raw, "containers", "adp", i) != nil; i++ {
		if storetest.JSONAt(raw, "containers", "adp", i, "providerMetadata", "shortName") == "CISA-ADP" {
			adp = storetest.JSONAt(raw, "containers", "adp", i)
		}
	}
	var wantCPEs []string
	for i := 0; storetest.JSONAt(adp, "affected", i) != nil; i++ {
		wantCPEs = append(wantCPEs, storetest.JSONAt(adp, "affected", i, "cpes", 0).(string))
	}
	ms := c.Configurations[0].Nodes[0].Matches
	if len(wantCPEs) == 0 || len(ms) != len(wantCPEs) {
		t.Fatalf("%d matches for %d CISA ADP CPEs: %+v", len(ms), len(wantCPEs), ms)
	}
	for i, m := range ms {
		if m.Criteria != wantCPEs[i] || m.VersionEndIncluding != storetest.JSONAt(adp, "affected", i, "versions", 0, "lessThanOrEqual") {
			t.Errorf("match %d = %+v, want %s", i, m, wantCPEs[i])
		}
	}
	cna := storetest.JSONAt(raw, "containers", "cna")
	if c.ScoreSource != storetest.JSONAt(cna, "providerMetadata", "shortName") || c.Score != storetest.JSONAt(cna, "metrics", 0, "cvssV3_1", "baseScore") {
		t.Errorf("score %v by %q, want the CNA's", c.Score, c.ScoreSource)
	}
}

package nvd

import (
	"bytes"
	"compress/gzip"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Expected counts from the data README: records and records with configurations per feed.
func TestImportRealFeedsCountsRecords(t *testing.T) {
	tests := []struct {
		file              string
		records, withConf int
	}{
		{"nvdcve-2.0-2002.json.gz", 6770, 6546},
		{"nvdcve-2.0-2003.json.gz", 1555, 1502},
		{"nvdcve-2.0-2004.json.gz", 2707, 2642},
		{"nvdcve-2.0-2005.json.gz", 4769, 4627},
		{"nvdcve-2.0-2006.json.gz", 7143, 6993},
		{"nvdcve-2.0-2007.json.gz", 6580, 6458},
		{"nvdcve-2.0-2008.json.gz", 7177, 7004},
		{"nvdcve-2.0-2011.json.gz", 4897, 4618},
		{"nvdcve-2.0-2015.json.gz", 8769, 8094},
		{"nvdcve-2.0-2026.json.gz", 7346, 4388},
		{"nvdcve-2.0-modified.json.gz", 2286, 1169},
		{"nvdcve-2.0-recent.json.gz", 1447, 621},
	}
	if got := len(nvdFeeds(t)); got != len(tests) {
		t.Fatalf("found %d NVD 2.0 feeds, the table knows %d", got, len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			records, withConf := 0, 0
			h := HandlerFuncs{OnCVE: func(_ context.Context, c CVE) error {
				records++
				if len(c.Configurations) > 0 {
					withConf++
				}
				return nil
			}}
			stats, err := ImportFile(context.Background(), filepath.Join(dataDir, "nvd", tt.file), h)
			if err != nil {
				t.Fatal(err)
			}
			if records != tt.records || withConf != tt.withConf || stats != (Stats{CVEs: tt.records, TotalResults: tt.records}) {
				t.Errorf("records %d with configurations %d stats %+v; want %d, %d", records, withConf, stats, tt.records, tt.withConf)
			}
		})
	}
}

func TestImportRealRecords(t *testing.T) {
	feed2026, _ := importPath(t, filepath.Join(dataDir, "nvd", "nvdcve-2.0-2026.json.gz"))
	feed2002, _ := importPath(t, filepath.Join(dataDir, "nvd", "nvdcve-2.0-2002.json.gz"))
	mini, _ := importPath(t, filepath.Join(fixturesDir, "nvd-mini.json"))
	tests := []struct {
		name, id     string
		from         *collector
		version      string
		score        float64
		severity     string
		vectorPrefix string
		status       string
	}{
		{"v4.0 outranks a primary v3.1", "CVE-2026-0544", feed2026, "4.0", 6.9, "medium", "CVSS:4.0/AV:N/AC:L/AT:N", "Analyzed"},
		{"primary preferred within v3.1", "CVE-2026-21635", feed2026, "3.1", 6.5, "medium", "CVSS:3.1/AV:A/AC:L/", "Analyzed"},
		{"secondary v3.0 when alone", "CVE-2026-21642", feed2026, "3.0", 6.1, "medium", "CVSS:3.0/AV:N/AC:L/PR:N/UI:R", "Analyzed"},
		{"v2 severity sits outside cvssData", "CVE-1999-0095", feed2002, "2.0", 10.0, "high", "AV:N/AC:L/Au:N/C:C/I:C/A:C", ""},
		{"rejected record has no metric", "CVE-2026-21644", feed2026, "", 0, "", "", "Rejected"},
		{"fixture v3.1", "CVE-2021-3711", mini, "3.1", 9.8, "critical", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "Analyzed"},
	}
	t.Run("fields", func(t *testing.T) { checkRecordFields(t, feed2026, mini) })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.from.byID(t, tt.id)
			if c.ScoreVersion != tt.version || c.Score != tt.score || c.Severity != tt.severity {
				t.Errorf("got version %q score %v severity %q; want %q %v %q", c.ScoreVersion, c.Score, c.Severity, tt.version, tt.score, tt.severity)
			}
			if !strings.HasPrefix(c.Vector, tt.vectorPrefix) {
				t.Errorf("vector %q, want prefix %q", c.Vector, tt.vectorPrefix)
			}
			if tt.status != "" && c.Status != tt.status {
				t.Errorf("status %q, want %q", c.Status, tt.status)
			}
		})
	}
}

func checkRecordFields(t *testing.T, feed, mini *collector) {
	t.Helper()
	c := feed.byID(t, "CVE-2026-0544")
	wantPublished := time.Date(2026, 1, 1, 9, 15, 51, 113e6, time.UTC)
	if !c.Published.Equal(wantPublished) || c.Modified.Before(c.Published) {
		t.Errorf("published %v modified %v; want published %v", c.Published, c.Modified, wantPublished)
	}
	if !strings.HasPrefix(c.Description, "A security flaw has been discovered in itsourcecode") {
		t.Errorf("description %q is not the English one", c.Description)
	}
	if !feed.byID(t, "CVE-2026-21644").Rejected() {
		t.Error("CVE-2026-21644 should be rejected")
	}

	got := mini.byID(t, "CVE-2023-40031").Configurations
	want := []Configuration{{Operator: "OR", Nodes: []Node{{Operator: "OR", Matches: []Match{{
		Vulnerable: true, Criteria: `cpe:2.3:a:notepad-plus-plus:notepad\+\+:*:*:*:*:*:*:*:*`,
		MatchCriteriaID: "00000000-0000-0000-0000-000000000000", VersionEndIncluding: "8.5.6"}}}}}}
	if !equalConfigurations(got, want) {
		t.Errorf("configurations %+v, want %+v", got, want)
	}
}

func TestImportAcceptsDocumentShapes(t *testing.T) {
	record := `{"id":"CVE-2021-0001","vulnStatus":"Analyzed","published":"2021-01-02T03:04:05.678",` +
		`"configurations":[{"nodes":[{"operator":"OR","negate":false,"cpeMatch":[` +
		`{"vulnerable":true,"criteria":"cpe:2.3:a:x:y:*:*:*:*:*:*:*:*","versionEndExcluding":"2.0"}]}]}]}`
	mini := readFile(t, filepath.Join(fixturesDir, "nvd-mini.json"))
	kev := readFile(t, filepath.Join(fixturesDir, "kev-mini.json"))
	tests := []struct {
		name string
		doc  []byte
		want Stats
	}{
		{"feed envelope", mini, Stats{CVEs: 7, TotalResults: 7}},
		{"gzip feed", gzipped(t, mini), Stats{CVEs: 7, TotalResults: 7}},
		{"single cve wrapper", []byte(`{"cve":` + record + `}`), Stats{CVEs: 1}},
		{"bare cve", []byte(record), Stats{CVEs: 1}},
		{"records before format key", []byte(`{"vulnerabilities":[{"cve":` + record + `}],"format":"NVD_CVE"}`), Stats{CVEs: 1}},
		{"empty feed", []byte(`{"format":"NVD_CVE","vulnerabilities":[]}`), Stats{}},
		{"kev catalogue", kev, Stats{KEV: 2}},
		{"gzip kev", gzipped(t, kev), Stats{KEV: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Import(context.Background(), bytes.NewReader(tt.doc), &collector{})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("stats %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestImportKEV(t *testing.T) {
	tests := []struct {
		file  string
		count int
	}{
		{"known_exploited_vulnerabilities.json", 1404},
		{"known_exploited_vulnerabilities.2026-03-13.json", 1542},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, stats := importPath(t, filepath.Join(dataDir, "kev", tt.file))
			if stats != (Stats{KEV: tt.count}) || len(c.kev) != tt.count {
				t.Fatalf("stats %+v (%d entries), want %d", stats, len(c.kev), tt.count)
			}
			for _, e := range c.kev {
				if e.DateAdded.IsZero() || e.VendorProject == "" {
					t.Fatalf("entry %+v lacks a date or vendor", e)
				}
			}
		})
	}
	mini, _ := importPath(t, filepath.Join(fixturesDir, "kev-mini.json"))
	want := KEVEntry{CVEID: "CVE-2021-44228", VendorProject: "Apache", Product: "Log4j2",
		Name: "Apache Log4j2 Remote Code Execution Vulnerability", DateAdded: time.Date(2021, 12, 10, 0, 0, 0, 0, time.UTC),
		DueDate: time.Date(2021, 12, 24, 0, 0, 0, 0, time.UTC), Ransomware: "Known"}
	if mini.kev[0] != want {
		t.Errorf("first KEV entry %+v, want %+v", mini.kev[0], want)
	}
}

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

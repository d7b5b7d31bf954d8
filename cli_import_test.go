package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

const importFixtures = "../shared/conformance/fixtures"

// wantLines checks that stdout is exactly one line per pattern, in order.
func wantLines(patterns ...string) func(t *testing.T, r cliResult) {
	return func(t *testing.T, r cliResult) {
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(lines) != len(patterns) {
			t.Fatalf("stdout %q has %d lines, want %d", r.stdout, len(lines), len(patterns))
		}
		for i, p := range patterns {
			if !regexp.MustCompile("^" + p + "$").MatchString(lines[i]) {
				t.Errorf("line %d = %q, want it to match %q", i, lines[i], p)
			}
		}
	}
}

func wantErrorMentioning(parts ...string) func(t *testing.T, r cliResult) {
	return func(t *testing.T, r cliResult) {
		for _, p := range parts {
			if !strings.HasPrefix(r.stderr, "error: ") || !strings.Contains(r.stderr, p) {
				t.Errorf("stderr = %q, want an error mentioning %q", r.stderr, p)
			}
		}
		if r.stdout != "" {
			t.Errorf("stdout = %q, want nothing", r.stdout)
		}
	}
}

func TestCLIImports(t *testing.T) {
	dir := newInstallation(t)
	catalog := filepath.Join(importFixtures, "catalog-mini.tsv")
	nvdMini := filepath.Join(importFixtures, "nvd-mini.json")
	kevMini := filepath.Join(importFixtures, "kev-mini.json")
	missing := filepath.Join(t.TempDir(), "missing.json")
	cvelist := filepath.Join("..", "shared", "data", "cve5", "cvelistV5")
	cve5Record := filepath.Join("..", "shared", "data", "cve5", "vulnrichment", "2015", "10xxx", "CVE-2015-10123.json")
	notJSON := filepath.Join(importFixtures, "catalog-mini.tsv")
	cpeIndex := filepath.Join("..", "shared", "data", "cpe", "syft-cpe-index.json.gz")
	took := `in [0-9.]+[µnm]?s`
	steps := []cliStep{
		{"catalog import", "", []string{"catalog", "import", catalog}, 0,
			wantLines(regexp.QuoteMeta(catalog) + ": 29 identities " + took)},
		{"catalog import of Syft's package-to-CPE index", "", []string{"catalog", "import", cpeIndex}, 0,
			wantLines(regexp.QuoteMeta(cpeIndex) + ": 8035 identities " + took)},
		{"feed import", "", []string{"feed", "import", nvdMini, kevMini}, 0, wantLines(
			regexp.QuoteMeta(nvdMini)+`: 7 CVEs, 0 rejected removed, 0 KEV entries, [1-9][0-9]* catalogue identities `+took+` \([0-9]+ records/s\)`,
			regexp.QuoteMeta(kevMini)+`: 0 CVEs, 0 rejected removed, 2 KEV entries, 0 catalogue identities `+took+` \([0-9]+ records/s\)`)},
		{"feed import of CVE JSON 5 records (a cvelistV5 directory, one record)", "", []string{"feed", "import", cvelist, cve5Record}, 0, wantLines(
			regexp.QuoteMeta(cvelist)+`: 18 CVEs, 0 rejected removed, 0 KEV entries, [1-9][0-9]* catalogue identities `+took+` \([0-9]+ records/s\)`,
			regexp.QuoteMeta(cve5Record)+`: 1 CVEs, 0 rejected removed, 0 KEV entries, [0-9]+ catalogue identities `+took+` \([0-9]+ records/s\)`)},
		{"feed import of a missing file", "", []string{"feed", "import", missing}, 1, wantErrorMentioning(missing, "no such file")},
		{"catalog import of a missing file", "", []string{"catalog", "import", missing}, 1, wantErrorMentioning(missing, "no such file")},
		{"feed import of a TSV", "", []string{"feed", "import", notJSON}, 1, wantErrorMentioning(notJSON)},
		{"feed import without files", "", []string{"feed", "import"}, 1, wantErrorMentioning("requires at least 1 arg")},
	}
	runSteps(t, dir, steps)
	assertImported(t, filepath.Join(dir, "vulnkeeper.db"))
}

// assertImported opens the CLI's database: the CVEs and the catalogue are there.
func assertImported(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, path, sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if ok, err := st.CVEExists(ctx, "CVE-2021-3711"); err != nil || !ok {
		t.Errorf("CVE-2021-3711 stored = %v, %v; want true", ok, err)
	}
	n := 0
	if err := st.EachCatalogEntry(ctx, func(appliance.CatalogEntry) error { n++; return nil }); err != nil || n < 29 {
		t.Errorf("catalogue holds %d identities (%v), want at least the 29 imported", n, err)
	}
}

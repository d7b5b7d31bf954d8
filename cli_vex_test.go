package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// vendorVEX is a vendor's OpenVEX 0.2.0 document written for this test: one not_affected
// statement on a version, one on every version of a package, and an affected one.
const vendorVEX = `{
  "@context": "https://openvex.dev/ns/v0.2.0",
  "@id": "https://vendor.example/vex/2026-001",
  "author": "Example Vendor PSIRT",
  "timestamp": "2026-01-10T08:00:00Z",
  "version": 1,
  "statements": [
    {"vulnerability": {"name": "CVE-2022-0778"},
     "products": [{"@id": "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*"}],
     "status": "not_affected", "justification": "vulnerable_code_not_in_execute_path",
     "impact_statement": "certificates are never parsed"},
    {"vulnerability": {"name": "GHSA-jfh8-c2jp-5v3q", "aliases": ["CVE-2021-44228"]},
     "products": [{"@id": "pkg:maven/org.apache.logging.log4j/log4j-core"}],
     "status": "not_affected", "justification": "vulnerable_code_not_present"},
    {"vulnerability": {"name": "CVE-2023-4863"},
     "products": [{"@id": "pkg:generic/chrome@116.0.5845.96"}],
     "status": "affected", "action_statement": "update"}
  ]
}`

func TestCLIVEXImport(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(t.TempDir(), "vendor.vex.json")
	if err := os.WriteFile(doc, []byte(vendorVEX), 0o600); err != nil {
		t.Fatal(err)
	}
	runSteps(t, dir, []cliStep{
		{"org create", "", []string{"org", "create", "acme"}, 0, nil},
		{"unknown org", "", []string{"vex", "import", doc, "--org", "initech"}, 1,
			wantStderr("error: organization \"initech\" does not exist\n")},
		{"import", "", []string{"vex", "import", doc, "--org", "acme"}, 0,
			wantStdout(doc + ": 2 rules created, 0 already in force, 1 statements skipped (not not_affected with a justification)\n")},
		{"again", "", []string{"vex", "import", doc, "--org", "acme"}, 0,
			wantStdout(doc + ": 0 rules created, 2 already in force, 1 statements skipped (not not_affected with a justification)\n")},
	})
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "vulnkeeper.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rules, err := st.TriageRules(ctx, 1)
	if err != nil || len(rules) != 2 {
		t.Fatalf("rules %+v, %v", rules, err)
	}
	exact, every := rules[0], rules[1]
	if exact.CVEID != "CVE-2022-0778" || exact.Scope != "version_range" || exact.Product != "cpe:2.3:a:openssl:openssl" ||
		exact.VersionStart != "1.1.1k" || exact.VersionEnd != "1.1.1k" || exact.Author != "Example Vendor PSIRT" ||
		exact.Note != "certificates are never parsed" || exact.Justification != "vulnerable_code_not_in_execute_path" {
		t.Errorf("exact-version rule %+v", exact)
	}
	if every.CVEID != "CVE-2021-44228" || every.Scope != "product" || every.Product != "pkg:maven/org.apache.logging.log4j/log4j-core" ||
		every.CreatedBy != 0 {
		t.Errorf("package rule %+v", every)
	}
}

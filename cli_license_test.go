package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/kb"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// kbRows lists an installation's KB mappings as "source vendor/product→cpe_vendor:cpe_product".
func kbRows(t *testing.T, dataDir string) []string {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(dataDir, "vulnkeeper.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatalf("open %s: %v", dataDir, err)
	}
	defer st.Close()
	var out []string
	err = st.EachKBMapping(context.Background(), func(m appliance.KBMapping) error {
		out = append(out, string(m.Source)+" "+m.VendorPattern+"/"+m.ProductPattern+"→"+m.CPEVendor+":"+m.CPEProduct)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// seedCommunity stores m as a published community mapping in the licence server's data dir.
func seedCommunity(t *testing.T, dataDir string, m kb.Mapping) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(dataDir, "vulnkeeper.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UTC()
	err = st.InTx(ctx, func(tx appliance.Tx) error {
		_, err := tx.UpsertKBMapping(ctx, appliance.KBMapping{Source: "community", VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern,
			CPEVendor: m.CPEVendor, CPEProduct: m.CPEProduct, TupleKey: kb.TupleKey(m), Confidence: 0.9, ContributionCount: 3,
			Published: true, CreatedAt: now, UpdatedAt: now})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func wantStdoutMatch(pattern string) func(t *testing.T, r cliResult) {
	re := regexp.MustCompile(pattern)
	return func(t *testing.T, r cliResult) {
		if !re.MatchString(r.stdout) {
			t.Errorf("stdout = %q, want it to match %s", r.stdout, pattern)
		}
	}
}

func wantStderrHas(part string) func(t *testing.T, r cliResult) {
	return func(t *testing.T, r cliResult) {
		if !strings.Contains(r.stderr, part) {
			t.Errorf("stderr = %q, want it to mention %q", r.stderr, part)
		}
	}
}

// runSteps runs a CLI session's steps in order on one data directory. They are steps of one
// test, not subtests: each depends on the ones before, so none may run alone.
func runSteps(t *testing.T, dir string, steps []cliStep) {
	t.Helper()
	for _, s := range steps {
		r := runCLI(t, dir, s.stdin, s.args...)
		if r.code != s.wantCode {
			t.Fatalf("step %q: exit %d, want %d; stdout %q stderr %q", s.name, r.code, s.wantCode, r.stdout, r.stderr)
		}
		if s.check != nil {
			s.check(t, r)
		}
	}
}

func TestCLILicenceServerAndSnapshot(t *testing.T) {
	server, install := t.TempDir(), newInstallation(t)
	snapshot := filepath.Join(t.TempDir(), "kb.snap")
	var publicKey string
	curated := []string{"--vendor-pattern", "Apache Software Foundation", "--product-pattern", "Apache Log4j", "--cpe-vendor", "apache", "--cpe-product", "log4j"}
	other := []string{"--vendor-pattern", "Igor Pavlov", "--product-pattern", "7-Zip", "--cpe-vendor", "7-zip", "--cpe-product", "7-zip"}
	community := []string{"--vendor-pattern", "Google LLC", "--product-pattern", "Google Chrome", "--cpe-vendor", "google", "--cpe-product", "chrome"}
	seedCommunity(t, server, kb.Mapping{VendorPattern: "Google LLC", ProductPattern: "Google Chrome", CPEVendor: "google", CPEProduct: "chrome"})
	runSteps(t, server, []cliStep{
		{"create-code", "", []string{"license", "create-code", "--edition", "professional", "--valid-for", "365d", "--customer", "Example"}, 0, func(t *testing.T, r cliResult) {
			if code := lastLine(r.stdout); !regexp.MustCompile(`^VK-[A-Z0-9-]{25,}$`).MatchString(code) {
				t.Errorf("last line %q is not an activation code", code)
			}
		}},
		{"create-code with a bad edition", "", []string{"license", "create-code", "--edition", "gold", "--valid-for", "1h"}, 1, wantStderrHas("edition")},
		{"create-code with a bad term", "", []string{"license", "create-code", "--edition", "standard", "--valid-for", "soon"}, 1, wantStderrHas("--valid-for")},
		{"public-key", "", []string{"license", "public-key"}, 0, func(t *testing.T, r cliResult) {
			publicKey = strings.TrimSpace(r.stdout)
			if len(publicKey) < 40 || strings.Contains(publicKey, "\n") {
				t.Errorf("public key = %q", r.stdout)
			}
			if info, err := os.Stat(server); err != nil || !info.IsDir() {
				t.Errorf("data dir: %v", err)
			}
		}},
		{"public-key is stable", "", []string{"license", "public-key"}, 0, func(t *testing.T, r cliResult) {
			if strings.TrimSpace(r.stdout) != publicKey {
				t.Errorf("second public-key = %q, want %q", r.stdout, publicKey)
			}
		}},
		{"curate add", "", append([]string{"kb", "curate", "add", "--confidence", "0.95"}, curated...), 0, wantStdout("curated mapping saved\n")},
		{"curate add another", "", append([]string{"kb", "curate", "add"}, other...), 0, nil},
		{"curate add a wildcard", "", []string{"kb", "curate", "add", "--vendor-pattern", "a", "--product-pattern", "b", "--cpe-vendor", "*", "--cpe-product", "x"}, 1, wantStderrHas("cpe_vendor")},
		{"curate remove", "", append([]string{"kb", "curate", "remove"}, other...), 0, wantStdout("curated mapping withdrawn\n")},
		{"retract an unknown community mapping", "", append([]string{"kb", "retract"}, other...), 1, wantStderrHas("not found")},
		{"retract a community mapping", "", append([]string{"kb", "retract"}, community...), 0, wantStdout("community mapping retracted\n")},
		{"export", "", []string{"kb", "export", snapshot}, 0, wantStdout("3 mappings written to " + snapshot + "\n")},
		{"export refuses to overwrite", "", []string{"kb", "export", snapshot}, 1, nil},
	})
	signed, err := os.ReadFile(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(t.TempDir(), "tampered.snap")
	flipped := append([]byte(nil), signed...)
	flipped[len(flipped)-10] ^= 0x01
	if err := os.WriteFile(tampered, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	runSteps(t, install, []cliStep{
		{"status without a licence", "", []string{"license", "status"}, 0, wantStdoutMatch(`^no licence \(installation inst-[0-9a-f]+\); activate with`)},
		{"import without a key", "", []string{"kb", "import", snapshot}, 1, wantStderrHas("public key")},
		{"import a tampered file", "", []string{"kb", "import", "--public-key", publicKey, tampered}, 1, wantStderrHas("signature")},
		{"import", "", []string{"kb", "import", "--public-key", publicKey, snapshot}, 0, wantStdout(snapshot + ": 3 mappings verified and applied\n")},
	})
	// The withdrawn curated and the retracted community mappings arrive retracted and are not stored.
	if got := kbRows(t, install); len(got) != 1 || got[0] != "curated Apache Software Foundation/Apache Log4j→apache:log4j" {
		t.Errorf("installation KB after import = %v", got)
	}
}

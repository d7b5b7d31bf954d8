package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// bundleReport is one host whose findings come from NVD (flowise, homarr), the KEV and EPSS
// data joined to them, and Ubuntu's OSV advisories (libssl3).
var bundleReport = inventory.Report{Hostname: "jammy", OSName: "Ubuntu", OS: appliance.HostOS{ID: "ubuntu", VersionID: "22.04"},
	HasProducts: true, Items: []inventory.Item{
		{Product: "libssl3", Version: "3.0.2-0ubuntu1.6", Package: appliance.PackageInfo{Source: "deb"}},
		{Vendor: "flowiseai", Product: "flowise", Version: "3.0.1"},
		{Vendor: "homarr", Product: "homarr", Version: "1.50.0"},
	}}

// findingsOf starts the app on dataDir, submits bundleReport and lists every finding with the
// data it carries (CVE, basis, source, fixed version, severity, KEV, EPSS).
func findingsOf(t *testing.T, dataDir string) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, st, stop := startTestApp(t, ctx, dataDir)
	defer stop()
	org, err := st.OrganizationByName(ctx, "bundle-check")
	if errors.Is(err, appliance.ErrNotFound) {
		org, err = a.deps.Accounts.CreateOrganization(ctx, "bundle-check")
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.deps.Inventory.Submit(ctx, org.ID, bundleReport); err != nil {
		t.Fatal(err)
	}
	list, _, err := a.deps.Inventory.Products(ctx, appliance.ProductFilter{OrganizationID: org.ID, Page: 1, PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list {
		d, err := a.deps.Inventory.Product(ctx, org.ID, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range d.Vulnerabilities {
			epss := "-"
			if v.EPSS != nil {
				epss = fmt.Sprintf("%.5f@%s", v.EPSS.Score, v.EPSS.Date.Format("2006-01-02"))
			}
			out = append(out, fmt.Sprintf("%s %s %s/%s fixed=%s %s %.1f kev=%t/%s epss=%s", p.Name, v.CVEID, v.Basis, v.Source,
				v.FixedVersion, v.Severity, v.Score, v.KEV, v.KEVDue.Format("2006-01-02"), epss))
		}
	}
	slices.Sort(out)
	return out
}

func mustCLI(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	r := runCLI(t, dir, "", args...)
	if r.code != 0 {
		t.Fatalf("%s: exit %d\n%s\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// writeBundleKey configures dir to accept bundles signed by the key `feed bundle-key` prints
// on connected.
func writeBundleKey(t *testing.T, connected, dir string) string {
	t.Helper()
	key := lastLine(mustCLI(t, connected, "feed", "bundle-key").stdout)
	cfg := filepath.Join(dir, "vulnkeeper.yaml")
	if err := os.WriteFile(cfg, []byte("feeds:\n  bundle_public_key: "+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestFeedBundleAirGap: a connected installation imports NVD, KEV, EPSS and OSV data and
// writes a bundle; an air-gapped one imports it and reports the same findings for the same
// host. A delta bundle (--since) carries only the later import; replaying an older serial,
// skipping one, a bundle signed by another key and a tampered bundle are refused and change
// nothing.
func TestFeedBundleAirGap(t *testing.T) {
	connected, airgapped := newInstallation(t), newInstallation(t)
	imported := mustCLI(t, connected, "feed", "import", "../shared/data/nvd/nvdcve-2.0-recent.json.gz",
		"../shared/data/kev/known_exploited_vulnerabilities.json", "../shared/data/epss/epss_scores-2026-09-29.excerpt-head.csv",
		filepath.Join(advisoryData, "ubuntu-osv"))
	out := t.TempDir()
	full := filepath.Join(out, "full.vkb")
	r := mustCLI(t, connected, "feed", "bundle", full)
	cves := regexp.MustCompile(`: ([0-9]+) CVEs`).FindStringSubmatch(imported.stdout)
	if cves == nil || !strings.Contains(r.stdout, "bundle 1 (since 0): "+cves[1]+" CVEs, 0 removed, ") {
		t.Errorf("full bundle: %s", r.stdout)
	}
	cfg := writeBundleKey(t, connected, airgapped)
	if r := runCLI(t, airgapped, "", "feed", "import", full); r.code == 0 || !strings.Contains(r.stderr, "bundle_public_key") {
		t.Errorf("import without a configured key: exit %d, %s", r.code, r.stderr)
	}
	mustCLI(t, airgapped, "feed", "import", full, "--config", cfg)
	want := findingsOf(t, connected)
	if len(want) < 3 || !slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, "advisory/ubuntu") }) ||
		!slices.ContainsFunc(want, func(s string) bool { return strings.HasPrefix(s, "flowise CVE-") }) {
		t.Fatalf("the connected installation's findings do not cover NVD and OSV: %q", want)
	}
	t.Logf("%d findings, e.g. %q", len(want), want[0])
	if got := findingsOf(t, airgapped); !slices.Equal(got, want) {
		t.Fatalf("air-gapped findings differ:\n got %q\nwant %q", got, want)
	}

	// A later EPSS file and a CVE NVD rejected since travel in a delta bundle, which carries
	// only them.
	const rejected = "CVE-2026-30820"
	if !slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, " "+rejected+" ") }) {
		t.Fatalf("%s is not among the findings", rejected)
	}
	mustCLI(t, connected, "feed", "import", "../shared/data/epss/epss_scores-2026-10-07.excerpt-head.csv",
		rejectedFeed(t, "../shared/data/nvd/nvdcve-2.0-recent.json.gz", rejected))
	delta := filepath.Join(out, "delta.vkb")
	r = mustCLI(t, connected, "feed", "bundle", delta, "--since", "1")
	if !strings.Contains(r.stdout, "bundle 2 (since 1): 0 CVEs, 1 removed, 0 KEV entries, 535 EPSS scores, 0 advisory entries, 0 catalogue identities") {
		t.Errorf("delta bundle: %s", r.stdout)
	}
	refused := func(name, file, why string) {
		t.Helper()
		before := epssDate(t, airgapped)
		if r := runCLI(t, airgapped, "", "feed", "import", file, "--config", cfg); r.code == 0 || !strings.Contains(r.stderr, why) {
			t.Errorf("%s: exit %d, stderr %q, want %q", name, r.code, r.stderr, why)
		}
		if after := epssDate(t, airgapped); after != before {
			t.Errorf("%s changed the EPSS data: %s -> %s", name, before, after)
		}
	}
	tampered := filepath.Join(out, "tampered.vkb")
	body, err := os.ReadFile(delta)
	if err != nil {
		t.Fatal(err)
	}
	body[len(body)-20] ^= 0x01
	if err := os.WriteFile(tampered, body, 0o600); err != nil {
		t.Fatal(err)
	}
	refused("tampered bundle", tampered, "bad signature")
	foreign := filepath.Join(out, "foreign.vkb")
	other := newInstallation(t)
	mustCLI(t, other, "feed", "import", "../shared/data/epss/epss_scores-2026-10-07.excerpt-head.csv")
	mustCLI(t, other, "feed", "bundle", foreign)
	mustCLI(t, other, "feed", "bundle", foreign, "--since", "1") // serial 2, signed by another key
	refused("bundle signed by another key", foreign, "bad signature")
	refused("older serial", full, "not newer than bundle 1")
	if before := epssDate(t, airgapped); before != "2026-09-29" {
		t.Fatalf("EPSS date before the delta: %s", before)
	}
	mustCLI(t, airgapped, "feed", "import", delta, "--config", cfg)
	if after := epssDate(t, airgapped); after != "2026-10-07" {
		t.Errorf("EPSS date after the delta: %s", after)
	}
	refused("same serial again", delta, "not newer than bundle 2")
	want = findingsOf(t, connected)
	if slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, " "+rejected+" ") }) {
		t.Errorf("%s is still a finding after NVD rejected it", rejected)
	}
	if got := findingsOf(t, airgapped); !slices.Equal(got, want) {
		t.Fatalf("air-gapped findings differ after the delta:\n got %q\nwant %q", got, want)
	}

	// A fresh installation cannot start from a delta: bundle 1 is missing.
	fresh := newInstallation(t)
	freshCfg := writeBundleKey(t, connected, fresh)
	if r := runCLI(t, fresh, "", "feed", "import", delta, "--config", freshCfg); r.code == 0 || !strings.Contains(r.stderr, "holds bundle 0") {
		t.Errorf("delta into a fresh installation: exit %d, %s", r.code, r.stderr)
	}
}

// epssDate is the latest EPSS score date the installation holds.
func epssDate(t *testing.T, dataDir string) string {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(dataDir, "vulnkeeper.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	latest := ""
	err = st.EachChangedEPSS(context.Background(), time.Time{}, func(s appliance.EPSSScore) error {
		latest = max(latest, s.Date.Format("2006-01-02"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return latest
}

// rejectedFeed writes an NVD feed holding the record id of the real feed name, marked
// Rejected as NVD publishes a withdrawn CVE.
func rejectedFeed(t *testing.T, name, id string) string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var feed map[string]any
	if err := json.NewDecoder(gz).Decode(&feed); err != nil {
		t.Fatal(err)
	}
	for _, v := range feed["vulnerabilities"].([]any) {
		cve := v.(map[string]any)["cve"].(map[string]any)
		if cve["id"] != id {
			continue
		}
		cve["vulnStatus"] = "Rejected"
		feed["vulnerabilities"], feed["resultsPerPage"], feed["totalResults"] = []any{v}, 1, 1
		out := filepath.Join(t.TempDir(), "rejected.json")
		body, err := json.Marshal(feed)
		if err == nil {
			err = os.WriteFile(out, body, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	t.Fatalf("%s is not in %s", id, name)
	return ""
}

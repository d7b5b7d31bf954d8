package web

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/advisories"
	"github.com/vulnkeeper/vulnkeeper/appliance/hostlist"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

// Real shared data, relative to this package.
const (
	sharedData  = "../../shared/data"
	advData     = sharedData + "/advisories"
	invData     = sharedData + "/inventory"
	nvd2026Feed = sharedData + "/nvd/nvdcve-2.0-2026.json.gz"
)

// distroHost is one shared host list posted with its os-release facts.
type distroHost struct {
	file, hostname string
	os             map[string]string
	items          func(t testing.TB, file string) []inventoryItem
	release        string // the product release the server should key its packages by
}

var (
	jammy = distroHost{"ubuntu-jammy-amd64.dpkg-manifest.tsv", "jammy", map[string]string{"name": "Ubuntu", "version": "22.04.4 LTS (Jammy Jellyfish)",
		"id": "ubuntu", "version_id": "22.04", "codename": "jammy", "arch": "x86_64"}, dpkgItems, "ubuntu:22.04"}
	bionic = distroHost{"ubuntu-bionic-amd64.dpkg-manifest.tsv", "bionic", map[string]string{"name": "Ubuntu", "version": "18.04.6 LTS (Bionic Beaver)",
		"id": "ubuntu", "version_id": "18.04", "codename": "bionic"}, dpkgItems, "ubuntu:18.04"}
	rocky9 = distroHost{"rocky-9.6.20250531-Base-x86_64.kiwi-packages.txt", "rocky9", map[string]string{"name": "Rocky Linux", "version": "9.6 (Blue Onyx)",
		"id": "rocky", "version_id": "9.6"}, kiwiItems, "rocky:9"}
	rocky8 = distroHost{"rocky-8.10.20240528-Base-x86_64.rpm-qa.txt", "rocky8", map[string]string{"name": "Rocky Linux", "version": "8.10 (Green Obsidian)",
		"id": "rocky", "version_id": "8.10"}, rpmQAItems, "rocky:8"}
	bookworm = distroHost{"debian-bookworm-amd64.dpkg-manifest.tsv", "bookworm", map[string]string{"name": "Debian GNU/Linux", "version": "12 (bookworm)",
		"id": "debian", "version_id": "12", "codename": "bookworm"}, dpkgItems, "debian:12"}
)

// TestDistributionHostsAgreeWithAdvisories imports the shared Ubuntu and AlmaLinux OSV records
// through the real import code into a real SQLite file, posts the Ubuntu 22.04 and 18.04 and
// Rocky 9.6 and 8.10 hosts through the real handler, and compares every package's findings
// with the set computed from expected/*.tsv: which advisories affect which package, with
// fix_state, fixed_version and pro_only. Covered packages are never unresolved.
func TestDistributionHostsAgreeWithAdvisories(t *testing.T) {
	start := time.Now()
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini))
	ctx := context.Background()
	for _, dir := range []string{advData + "/ubuntu-osv", advData + "/redhat/almalinux-osv"} {
		st, err := w.inv.Importer.ImportOSVDir(ctx, dir, os.DirFS(dir))
		if err != nil || st.Changed == 0 {
			t.Fatalf("import %s: %+v, %v", dir, st, err)
		}
		again, err := w.inv.Importer.ImportOSVDir(ctx, dir, os.DirFS(dir))
		if err != nil || again.Changed != 0 || again.Advisories != st.Advisories {
			t.Fatalf("re-import %s changed %d of %d entries (%v), want none", dir, again.Changed, again.Advisories, err)
		}
	}
	if err := w.inv.Service.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	want := expectedFindings(t)
	for _, h := range []distroHost{jammy, bionic, rocky9, rocky8} {
		postHost(t, w, h)
		got, products := hostFindings(t, w, h.release)
		scheme := advisories.SchemeDpkg
		if strings.HasPrefix(h.release, "rocky") {
			scheme = advisories.SchemeRPM
		}
		compareFindings(t, h.file, want[h.file], got, scheme)
		for _, p := range products {
			if p.Resolution != string(appliance.ResolutionPackage) {
				t.Errorf("%s: %s %s resolved by %q, want package (its release is covered)", h.file, p.Name, p.Version, p.Resolution)
			}
		}
		t.Logf("%s: %d packages, %d affected (package, advisory) pairs", h.file, len(products), len(want[h.file]))
	}
	a, err := w.Store.AssetByHostname(ctx, jammy.hostname)
	if err != nil || a.OS.ID != "ubuntu" || a.OS.VersionID != "22.04" || a.OS.Codename != "jammy" || a.OS.Arch != "x86_64" || a.OS.Inferred != "" {
		t.Errorf("jammy's os facts on the asset: %+v, %v", a.OS, err)
	}
	checkFixAvailableFilter(t, w)
	t.Logf("took %s", time.Since(start).Round(time.Millisecond))
}

// TestUncoveredReleaseFallsBackToUpstreamVersion posts the Debian 12 host, whose release the
// shared advisories do not cover, with the 2026 NVD feed imported: its packages are matched
// by NVD ranges on their upstream identity at the upstream part of the version, and every
// such finding says basis upstream_version.
func TestUncoveredReleaseFallsBackToUpstreamVersion(t *testing.T) {
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini))
	ctx := context.Background()
	for _, dir := range []string{advData + "/ubuntu-osv"} {
		if _, err := w.inv.Importer.ImportOSVDir(ctx, dir, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
	}
	importFile(t, w.inv.Importer, nvd2026Feed)
	if err := w.inv.Service.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	postHost(t, w, bookworm)
	got, _ := hostFindings(t, w, bookworm.release)
	if len(got) == 0 {
		t.Fatal("no findings on the Debian 12 host")
	}
	for _, f := range got {
		if f.Basis != "upstream_version" || f.Source != "nvd" {
			t.Errorf("%s %s: basis %q source %q, want upstream_version from nvd", f.pkg, f.CVEID, f.Basis, f.Source)
		}
	}
	// libc6 2.36-9+deb12u9 is glibc 2.36 upstream: CVE-2026-0861 (2.30–2.42) and CVE-2026-0915
	// (2.0–2.42); zlib1g 1:1.2.13.dfsg-1 is zlib 1.2.13: CVE-2026-22184 (≤ 1.3.1.2).
	for _, k := range []string{"libc6|CVE-2026-0861", "libc6|CVE-2026-0915", "zlib1g|CVE-2026-22184"} {
		found := false
		for _, f := range got {
			found = found || f.pkg+"|"+f.CVEID == k
		}
		if !found {
			t.Errorf("missing upstream-version finding %s", k)
		}
	}
}

// TestTrackerAndSecDBImportAndMatch imports the Debian tracker JSON excerpt and the Alpine
// 3.11 secdb by content and matches a host of each release on them.
func TestTrackerAndSecDBImportAndMatch(t *testing.T) {
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini))
	for _, f := range []string{advData + "/debian/tracker-json-excerpts/osv.dev_debian_security_tracker_mock.json",
		advData + "/alpine-secdb/v3.11/main.yaml"} {
		importFile(t, w.inv.Importer, f)
	}
	if err := w.inv.Service.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		host    distroHost
		item    inventoryItem
		cve     string
		fixed   string
		release string
	}{
		// apparmor CVE-2016-1585: open in bookworm, no fix (tracker: status open).
		{distroHost{hostname: "deb12", os: map[string]string{"name": "Debian GNU/Linux", "id": "debian", "version_id": "12"}},
			inventoryItem{Product: "apparmor", Version: "3.0.8-3", packageItemJSON: packageItemJSON{Source: "deb"}},
			"CVE-2016-1585", "", "debian:12"},
		// musl CVE-2019-14697: the v3.11 secdb fixes it in 1.1.23-r2.
		{distroHost{hostname: "alp311", os: map[string]string{"name": "Alpine Linux", "id": "alpine", "version_id": "3.11.6"}},
			inventoryItem{Product: "musl", Version: "1.1.22-r3", packageItemJSON: packageItemJSON{Source: "apk"}},
			"CVE-2019-14697", "1.1.23-r2", "alpine:3.11"},
	}
	for _, c := range cases {
		c.host.items = func(testing.TB, string) []inventoryItem { return []inventoryItem{c.item} }
		postHost(t, w, c.host)
		got, _ := hostFindings(t, w, c.release)
		var hit *hostFinding
		for i := range got {
			if got[i].CVEID == c.cve {
				hit = &got[i]
			}
		}
		if hit == nil {
			t.Errorf("%s %s: no finding %s in %+v", c.item.Product, c.item.Version, c.cve, got)
			continue
		}
		if hit.Basis != "advisory" || (c.fixed != "" && (hit.FixState != "fixed" || deref(hit.FixedVersion) != c.fixed)) ||
			(c.fixed == "" && (hit.FixState != "not_fixed" || hit.FixedVersion != nil)) {
			t.Errorf("%s %s: %+v, want fixed %q", c.item.Product, c.item.Version, hit.findingJSON, c.fixed)
		}
	}
}

// checkFixAvailableFilter lists products by fix_available: every product listed with true has
// a finding with a fix, none listed with false has one, and together they are all products.
func checkFixAvailableFilter(t *testing.T, w *invWorld) {
	t.Helper()
	all := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", "/api/products?per_page=1", nil)).Total
	total := 0
	for _, v := range []bool{true, false} {
		list := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products?per_page=200&fix_available=%v", v), nil))
		total += list.Total
		for _, p := range list.Items {
			if p.FixAvailable != v || (v && p.VulnerabilityCount == 0) {
				t.Errorf("fix_available=%v lists %s %s with fix_available %v and %d findings", v, p.Name, p.Version, p.FixAvailable, p.VulnerabilityCount)
			}
		}
		if v && list.Total == 0 {
			t.Error("no product with a fix available")
		}
	}
	if total != all {
		t.Errorf("fix_available true and false list %d products, want all %d", total, all)
	}
}

// importFile imports a file as `feed import` does, recognised by its content; an error fails
// the test.
func importFile(t testing.TB, im *inventory.Importer, name string) inventory.ImportStats {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	st, err := im.Import(context.Background(), name, f, fi.Size())
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	return st
}

func postHost(t testing.TB, w *invWorld, h distroHost) {
	t.Helper()
	body := map[string]any{"hostname": h.hostname, "os": h.os, "products": h.items(t, h.file)}
	res := w.acme.do(t, "POST", "/api/agent/inventory", mustJSON(t, body))
	if res.Status != 200 {
		t.Fatalf("post %s: %d %.300s", h.hostname, res.Status, res.Body)
	}
}

// hostFinding is one vulnerability of one product, as the product detail shows it.
type hostFinding struct {
	pkg, version string
	productVulnJSON
}

// hostFindings reads, through the API, the products of a release and their findings.
func hostFindings(t testing.TB, w *invWorld, release string) ([]hostFinding, []productJSON) {
	t.Helper()
	var out []hostFinding
	var products []productJSON
	for page := 1; ; page++ {
		list := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products?per_page=200&page=%d", page), nil))
		for _, p := range list.Items {
			if p.Release != release {
				continue
			}
			products = append(products, p)
			if p.VulnerabilityCount == 0 {
				continue
			}
			d := decodeBody[productDetailJSON](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", p.ID), nil))
			for _, v := range d.Vulnerabilities {
				out = append(out, hostFinding{pkg: trimDpkgArch(p.Name), version: p.Version, productVulnJSON: v})
			}
		}
		if page >= list.Pages {
			return out, products
		}
	}
}

// expectedFix is what one expected/*.tsv row says of one (package, advisory).
type expectedFix struct {
	fixed string
	pro   bool
}

// expectedFindings reads the AFFECTED rows of expected/*.tsv by host file, keyed
// "advisory|package". Rocky rows follow result_with_real_epoch, except the rows where the
// host and the fix differ only by the rebuild tag (.alma.N): both name the same RHEL build,
// so the host has the fix (advisories README, case 12).
func expectedFindings(t testing.TB) map[string]map[string]expectedFix {
	out := map[string]map[string]expectedFix{}
	add := func(host, key string, f expectedFix) {
		if out[host] == nil {
			out[host] = map[string]expectedFix{}
		}
		out[host][key] = f
	}
	ubuntu := readTSVFile(t, advData+"/expected/ubuntu-host-matches.tsv")
	affected := 0
	for _, r := range ubuntu {
		if r["result"] == "AFFECTED" {
			affected++
			add(r["host_manifest"], advisoryID(r["advisory_file"])+"|"+r["host_binary"],
				expectedFix{r["fixed_binary_version"], strings.HasPrefix(r["ecosystem"], "Ubuntu:Pro:")})
		}
	}
	if affected != 72 {
		t.Fatalf("ubuntu-host-matches.tsv: %d AFFECTED rows, want 72", affected)
	}
	rebuildOnly := 0
	for _, r := range readTSVFile(t, advData+"/expected/rocky-hosts-vs-almalinux-osv.tsv") {
		if r["result_with_real_epoch"] != "AFFECTED" {
			continue
		}
		if stripRebuild(r["host_evr"]) == stripRebuild(r["fixed_evr"]) && r["host_evr"] != r["fixed_evr"] {
			rebuildOnly++
			continue
		}
		add(r["host_list"], advisoryID(r["advisory_file"])+"|"+r["binary_package"], expectedFix{fixed: r["fixed_evr"]})
	}
	if rebuildOnly != 3 {
		t.Fatalf("%d Rocky rows differ only by the rebuild tag, want the 3 libgcc/libgomp/libstdc++ rows", rebuildOnly)
	}
	return out
}

func stripRebuild(evr string) string {
	for _, tag := range []string{".alma.", ".rocky."} {
		if i := strings.LastIndex(evr, tag); i > 0 {
			return evr[:i]
		}
	}
	return evr
}

// compareFindings checks that the (advisory, package) pairs the findings name are exactly the
// expected ones, and that each finding shows the fix the expected rows imply: of the rows of
// its advisories for its package, the highest fix available without Ubuntu Pro, else the
// highest with Pro (pro_only).
func compareFindings(t *testing.T, host string, want map[string]expectedFix, got []hostFinding, scheme advisories.Scheme) {
	t.Helper()
	seen := map[string]bool{}
	for _, f := range got {
		if f.Basis != "advisory" || f.Source == "nvd" {
			t.Errorf("%s: %s %s from %s (%s), want an advisory finding", host, f.pkg, f.CVEID, f.Source, f.Basis)
		}
		var best *expectedFix
		for _, id := range strings.Split(f.Advisories, ",") {
			k := id + "|" + f.pkg
			seen[k] = true
			e, ok := want[k]
			if !ok {
				t.Errorf("%s: unexpected finding %s (%s %s)", host, k, f.CVEID, f.version)
				continue
			}
			if best == nil || (best.pro && !e.pro) || (best.pro == e.pro && cmpVersion(t, scheme, e.fixed, best.fixed) > 0) {
				best = &e
			}
		}
		if best == nil {
			continue
		}
		if f.FixState != "fixed" || deref(f.FixedVersion) != best.fixed || f.ProOnly != best.pro {
			t.Errorf("%s: %s %s: fix_state %q fixed_version %q pro_only %v, want fixed %q pro_only %v",
				host, f.pkg, f.CVEID, f.FixState, deref(f.FixedVersion), f.ProOnly, best.fixed, best.pro)
		}
		if best.pro && f.Fix != "fix available with Ubuntu Pro" {
			t.Errorf("%s: %s %s says %q, want \"fix available with Ubuntu Pro\"", host, f.pkg, f.CVEID, f.Fix)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("%s: missing finding %s (fixed %s)", host, k, want[k].fixed)
		}
	}
}

func cmpVersion(t testing.TB, s advisories.Scheme, a, b string) int {
	c, err := advisories.Compare(s, advisories.StripRebuildTag(a), advisories.StripRebuildTag(b))
	if err != nil {
		t.Fatalf("compare %s %s: %v", a, b, err)
	}
	return c
}

func advisoryID(file string) string { return strings.TrimSuffix(filepath.Base(file), ".json") }

func trimDpkgArch(name string) string {
	if i := strings.LastIndexByte(name, ':'); i > 0 {
		return name[:i]
	}
	return name
}

// readTSVFile reads a tab-separated file with a header line into one map per row.
func readTSVFile(t testing.TB, path string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	head := strings.Split(rows[0], "\t")
	out := make([]map[string]string, 0, len(rows)-1)
	for _, r := range rows[1:] {
		row := map[string]string{}
		for i, v := range strings.Split(r, "\t") {
			if i < len(head) {
				row[head[i]] = v
			}
		}
		out = append(out, row)
	}
	return out
}

// hostItems reads a shared host list with parse into inventory items of package system source.
func hostItems(source string, parse func(io.Reader) ([]hostlist.Package, error)) func(testing.TB, string) []inventoryItem {
	return func(t testing.TB, file string) []inventoryItem {
		pkgs, err := hostlist.ReadFile(filepath.Join(invData, file), parse)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]inventoryItem, len(pkgs))
		for i, p := range pkgs {
			out[i] = inventoryItem{Product: p.Name, Version: p.Version, packageItemJSON: packageItemJSON{Source: source, Arch: p.Arch}}
		}
		return out
	}
}

var (
	dpkgItems  = hostItems("deb", hostlist.Dpkg)
	rpmQAItems = hostItems("rpm", hostlist.RPMQA)
	kiwiItems  = hostItems("rpm", hostlist.KIWI)
)

// TestCoverageArrivingLater posts a Debian 12 package before any Debian advisory is imported
// (an ordinary product, matched by upstream version), imports the tracker JSON, and posts the
// same inventory again: the package is now identified as the package and matched by Debian.
func TestCoverageArrivingLater(t *testing.T) {
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini))
	host := distroHost{hostname: "deb12", os: map[string]string{"name": "Debian GNU/Linux", "id": "debian", "version_id": "12"},
		items: func(testing.TB, string) []inventoryItem {
			return []inventoryItem{{Product: "apparmor", Version: "3.0.8-3", packageItemJSON: packageItemJSON{Source: "deb"}}}
		}}
	postHost(t, w, host)
	_, before := hostFindings(t, w, "debian:12")
	if len(before) != 1 || before[0].Resolution == string(appliance.ResolutionPackage) {
		t.Fatalf("before the import: %+v", before)
	}
	importFile(t, w.inv.Importer, advData+"/debian/tracker-json-excerpts/osv.dev_debian_security_tracker_mock.json")
	if err := w.inv.Service.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	postHost(t, w, host)
	got, after := hostFindings(t, w, "debian:12")
	if len(after) != 1 || after[0].Resolution != string(appliance.ResolutionPackage) || len(got) != 1 || got[0].CVEID != "CVE-2016-1585" ||
		got[0].Source != "debian" || got[0].Basis != "advisory" {
		t.Errorf("after the import: products %+v findings %+v", after, got)
	}
}

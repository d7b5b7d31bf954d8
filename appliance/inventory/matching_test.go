package inventory_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

// TestConformanceMatches has the expectations of the conformance inventory group, on the
// same fixtures imported through the Importer.
func TestConformanceMatches(t *testing.T) {
	w := newWorld(t, catalogMini, nvdMini, kevMini)
	w.submit(t, w.acme, report("host-a", hostA...))
	w.submit(t, w.acme, report("host-b", item("Google LLC", "Google Chrome", "116.0.5845.187"), item("openssl", "openssl", "1.1.1w")))
	cases := []struct {
		vendor, name, version string
		cpe                   string
		resolution            appliance.ResolutionMethod
		want, notWant         []string
	}{
		{"openssl", "openssl", "1.1.1k", "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*", appliance.ResolutionExact,
			[]string{"CVE-2021-3711", "CVE-2022-0778"}, nil},
		{"Google LLC", "Google Chrome", "116.0.5845.96", "cpe:2.3:a:google:chrome:116.0.5845.96:*:*:*:*:*:*:*", "",
			[]string{"CVE-2023-4863"}, nil},
		{"Google LLC", "Google Chrome", "116.0.5845.187", "cpe:2.3:a:google:chrome:116.0.5845.187:*:*:*:*:*:*:*", "",
			nil, []string{"CVE-2023-4863"}},
		{"Notepad++ Team", "Notepad++ (64-bit x64)", "8.5.6", `cpe:2.3:a:notepad-plus-plus:notepad\+\+:8.5.6:*:*:*:*:*:*:*`, "",
			[]string{"CVE-2023-40031"}, nil},
		{"Apache Software Foundation", "Apache Log4j", "2.17.1", "cpe:2.3:a:apache:log4j:2.17.1:*:*:*:*:*:*:*", "",
			nil, []string{"CVE-2021-44228"}},
		{"Igor Pavlov", "7-Zip 21.07 (x64)", "21.07", "cpe:2.3:a:7-zip:7-zip:21.07:*:*:*:*:*:*:*", "",
			[]string{"CVE-2099-10001"}, nil},
		{"Acme Widgets", "Totally Unknown Widget", "1.0", "", appliance.ResolutionUnresolved, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name+" "+c.version, func(t *testing.T) {
			d := w.product(t, c.vendor, c.name, c.version)
			got := cveIDs(d)
			if cpe := inventory.CPE(d.Product); cpe != c.cpe {
				t.Errorf("cpe = %q, want %q", cpe, c.cpe)
			}
			if c.resolution != "" && d.Resolution != c.resolution {
				t.Errorf("resolution = %q, want %q", d.Resolution, c.resolution)
			}
			for _, id := range c.want {
				if !slices.Contains(got, id) {
					t.Errorf("vulnerabilities %v lack %s", got, id)
				}
			}
			for _, id := range c.notWant {
				if slices.Contains(got, id) {
					t.Errorf("vulnerabilities %v include %s", got, id)
				}
			}
			if c.cpe == "" && len(got) != 0 {
				t.Errorf("an unresolved product has vulnerabilities %v", got)
			}
		})
	}
}

func TestSeverityScoreAndKEV(t *testing.T) {
	w := newWorld(t, catalogMini, nvdMini, kevMini)
	w.submit(t, w.acme, report("host-a", hostA...))
	d := w.product(t, "openssl", "openssl", "1.1.1k")
	i := slices.IndexFunc(d.Vulnerabilities, func(v appliance.ProductVulnerability) bool { return v.CVEID == "CVE-2021-3711" })
	if i < 0 {
		t.Fatalf("CVE-2021-3711 not among %v", cveIDs(d))
	}
	v := d.Vulnerabilities[i]
	if v.Severity != "critical" || !v.HasScore || v.Score != 9.8 || v.Criteria == "" || v.MatchID == 0 {
		t.Errorf("CVE-2021-3711 = %+v, want severity critical, score 9.8, criteria and a match id", v)
	}
	chrome := w.product(t, "Google LLC", "Google Chrome", "116.0.5845.96")
	for _, v := range chrome.Vulnerabilities {
		if v.CVEID == "CVE-2023-4863" && (!v.KEV || v.KEVDue.IsZero()) {
			t.Errorf("CVE-2023-4863 = %+v, want kev with a due date (kev-mini.json)", v)
		}
	}
}

// TestLiveRematch imports a feed into the store a loaded service works on: Refresh brings
// the new CVE onto the product, as the running server does after a CLI import.
func TestLiveRematch(t *testing.T) {
	w := newWorld(t, catalogMini, nvdMini)
	w.submit(t, w.acme, report("host-a", hostA...))
	if got := cveIDs(w.product(t, "openssl", "openssl", "1.1.1k")); slices.Contains(got, "CVE-2022-2068") {
		t.Fatalf("CVE-2022-2068 present before its feed was imported: %v", got)
	}
	importFile(t, w.importer, nvdLive)
	if got := cveIDs(w.product(t, "openssl", "openssl", "1.1.1k")); slices.Contains(got, "CVE-2022-2068") {
		t.Fatalf("CVE-2022-2068 present before Refresh: %v", got)
	}
	if err := w.service.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := cveIDs(w.product(t, "openssl", "openssl", "1.1.1k"))
	if !slices.Contains(got, "CVE-2022-2068") || !slices.Contains(got, "CVE-2021-3711") {
		t.Errorf("after Refresh: %v, want CVE-2022-2068 beside CVE-2021-3711", got)
	}
	n, removed, err := w.service.RematchStale(context.Background())
	if err != nil || n != 0 || removed != 0 {
		t.Errorf("RematchStale after Refresh = %d products, %d removed, %v; want nothing left to do", n, removed, err)
	}
}

// TestOverrideAppliesToEveryVersion confirms a cpe on an unresolved product: every version
// reported that way takes the identity, resolution "override", and is matched.
func TestOverrideAppliesToEveryVersion(t *testing.T) {
	w := newWorld(t, catalogMini, nvdMini)
	w.submit(t, w.acme, report("host-a", item("Acme Widgets", "Totally Unknown Widget", "1.1.1k"), item("Acme Widgets", "Totally Unknown Widget", "3.0.0")))
	w.submit(t, w.globex, report("host-g", item("Acme Widgets", "Totally Unknown Widget", "1.1.1k")))
	p := w.product(t, "Acme Widgets", "Totally Unknown Widget", "1.1.1k")
	if p.Resolution != appliance.ResolutionUnresolved {
		t.Fatalf("before the override: resolution %q %+v, want unresolved", p.Resolution, p.Identity)
	}
	cpe := "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*"
	d, err := w.service.UpdateProduct(context.Background(), w.acme, 0, p.ID, inventory.ProductInput{CPE: &cpe})
	if err != nil {
		t.Fatal(err)
	}
	if d.Resolution != appliance.ResolutionOverride || inventory.CPE(d.Product) != cpe || !slices.Contains(cveIDs(d), "CVE-2021-3711") {
		t.Errorf("after PUT cpe: %s %q %v, want override, %s and CVE-2021-3711", d.Resolution, inventory.CPE(d.Product), cveIDs(d), cpe)
	}
	other := w.product(t, "Acme Widgets", "Totally Unknown Widget", "3.0.0")
	if other.Resolution != appliance.ResolutionOverride || other.Identity != d.Identity {
		t.Errorf("other version: %s %+v, want the override identity %+v", other.Resolution, other.Identity, d.Identity)
	}
	w.submit(t, w.acme, report("host-a", item("Acme Widgets", "Totally Unknown Widget", "1.1.1l")))
	if later := w.product(t, "Acme Widgets", "Totally Unknown Widget", "1.1.1l"); later.Resolution != appliance.ResolutionOverride {
		t.Errorf("a version reported after the override: resolution %q, want override", later.Resolution)
	}
	g, err := w.store.ProductByKey(context.Background(), w.globex, appliance.ProductKey{Vendor: "Acme Widgets", Name: "Totally Unknown Widget", Version: "1.1.1k"})
	if err != nil || g.Resolution != appliance.ResolutionUnresolved {
		t.Errorf("globex's product = %+v (%v), want it untouched by acme's override", g, err)
	}
}

func TestReviewListsUnresolvedPairs(t *testing.T) {
	w := newWorld(t, catalogMini)
	unknown := item("Acme Widgets", "Totally Unknown Widget", "1.0")
	w.submit(t, w.acme, report("host-a", unknown, hostA[0]))
	w.submit(t, w.acme, report("host-b", unknown, item("Acme Widgets", "Totally Unknown Widget", "2.0")))
	w.submit(t, w.acme, report("host-c", item("Other", "Rare Tool", "1")))
	items, total, err := w.service.Review(context.Background(), w.acme, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if total != 2 || len(items) != 2 || items[0].Name != "Totally Unknown Widget" || items[0].HostCount != 2 || len(items[0].ProductIDs) != 2 ||
		items[1].Name != "Rare Tool" || items[1].HostCount != 1 {
		t.Errorf("review = %+v, want the widget on 2 hosts (2 versions) then Rare Tool on 1", items)
	}
	if g, n, err := w.service.Review(context.Background(), w.globex, 1, 100); err != nil || len(g) != 0 || n != 0 {
		t.Errorf("globex's review = %+v (total %d), %v; want empty", g, n, err)
	}
}

func TestDeleteProduct(t *testing.T) {
	w := newWorld(t, catalogMini, nvdMini)
	w.submit(t, w.acme, report("host-a", hostA...))
	ctx := context.Background()
	d := w.product(t, "openssl", "openssl", "1.1.1k")
	if err := w.service.DeleteProduct(ctx, w.globex, d.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("another organization deletes: err = %v, want ErrNotFound", err)
	}
	if err := w.service.DeleteProduct(ctx, w.acme, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.service.Product(ctx, w.acme, d.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("get after delete: err = %v, want ErrNotFound", err)
	}
	if err := w.service.DeleteProduct(ctx, w.acme, d.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("second delete: err = %v, want ErrNotFound", err)
	}
	vulns, err := w.store.ProductVulnerabilities(ctx, w.acme, d.ID)
	if err != nil || len(vulns) != 0 {
		t.Errorf("matches after delete = %v (%v), want none", vulns, err)
	}
	sum := w.submit(t, w.acme, report("host-a", hostA...))
	if sum.ProductsUpdated != 1 || sum.InstallationsCreated != 0 {
		t.Errorf("re-reported deleted product: %+v, want it revived (1 updated) on its kept installation", sum)
	}
	if back := w.product(t, "openssl", "openssl", "1.1.1k"); !slices.Contains(cveIDs(back), "CVE-2021-3711") {
		t.Errorf("revived product matches %v, want CVE-2021-3711 again", cveIDs(back))
	}
}

// TestWindowsVersionSchemesFindTheirCVEs: registry versions in publishers' own schemes match
// NVD's real records (issue 9 §3): Python 3.9.1 written 3.9.1150.0 falls in CVE-2007-4559's
// range [3.9.0, 3.9.17), Java 8u471 written 8.0.4710.9 matches the 2026 feed's
// oracle:jre:1.8.0:update471 criteria; the reported version stays as sent.
func TestWindowsVersionSchemesFindTheirCVEs(t *testing.T) {
	w := newWorld(t, catalogMini, sharedData+"/nvd/nvdcve-2.0-2007.json.gz", sharedData+"/nvd/nvdcve-2.0-2026.json.gz")
	python := item("Python Software Foundation", "Python 3.9.1 (64-bit)", "3.9.1150.0")
	java := item("Oracle Corporation", "Java 8 Update 471 (64-bit)", "8.0.4710.9")
	w.submit(t, w.acme, report("pc-1", python, java))
	for _, c := range []struct {
		it       inventory.Item
		identity appliance.Identity
		cpe, cve string
	}{
		{python, appliance.Identity{Part: "a", Vendor: "python", Product: "python"}, "cpe:2.3:a:python:python:3.9.1:*:*:*:*:*:*:*", "CVE-2007-4559"},
		{java, appliance.Identity{Part: "a", Vendor: "oracle", Product: "jre"}, "cpe:2.3:a:oracle:jre:1.8.0:update471:*:*:*:*:*:*", ""},
	} {
		d := w.product(t, c.it.Vendor, c.it.Product, c.it.Version)
		if d.Product.Identity != c.identity {
			// Pin the identity the way a person would, so the test measures versions only.
			pin := "cpe:2.3:" + c.identity.Part + ":" + c.identity.Vendor + ":" + c.identity.Product + ":*:*:*:*:*:*:*:*"
			if _, err := w.service.UpdateProduct(context.Background(), w.acme, 0, d.Product.ID, inventory.ProductInput{CPE: ptr(pin)}); err != nil {
				t.Fatalf("confirm %s: %v", pin, err)
			}
			t.Logf("%s resolved to %v; pinned %s", c.it.Product, d.Product.Identity, pin)
			d = w.product(t, c.it.Vendor, c.it.Product, c.it.Version)
		}
		if got := inventory.CPE(d.Product); got != c.cpe {
			t.Errorf("%s: cpe %q, want %q", c.it.Product, got, c.cpe)
		}
		if d.Product.Version != c.it.Version {
			t.Errorf("%s: version shown %q, want the reported %q", c.it.Product, d.Product.Version, c.it.Version)
		}
		got := cveIDs(d)
		if c.cve != "" && !slices.Contains(got, c.cve) {
			t.Errorf("%s: vulnerabilities %v lack %s", c.it.Product, got, c.cve)
		}
		if c.cve == "" && len(got) == 0 {
			t.Errorf("%s: no vulnerabilities at 1.8.0 update471", c.it.Product)
		}
	}
}

// TestMacInventoryResolves: a Mac's apps (bundle ids, "Name.app") and Homebrew formulae get the
// identities NVD uses (issue 9 §3), through the reconciliation of a real submission.
func TestMacInventoryResolves(t *testing.T) {
	w := newWorld(t, catalogMini)
	mac := func(name, version, bundle string) inventory.Item {
		return inventory.Item{Product: name, Version: version, Package: appliance.PackageInfo{Source: "macos", BundleID: bundle}}
	}
	brew := func(name, version string) inventory.Item {
		return inventory.Item{Vendor: "homebrew", Product: name, Version: version, Package: appliance.PackageInfo{Source: "brew"}}
	}
	items := []inventory.Item{mac("Firefox", "127.0.2", "org.mozilla.firefox"), mac("Code", "1.90.2", "com.microsoft.VSCode"),
		mac("Google Chrome.app", "126.0.6478.127", ""), brew("openssl@3", "3.3.1"), brew("node", "22.3.0")}
	w.submit(t, w.acme, report("mac-01", items...))
	want := map[string]string{"Firefox": "mozilla:firefox", "Code": "microsoft:visual_studio_code",
		"Google Chrome.app": "google:chrome", "openssl@3": "openssl:openssl", "node": "nodejs:node.js"}
	for _, it := range items {
		d := w.product(t, it.Vendor, it.Product, it.Version)
		if got := d.Product.Identity.String(); got != want[it.Product] || d.Product.Version != it.Version {
			t.Errorf("%s %s: identity %s (%s), version %q; want %s", it.Product, it.Version, got, d.Product.Resolution, d.Product.Version, want[it.Product])
		}
	}
}

// TestOperatingSystemIsAProduct: a Windows host reporting its feature release and build, and a
// Mac reporting its version, get their OS as a product matched against NVD's real records
// (issue 9 §3): windows_10_22h2 below build 19045.6809 has CVE-2026-20804, a patched build
// does not; macOS 14.5 has CVE-2026-20602 (fixed in 14.8.4).
func TestOperatingSystemIsAProduct(t *testing.T) {
	w := newWorld(t, catalogMini, sharedData+"/nvd/nvdcve-2.0-2026.json.gz")
	win := func(host, build string) inventory.Report {
		rep := report(host, item("Mozilla", "Mozilla Firefox (x64 en-US)", "118.0.1"))
		rep.OSName, rep.OSVersion = "Windows 10 Pro", "22H2"
		rep.OS = appliance.HostOS{ID: "windows", VersionID: "10", Build: build}
		return rep
	}
	w.submit(t, w.acme, win("pc-old", "19045.4291"))
	w.submit(t, w.acme, win("pc-new", "19045.6900"))
	mac := report("mac-01", item("Mozilla", "Firefox", "127.0.2"))
	mac.OSName, mac.OS = "macOS", appliance.HostOS{ID: "macos", VersionID: "14.5", Build: "23F79"}
	w.submit(t, w.acme, mac)
	cases := []struct {
		name, version, identity, cve string
		affected                     bool
	}{
		{"Windows 10 22H2", "10.0.19045.4291", "microsoft:windows_10_22h2", "CVE-2026-20804", true},
		{"Windows 10 22H2", "10.0.19045.6900", "microsoft:windows_10_22h2", "CVE-2026-20804", false},
		{"macOS", "14.5", "apple:macos", "CVE-2026-20602", true},
	}
	for _, c := range cases {
		vendor := "Microsoft"
		if c.name == "macOS" {
			vendor = "Apple"
		}
		d := w.product(t, vendor, c.name, c.version)
		if got := d.Product.Identity.String(); got != c.identity || d.Product.Identity.Part != "o" {
			t.Errorf("%s %s: identity %s part %q, want %s part o", c.name, c.version, got, d.Product.Identity.Part, c.identity)
		}
		if got := slices.Contains(cveIDs(d), c.cve); got != c.affected {
			t.Errorf("%s %s: %s found = %v, want %v (%d CVEs)", c.name, c.version, c.cve, got, c.affected, len(cveIDs(d)))
		}
	}
}

// TestSpellingsOfOneProductShareTheirCVEs: a CVE filed under another spelling of the same
// product is found (issue 9 §3): liferay:liferay_portal and liferay:portal (the vendor repeated
// in the product), and the product shows the other spelling as an alias.
func TestSpellingsOfOneProductShareTheirCVEs(t *testing.T) {
	w := newWorld(t, catalogMini, sharedData+"/nvd/nvdcve-2.0-2007.json.gz")
	liferay := item("Liferay", "Liferay Portal", "4.1.0")
	w.submit(t, w.acme, report("app-1", liferay))
	d := w.product(t, liferay.Vendor, liferay.Product, liferay.Version)
	pin := "cpe:2.3:a:liferay:liferay_portal:*:*:*:*:*:*:*:*"
	if _, err := w.service.UpdateProduct(context.Background(), w.acme, 0, d.Product.ID, inventory.ProductInput{CPE: ptr(pin)}); err != nil {
		t.Fatalf("confirm %s: %v", pin, err)
	}
	d = w.product(t, liferay.Vendor, liferay.Product, liferay.Version)
	if !slices.Contains(cveIDs(d), "CVE-2007-6055") {
		t.Errorf("liferay:liferay_portal 4.1.0 lacks CVE-2007-6055, filed under liferay:portal (%v)", cveIDs(d))
	}
	if !slices.ContainsFunc(d.Aliases, func(a appliance.Identity) bool { return a.String() == "liferay:portal" }) {
		t.Errorf("aliases %v lack liferay:portal", d.Aliases)
	}
}

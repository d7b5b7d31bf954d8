package advisories

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// The hand-checked results 1–12 of ../shared/data/advisories/README.md.

// hostPkg returns the named package of a host list (arch qualifier ignored).
func hostPkg(t *testing.T, pkgs []Installed, name string) Installed {
	t.Helper()
	for _, p := range pkgs {
		if trimArch(p.Name) == name {
			return p
		}
	}
	t.Fatalf("package %s not on the host", name)
	return Installed{}
}

// finding returns the finding of advisory id on package pkg, or nil.
func finding(res Result, id, pkg string) *Finding {
	for i, f := range res.Findings {
		if f.AdvisoryID == id && trimArch(f.Package) == pkg {
			return &res.Findings[i]
		}
	}
	return nil
}

type want struct {
	id, pkg  string
	fixed    string   // "" with affected=false
	cve      string   // a CVE the finding must carry
	affected bool     // a finding must exist (else must not)
	pro      bool     // the fix needs Ubuntu Pro
	onlyCVEs []string // when set, exactly these CVEs
}

func checkWants(t *testing.T, res Result, wants []want) {
	t.Helper()
	for _, w := range wants {
		f := finding(res, w.id, w.pkg)
		if !w.affected {
			if f != nil {
				t.Errorf("%s %s: unexpected finding %+v", w.pkg, w.id, *f)
			}
			continue
		}
		if f == nil {
			t.Errorf("%s %s: no finding", w.pkg, w.id)
			continue
		}
		if f.FixedVersion != w.fixed || f.FixState != Fixed || f.ProOnly != w.pro || f.Basis != BasisAdvisory {
			t.Errorf("%s %s: fixed %q state %q pro %v basis %q, want %q fixed pro=%v advisory",
				w.pkg, w.id, f.FixedVersion, f.FixState, f.ProOnly, f.Basis, w.fixed, w.pro)
		}
		if w.cve != "" && !slices.Contains(f.CVEs, w.cve) {
			t.Errorf("%s %s: CVEs %v lack %s", w.pkg, w.id, f.CVEs, w.cve)
		}
		if w.onlyCVEs != nil && !slices.Equal(f.CVEs, w.onlyCVEs) {
			t.Errorf("%s %s: CVEs %v, want %v", w.pkg, w.id, f.CVEs, w.onlyCVEs)
		}
	}
}

func TestReadmeCases1to6Ubuntu(t *testing.T) {
	ix := ubuntuIndex(t)
	jammy := ix.Match(Host{OSID: "ubuntu", VersionID: "22.04"}, dpkgManifest(t, "ubuntu-jammy-amd64.dpkg-manifest.tsv"))
	bionic := ix.Match(Host{OSID: "ubuntu", VersionID: "18.04"}, dpkgManifest(t, "ubuntu-bionic-amd64.dpkg-manifest.tsv"))
	t.Run("1 jammy glibc", func(t *testing.T) {
		checkWants(t, jammy, []want{
			{id: "UBUNTU-CVE-2023-4911", pkg: "libc6", fixed: "2.35-0ubuntu3.4", cve: "CVE-2023-4911", affected: true},
			{id: "USN-6409-1", pkg: "libc6", fixed: "2.35-0ubuntu3.4", cve: "CVE-2023-4911", affected: true},
			{id: "USN-6409-1", pkg: "libc-bin", fixed: "2.35-0ubuntu3.4", cve: "CVE-2023-4911", affected: true},
			{id: "USN-6737-1", pkg: "libc6", fixed: "2.35-0ubuntu3.7", cve: "CVE-2024-2961", affected: true},
		})
	})
	t.Run("2 build vs ubuntu revisions", func(t *testing.T) {
		checkWants(t, jammy, []want{
			{id: "USN-5900-1", pkg: "tar", fixed: "1.34+dfsg-1ubuntu0.1.22.04.1", cve: "CVE-2022-48303", affected: true},
			{id: "USN-6166-1", pkg: "libcap2", fixed: "1:2.44-1ubuntu0.22.04.1", affected: true},
		})
	})
	t.Run("3 jammy openssl", func(t *testing.T) {
		if v := hostPkg(t, dpkgManifest(t, "ubuntu-jammy-amd64.dpkg-manifest.tsv"), "libssl3").Version; v != "3.0.2-0ubuntu1.6" {
			t.Fatalf("libssl3 %s", v)
		}
		checkWants(t, jammy, []want{
			{id: "CVE-2022-2068", pkg: "libssl3"},
			{id: "USN-5402-1", pkg: "libssl3"},
			{id: "USN-5710-1", pkg: "libssl3", fixed: "3.0.2-0ubuntu1.7", cve: "CVE-2022-3602", affected: true},
			{id: "CVE-2022-3602", pkg: "libssl3", fixed: "3.0.2-0ubuntu1.7", cve: "CVE-2022-3602", affected: true},
			{id: "USN-5844-1", pkg: "libssl3", fixed: "3.0.2-0ubuntu1.8", cve: "CVE-2023-0286", affected: true},
			{id: "USN-6039-1", pkg: "libssl3", fixed: "3.0.2-0ubuntu1.9", affected: true},
			{id: "USN-6119-1", pkg: "libssl3", fixed: "3.0.2-0ubuntu1.10", affected: true},
		})
	})
	t.Run("4 fixed equals installed", func(t *testing.T) {
		checkWants(t, jammy, []want{
			{id: "CVE-2022-1664", pkg: "dpkg"}, {id: "USN-5446-1", pkg: "dpkg"},
			{id: "USN-5503-1", pkg: "gpgv"}, {id: "USN-5464-1", pkg: "e2fsprogs"}, {id: "USN-5464-1", pkg: "libext2fs2"},
		})
		checkWants(t, bionic, []want{
			{id: "USN-5378-1", pkg: "gzip"}, {id: "USN-5378-2", pkg: "liblzma5"}, {id: "USN-5380-1", pkg: "bash"},
		})
		// The equal pairs are really there (the negatives above are not vacuous).
		for _, n := range []string{"dpkg", "gpgv", "e2fsprogs", "libext2fs2"} {
			if ix.SourceOf("ubuntu", "22.04", n) == "" {
				t.Errorf("%s: no advisory names it on jammy", n)
			}
		}
	})
	t.Run("5 bionic Pro-only fixes", func(t *testing.T) {
		checkWants(t, bionic, []want{
			{id: "USN-6477-1", pkg: "procps", fixed: "2:3.3.12-3ubuntu1.2+esm1", pro: true, affected: true, onlyCVEs: []string{"CVE-2023-4016"}},
			{id: "USN-6477-1", pkg: "libprocps6", fixed: "2:3.3.12-3ubuntu1.2+esm1", pro: true, affected: true},
			// cves_map of Ubuntu:Pro:18.04 lists only CVE-2024-2961 of the record's five.
			{id: "USN-6762-1", pkg: "libc6", fixed: "2.27-3ubuntu1.6+esm2", pro: true, affected: true, onlyCVEs: []string{"CVE-2024-2961"}},
		})
	})
	t.Run("6 binary version with an epoch", func(t *testing.T) {
		checkWants(t, jammy, []want{
			{id: "USN-6719-1", pkg: "bsdutils", fixed: "1:2.37.2-4ubuntu3.3", cve: "CVE-2024-28085", affected: true},
			{id: "USN-6719-1", pkg: "util-linux", fixed: "2.37.2-4ubuntu3.3", cve: "CVE-2024-28085", affected: true},
		})
		// The trap: against the source's fixed version the epoch would hide it.
		if c, _ := Compare(SchemeDpkg, "1:2.37.2-4ubuntu3", "2.37.2-4ubuntu3.3"); c <= 0 {
			t.Errorf("dpkg: 1:2.37.2-4ubuntu3 should sort above 2.37.2-4ubuntu3.3")
		}
	})
}

func TestReadmeCase7KineticNotCovered(t *testing.T) {
	ix := ubuntuIndex(t)
	res := ix.Match(Host{OSID: "ubuntu", VersionID: "22.10", Codename: "kinetic"}, dpkgManifest(t, "ubuntu-kinetic-amd64.dpkg-manifest.tsv"))
	if res.Coverage != NotCovered || len(res.Findings) != 0 || res.DataRelease != "" {
		t.Fatalf("kinetic: %+v, want not covered", res)
	}
	if ix.Covers("ubuntu", "22.10") || !ix.Covers("ubuntu", "18.04") {
		t.Error("Covers disagrees with the records")
	}
	if res := ix.Match(Host{OSID: "windows", VersionID: "10"}, nil); res.Coverage != Unsupported {
		t.Errorf("windows: %q, want unsupported", res.Coverage)
	}
}

// debianListIndex loads the DSA and DLA lists.
func debianListIndex(t testing.TB) *Index {
	ix := NewIndex()
	for _, f := range []string{"DSA/list", "DLA/list"} {
		fh, err := os.Open(advDir + "/debian/security-tracker-lists/" + f)
		if err != nil {
			t.Fatal(err)
		}
		err = DecodeDebianList(fh, func(a Advisory) error { ix.Add(a); return nil })
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return ix
}

func TestReadmeCase8BullseyeOpenSSL(t *testing.T) {
	ix := debianListIndex(t)
	pkgs := dpkgManifest(t, "debian-bullseye-amd64.dpkg-manifest.tsv")
	// An agent reports dpkg's Source: field; the Debian lists name only source packages.
	ssl := hostPkg(t, pkgs, "libssl1.1")
	ssl.SourcePackage = "openssl"
	xz := hostPkg(t, pkgs, "liblzma5")
	xz.SourcePackage = "xz-utils"
	host := Host{OSID: "debian", VersionID: "11"}
	res := ix.Match(host, []Installed{ssl, xz})
	if res.Coverage != Covered || res.DataRelease != "debian:11" {
		t.Fatalf("bullseye: %q %q", res.Coverage, res.DataRelease)
	}
	checkWants(t, res, []want{{id: "DSA-5343-1", pkg: "libssl1.1"}, {id: "DSA-5123-1", pkg: "liblzma5"}})
	// The lists stop in April 2023, before bookworm: a Debian 12 host is not covered.
	if r := ix.Match(Host{OSID: "debian", VersionID: "12"}, []Installed{ssl}); r.Coverage != NotCovered {
		t.Errorf("bookworm: %q, want not covered", r.Coverage)
	}
	// Control: the version before the DSA's fix is affected.
	old := ssl
	old.Version = "1.1.1n-0+deb11u3"
	res = ix.Match(host, []Installed{old})
	checkWants(t, res, []want{{id: "DSA-5343-1", pkg: "libssl1.1", fixed: "1.1.1n-0+deb11u4", cve: "CVE-2023-0286", affected: true}})
	if f := finding(res, "DSA-5343-1", "libssl1.1"); f != nil && (f.Source != SourceDebian || f.SourcePackage != "openssl") {
		t.Errorf("finding %+v", *f)
	}
}

func TestReadmeCase9DebianGnuTLS(t *testing.T) {
	// data/CVE/list lines, as Trivy's vuln-list-debian keeps them in "Original".
	var doc struct {
		Header      struct{ Original string }
		Annotations []struct{ Original string }
	}
	b, err := os.ReadFile(advDir + "/debian/vuln-list-debian/CVE/CVE-2023-5981.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	list := doc.Header.Original + "\n"
	for _, a := range doc.Annotations {
		list += "\t" + a.Original + "\n"
	}
	ix := NewIndex()
	if err := DecodeDebianList(strings.NewReader(list), func(a Advisory) error { ix.Add(a); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ host, rel, fixed, older string }{
		{"debian-bookworm-amd64.dpkg-manifest.tsv", "12", "3.7.9-2+deb12u1", "3.7.9-2"},
		{"debian-bullseye-amd64.dpkg-manifest.tsv", "11", "3.7.1-5+deb11u5", "3.7.1-5+deb11u4"},
	} {
		p := hostPkg(t, dpkgManifest(t, c.host), "libgnutls30")
		p.SourcePackage = "gnutls28"
		h := Host{OSID: "debian", VersionID: c.rel}
		checkWants(t, ix.Match(h, []Installed{p}), []want{{id: "CVE-2023-5981", pkg: "libgnutls30"}})
		p.Version = c.older
		checkWants(t, ix.Match(h, []Installed{p}), []want{{id: "CVE-2023-5981", pkg: "libgnutls30", fixed: c.fixed, cve: "CVE-2023-5981", affected: true}})
	}
}

func almaIndex(t testing.TB) *Index {
	ix := NewIndex()
	loadOSVDir(t, ix, "redhat/almalinux-osv")
	return ix
}

func TestReadmeCases10to12Rocky(t *testing.T) {
	ix := almaIndex(t)
	r9 := ix.Match(Host{OSID: "rocky", VersionID: "9.6"}, kiwiPackages(t, "rocky-9.6.20250531-Base-x86_64.kiwi-packages.txt"))
	r8 := ix.Match(Host{OSID: "rocky", VersionID: "8.10"}, rpmQA(t, "rocky-8.10.20240528-Base-x86_64.rpm-qa.txt"))
	t.Run("10 rocky 9.6 glibc and openssl", func(t *testing.T) {
		checkWants(t, r9, []want{
			{id: "ALSA-2026:42952", pkg: "glibc", fixed: "2.34-274.el9_8", affected: true},
			{id: "ALSA-2025:4244", pkg: "glibc"},
			{id: "ALSA-2025:1330", pkg: "openssl-libs"},
		})
		if f := finding(r9, "ALSA-2026:42952", "glibc"); f != nil && (f.Source != SourceAlmaLinux || f.DataRelease != "almalinux:9") {
			t.Errorf("glibc finding %+v", *f)
		}
	})
	t.Run("11 rpm -qa without epoch", func(t *testing.T) {
		checkWants(t, r8, []want{
			{id: "ALSA-2024:3214", pkg: "gmp"},
			{id: "ALSA-2023:0842", pkg: "tar"},
			{id: "ALSA-2023:4498", pkg: "dbus"},
			{id: "ALSA-2026:38503", pkg: "openssl-libs", fixed: "1:1.1.1k-17.el8_6", affected: true},
		})
		if c, _ := Compare(SchemeRPM, "6.1.2-12.el8", "1:6.1.2-11.el8"); c >= 0 {
			t.Error("the naive epoch-0 comparison should say affected (the trap this case is about)")
		}
		if hostPkg(t, rpmQA(t, "rocky-8.10.20240528-Base-x86_64.rpm-qa.txt"), "shadow-utils").Version == "" {
			t.Fatal("no shadow-utils")
		}
	})
	t.Run("12 rebuild suffix", func(t *testing.T) {
		checkWants(t, r8, []want{
			{id: "ALSA-2024:3347", pkg: "platform-python"},
			{id: "ALSA-2026:56219", pkg: "platform-python", fixed: "3.6.8-78.el8_10.alma.1", affected: true},
		})
		// libgcc 11.5.0-5.el9_5 (Rocky) is the RHEL fix that Alma ships as 11.5.0-5.el9_5.alma.1.
		checkWants(t, r9, []want{{id: "ALSA-2025:1346", pkg: "libgcc"}})
		if c, _ := Compare(SchemeRPM, "11.5.0-5.el9_5", "11.5.0-5.el9_5.alma.1"); c >= 0 {
			t.Error("plain rpmvercmp should order the alma tag above (the trap)")
		}
	})
}

// TestRHELFamilyOwnDataFirst: Rocky's own records decide for the packages they name; Alma's
// stand in for the rest. An AlmaLinux host uses Alma's.
func TestRHELFamilyOwnDataFirst(t *testing.T) {
	ix := almaIndex(t)
	loadOSVDir(t, ix, "redhat/rocky-osv")
	pkgs := []Installed{
		{Name: "java-11-openjdk", Version: "11.0.12.0.7-0.el8_4"}, // epoch 1 comes from the Rocky record
		{Name: "glibc", Version: "2.28-251.el8_10.2"},
	}
	res := ix.Match(Host{OSID: "rocky", VersionID: "8.10"}, pkgs)
	if res.DataRelease != "rocky:8" {
		t.Errorf("data release %q, want rocky:8 first", res.DataRelease)
	}
	if f := finding(res, "RLSA-2021:3891", "java-11-openjdk"); f == nil || f.Source != SourceRocky || f.FixedVersion != "1:11.0.13.0.8-1.el8_4" {
		t.Errorf("java: %+v", f)
	}
	if f := finding(res, "ALSA-2026:42733", "glibc"); f == nil || f.DataRelease != "almalinux:8" {
		t.Errorf("glibc: %+v", f)
	}
	if res := ix.Match(Host{OSID: "almalinux", VersionID: "9.4"}, nil); res.DataRelease != "almalinux:9" {
		t.Errorf("alma host: %q", res.DataRelease)
	}
}

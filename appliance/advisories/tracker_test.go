package advisories

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	apk "github.com/knqyf263/go-apk-version"
	"gopkg.in/yaml.v3"
)

var trackerFiles = []string{
	"debian/tracker-json-excerpts/vunnel_debian.json",
	"debian/tracker-json-excerpts/osv.dev_debian_security_tracker_mock.json",
}

// TestDebianTrackerBullseyeHost imports both tracker excerpts and matches a bullseye host that
// has every excerpt package at its bullseye archive version (plus the real bullseye manifest).
// The expected set is read from the JSON directly, with dpkg as the version oracle.
func TestDebianTrackerBullseyeHost(t *testing.T) {
	ix := NewIndex()
	var pkgs []Installed
	want := map[string]string{}
	for _, file := range trackerFiles {
		f, err := os.Open(advDir + "/" + file)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = DecodeDebianTracker(f, func(a Advisory) error { ix.Add(a); n++; return nil })
		f.Close()
		if err != nil || n == 0 {
			t.Fatalf("%s: %d advisories, %v", file, n, err)
		}
		var doc map[string]map[string]struct {
			Releases json.RawMessage `json:"releases"`
		}
		b, _ := os.ReadFile(advDir + "/" + file)
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for src, cves := range doc {
			installed := ""
			for id, c := range cves {
				var rels map[string]struct {
					Status       string            `json:"status"`
					FixedVersion string            `json:"fixed_version"`
					Repositories map[string]string `json:"repositories"`
				}
				if json.Unmarshal(c.Releases, &rels) != nil {
					continue
				}
				r, ok := rels["bullseye"]
				if !ok {
					continue
				}
				installed = r.Repositories["bullseye"]
				switch {
				case r.Status != "resolved":
					want[id+"|"+src] = "open"
				case r.FixedVersion != "0" && dpkgOracle(t, installed, r.FixedVersion) < 0:
					want[id+"|"+src] = installed + " < " + r.FixedVersion
				}
			}
			if installed != "" {
				pkgs = append(pkgs, Installed{Name: src, Version: installed, SourcePackage: src})
			}
		}
	}
	pkgs = append(pkgs, dpkgManifest(t, "debian-bullseye-amd64.dpkg-manifest.tsv")...)
	res := ix.Match(Host{OSID: "debian", VersionID: "11"}, pkgs)
	if res.Coverage != Covered || len(res.Problems) != 0 {
		t.Fatalf("coverage %q, problems %v", res.Coverage, res.Problems)
	}
	compareSets(t, "bullseye vs tracker", want, findingSet(res.Findings))
	for _, f := range res.Findings {
		if (want[f.AdvisoryID+"|"+f.Package] == "open") != (f.FixState != Fixed) {
			t.Errorf("%s %s: fix state %s", f.AdvisoryID, f.Package, f.FixState)
		}
	}
	if len(want) == 0 {
		t.Fatal("no expected findings: the test proves nothing")
	}
	t.Logf("%d packages, %d findings", len(pkgs), len(res.Findings))
	// Debian 12 is covered by the excerpts (bookworm entries); trixie too; an unknown release not.
	if !ix.Covers("debian", "12") || ix.Covers("debian", "6") {
		t.Error("coverage by codename is wrong")
	}
}

func TestDebianTrackerStates(t *testing.T) {
	f, err := os.Open(advDir + "/" + trackerFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byKey := map[string]Advisory{}
	if err := DecodeDebianTracker(f, func(a Advisory) error {
		byKey[a.ID+"|"+firstPackage(a)] = a
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	notAffected := byKey["CVE-2007-2383|prototypejs"]
	if len(notAffected.Affected) == 0 || notAffected.Affected[0].FixState != NotAffected {
		t.Errorf("fixed_version 0: %+v", notAffected)
	}
	chromium := byKey["CVE-2022-0456|chromium"]
	for _, e := range chromium.Affected {
		if e.Release == "10" && e.FixState != WontFix {
			t.Errorf("buster chromium (end-of-life): %+v", e)
		}
		if e.Release == "11" && (e.FixState != Fixed || e.Fixed != "98.0.4758.80-1~deb11u1") {
			t.Errorf("bullseye chromium: %+v", e)
		}
	}
	if a, ok := byKey["CVE-2022-0358|"]; !ok || len(a.Affected) != 0 {
		t.Errorf("releases as a list: %+v", a)
	}
}

// firstPackage names the first entry's package ("" when none), for test keys.
func firstPackage(adv Advisory) string {
	if len(adv.Affected) == 0 {
		return ""
	}
	return adv.Affected[0].Package
}

func secdbIndex(t testing.TB, files ...string) *Index {
	ix := NewIndex()
	for _, file := range files {
		f, err := os.Open(advDir + "/alpine-secdb/" + file)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = DecodeSecDB(f, "alpine", func(a Advisory) error { ix.Add(a); n++; return nil })
		f.Close()
		if err != nil || n == 0 {
			t.Fatalf("%s: %d advisories, %v", file, n, err)
		}
	}
	return ix
}

// TestAlpineSecDBHost matches a v3.11 host with every main package at its oldest fixed
// version; the expected set is computed from the YAML with the apk ordering.
func TestAlpineSecDBHost(t *testing.T) {
	ix := secdbIndex(t, "v3.11/main.yaml", "v3.11/community.yaml")
	b, err := os.ReadFile(advDir + "/alpine-secdb/v3.11/main.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Packages []struct {
			Pkg struct {
				Name     string              `yaml:"name"`
				Secfixes map[string][]string `yaml:"secfixes"`
			} `yaml:"pkg"`
		} `yaml:"packages"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	var pkgs []Installed
	for _, p := range doc.Packages {
		oldest := ""
		for v := range p.Pkg.Secfixes {
			if v != "0" && (oldest == "" || apk.Version(v).LessThan(apk.Version(oldest))) {
				oldest = v
			}
		}
		if oldest == "" {
			continue
		}
		pkgs = append(pkgs, Installed{Name: p.Pkg.Name, Version: oldest})
		for v, ids := range p.Pkg.Secfixes {
			if v == "0" || !apk.Version(oldest).LessThan(apk.Version(v)) {
				continue
			}
			for _, line := range ids {
				for _, id := range strings.Fields(line) {
					want[id+"|"+p.Pkg.Name] = oldest + " < " + v
				}
			}
		}
	}
	res := ix.Match(Host{OSID: "alpine", VersionID: "3.11.6"}, pkgs)
	if res.Coverage != Covered || len(res.Problems) != 0 {
		t.Fatalf("coverage %q, problems %v", res.Coverage, res.Problems)
	}
	compareSets(t, "alpine 3.11", want, findingSet(res.Findings))
	t.Logf("%d packages, %d findings", len(pkgs), len(res.Findings))
}

func TestAlpineSecDBBranches(t *testing.T) {
	musl := []Installed{{Name: "musl", Version: "1.1.22-r3"}}
	v310 := secdbIndex(t, "v3.10/main.yaml")
	v311 := secdbIndex(t, "v3.11/main.yaml")
	if f := finding(v310.Match(Host{OSID: "alpine", VersionID: "3.10.5"}, musl), "CVE-2019-14697", "musl"); f != nil {
		t.Errorf("3.10 musl 1.1.22-r3 is the branch fix: %+v", *f)
	}
	f := finding(v311.Match(Host{OSID: "alpine", VersionID: "3.11.6"}, musl), "CVE-2019-14697", "musl")
	if f == nil || f.FixedVersion != "1.1.23-r2" || f.Source != SourceAlpine {
		t.Errorf("3.11 musl: %+v", f)
	}
	if res := v311.Match(Host{OSID: "alpine", VersionID: "3.16.3"}, musl); res.Coverage != NotCovered {
		t.Errorf("3.16 with 3.11 data: %q", res.Coverage)
	}
	// The other shapes decode: current JSON, v3.15 YAML, Wolfi/Chainguard (no distroversion).
	secdbIndex(t, "format-samples/alpine-secdb-json/311-main.json", "format-samples/alpine-secdb-json/312-main.json",
		"format-samples/alpine-secdb-json/edge-main.json", "format-samples/alpine-secdb-yaml-v3.15/main.yaml",
		"format-samples/alpine-secdb-yaml-v3.15/community.yaml")
	f2, err := os.Open(advDir + "/alpine-secdb/format-samples/wolfi-secdb/wolfi_security.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	wolfi := NewIndex()
	if err := DecodeSecDB(f2, "wolfi", func(a Advisory) error { wolfi.Add(a); return nil }); err != nil {
		t.Fatal(err)
	}
	if !wolfi.Covers("wolfi", "rolling") || wolfi.Len() == 0 {
		t.Error("wolfi secdb not indexed")
	}
}

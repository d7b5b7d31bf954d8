package advisories

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
)

// osvDirs are the OSV folders of the shared data, with the Source their records get.
var osvDirs = map[string]string{
	"ubuntu-osv":                             "ubuntu",
	"redhat/almalinux-osv":                   "almalinux",
	"redhat/rocky-osv":                       "rocky",
	"redhat/redhat-osv":                      "redhat",
	"debian/osv":                             "debian",
	"alpine-secdb/format-samples/alpine-osv": "alpine",
	"ghsa-osv":                               "osv:",
}

func TestDecodeEverySharedOSVRecord(t *testing.T) {
	for dir, src := range osvDirs {
		n := 0
		err := ReadOSVDir(os.DirFS(advDir), dir, func(a Advisory) error {
			n++
			if a.ID == "" || len(a.Affected) == 0 || !strings.HasPrefix(string(a.Source), src) {
				t.Errorf("%s: %s source %q with %d affected", dir, a.ID, a.Source, len(a.Affected))
			}
			if a.Published.IsZero() {
				t.Errorf("%s: %s without published time", dir, a.ID)
			}
			for _, e := range a.Affected {
				if e.Package == "" || (src != "osv:" && (e.Distro == "" || e.Release == "")) {
					t.Errorf("%s: %s entry %+v", dir, a.ID, e)
				}
			}
			return nil
		})
		if err != nil || n == 0 {
			t.Errorf("%s: %d records, %v", dir, n, err)
		}
	}
}

// decodeFile decodes one shared OSV file.
func decodeFile(t *testing.T, rel string) Advisory {
	t.Helper()
	f, err := os.Open(advDir + "/" + rel)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := DecodeOSV(f)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return a
}

func entry(t *testing.T, a Advisory, eco, pkg string) AffectedPackage {
	t.Helper()
	for _, e := range a.Affected {
		if e.Ecosystem == eco && e.Package == pkg {
			return e
		}
	}
	t.Fatalf("%s: no %s %s", a.ID, eco, pkg)
	return AffectedPackage{}
}

func TestOSVUbuntuShapes(t *testing.T) {
	// Old layout: binaries is a one-element list holding a {name: version} map; unfixed Pro entries.
	old := decodeFile(t, "ubuntu-osv/osv/CVE-2022-3602.json")
	e := entry(t, old, "Ubuntu:18.04:LTS", "openssl")
	if e.Binaries["libssl1.1"] != "1.1.1-1ubuntu2.1~18.04.20" || !e.IsSource || e.Release != "18.04" || e.ProOnly {
		t.Errorf("old shape: %+v", e)
	}
	edk := entry(t, old, "Ubuntu:Pro:16.04:LTS", "edk2")
	if edk.FixState != NotFixed || edk.Fixed != "" || !edk.ProOnly || edk.Release != "16.04" {
		t.Errorf("unfixed Pro entry: %+v", edk)
	}
	if !slices.Equal(old.CVEs, []string{"CVE-2022-3602"}) {
		t.Errorf("CVEs %v", old.CVEs)
	}
	// New layout: {binary_name, binary_version}; upstream UBUNTU-CVE ids; cves_map.
	usn := decodeFile(t, "ubuntu-osv/osv/usn/USN-6719-1.json")
	if b := entry(t, usn, "Ubuntu:22.04:LTS", "util-linux").Binaries["bsdutils"]; b != "1:2.37.2-4ubuntu3.3" {
		t.Errorf("bsdutils binary version %q", b)
	}
	if !slices.Equal(usn.CVEs, []string{"CVE-2024-28085"}) || !slices.Contains(usn.Aliases, "UBUNTU-CVE-2024-28085") {
		t.Errorf("USN-6719-1 ids %v %v", usn.CVEs, usn.Aliases)
	}
	shadow := decodeFile(t, "ubuntu-osv/osv/usn/USN-5745-1.json")
	if c := entry(t, shadow, "Ubuntu:22.04:LTS", "shadow").CVEs; !slices.Equal(c, []string{"CVE-2013-4235"}) {
		t.Errorf("cves_map 22.04: %v", c)
	}
	if c := entry(t, shadow, "Ubuntu:18.04:LTS", "shadow").CVEs; c != nil {
		t.Errorf("empty cves_map should leave the advisory's CVEs: %v", c)
	}
	cve := decodeFile(t, "ubuntu-osv/osv/cve/2023/UBUNTU-CVE-2023-4911.json")
	if !slices.Equal(cve.CVEs, []string{"CVE-2023-4911"}) || !slices.Contains(cve.Aliases, "USN-6409-1") || cve.Severity != "high" {
		t.Errorf("UBUNTU-CVE: %v %v %q", cve.CVEs, cve.Aliases, cve.Severity)
	}
}

func TestOSVDistroShapes(t *testing.T) {
	alma := decodeFile(t, "redhat/almalinux-osv/almalinux8/ALSA-2024:3214.json")
	if e := entry(t, alma, "AlmaLinux:8", "gmp"); e.Fixed != "1:6.1.2-11.el8" || e.IsSource || e.Scheme != SchemeRPM || e.Distro != "almalinux" || e.Release != "8" {
		t.Errorf("alma: %+v", e)
	}
	if alma.Source != SourceAlmaLinux || alma.Severity != "moderate" || !slices.Equal(alma.CVEs, []string{"CVE-2021-43618"}) {
		t.Errorf("alma: %q %q %v", alma.Source, alma.Severity, alma.CVEs)
	}
	rh := decodeFile(t, "redhat/redhat-osv/RHSA-2024:8709.json")
	if e := rh.Affected[0]; e.Distro != "rhel" || e.Release != "9" || e.Fixed != "2:4.4.1-21.el9_2" {
		t.Errorf("red hat: %+v", e)
	}
	rocky := decodeFile(t, "redhat/rocky-osv/RLSA-2021_3891.json")
	if e := rocky.Affected[0]; e.Distro != "rocky" || e.Release != "8" || rocky.Source != SourceRocky {
		t.Errorf("rocky: %+v", e)
	}
	deb := decodeFile(t, "debian/osv/DSA-3029-1.json")
	if e := deb.Affected[0]; e.Distro != "debian" || e.Release != "7" || e.Package != "nginx" || !e.IsSource || e.Fixed == "" {
		t.Errorf("debian osv: %+v", e)
	}
	alp := decodeFile(t, "alpine-secdb/format-samples/alpine-osv/CVE-2023-46850.json")
	if e := alp.Affected[0]; e.Distro != "alpine" || e.Release != "3.18" || e.Scheme != SchemeAPK {
		t.Errorf("alpine osv: %+v", e)
	}
}

func TestOSVGHSAShapes(t *testing.T) {
	// {"fixed": ""} must neither crash nor become an open range.
	bad := decodeFile(t, "ghsa-osv/GHSA-3vqj-43w4-2q58.json")
	for _, e := range bad.Affected {
		for _, r := range e.Ranges {
			if r.Fixed == "" && r.LastAffected == "" {
				t.Errorf("malformed fixed became an open range: %+v", r)
			}
		}
	}
	multi := decodeFile(t, "ghsa-osv/GHSA-564r-hj7v-mcr5.json")
	if len(multi.Affected) < 3 || multi.Source != OSVSource("Maven") || multi.Severity == "" {
		t.Errorf("GHSA-564r: %d entries, %q %q", len(multi.Affected), multi.Source, multi.Severity)
	}
}

// TestOSVZipDump builds an all.zip from the shared Ubuntu and AlmaLinux records and reads it
// back: the same advisories as the directory.
func TestOSVZipDump(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	fsys := os.DirFS(advDir)
	var want []string
	for _, dir := range []string{"ubuntu-osv", "redhat/almalinux-osv/almalinux9"} {
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			w, err := zw.Create(path.Base(p))
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := ReadOSVDir(fsys, dir, func(a Advisory) error { want = append(want, a.ID); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := zw.Create("README.txt"); err != nil { // not a record: skipped
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := ReadOSVZip(bytes.NewReader(buf.Bytes()), int64(buf.Len()), func(a Advisory) error {
		got = append(got, a.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(got) != 37+53 {
		t.Errorf("zip gave %d records, directory %d", len(got), len(want))
	}
	if err := ReadOSVZip(bytes.NewReader([]byte("not a zip")), 9, func(Advisory) error { return nil }); err == nil {
		t.Error("a non-zip read without error")
	}
}

// TestGHSAReadmeCases reproduces the GHSA hand-checked results for the shared SBOM components.
func TestGHSAReadmeCases(t *testing.T) {
	ix := NewIndex()
	loadOSVDir(t, ix, "ghsa-osv")
	type c struct {
		eco, name, version string
		affected, clean    []string
	}
	for _, tc := range []c{
		{"Maven", "com.fasterxml.jackson.core:jackson-databind", "2.10.1",
			[]string{"GHSA-288c-cq4h-88gq", "GHSA-57j2-w4cx-62h2", "GHSA-jjjh-jjxp-wpff", "GHSA-rgv9-q543-rqg4"},
			[]string{"GHSA-gww7-p5w4-wrfv", "GHSA-4w82-r329-3q67"}},
		{"Maven", "log4j:log4j", "1.2.17", []string{"GHSA-2qrg-x229-3v8q", "GHSA-w9p3-5cr8-m3jj"}, nil},
		{"Maven", "com.h2database:h2", "1.4.197", []string{"GHSA-h376-j262-vhq6", "GHSA-45hx-wfhj-473x"}, []string{"GHSA-22wj-vf5f-wrvj"}},
		{"Maven", "org.dom4j:dom4j", "2.1.3", nil, []string{"GHSA-hwj3-m3p6-hj38"}},
		{"Maven", "org.springframework:spring-beans", "5.0.9.RELEASE", []string{"GHSA-36p3-wjmg-h94x"}, nil},
		{"Maven", "org.eclipse.jetty:jetty-server", "9.4.27.v20200227", []string{"GHSA-p26g-97m4-6q7c", "GHSA-qw69-rqj8-6qw8"}, nil},
		{"Packagist", "guzzlehttp/psr7", "1.9.0", []string{"GHSA-wxmh-65f7-jcvw"}, []string{"GHSA-q7rv-6hp3-vh96"}},
		{"Packagist", "guzzlehttp/guzzle", "6.5.8", nil, []string{"GHSA-q559-8m2m-g699", "GHSA-25mq-v84q-4j7r"}},
		{"Packagist", "laravel/framework", "v7.30.6", nil, []string{"GHSA-66hf-2p6w-jqfw", "GHSA-3p32-j457-pg5x"}},
		{"Packagist", "symfony/http-kernel", "v5.4.16", []string{"GHSA-h7vf-5wrv-9fhv"}, nil},
		{"Go", "golang.org/x/net", "v0.0.0-20210405180319-a5a99cb37ef4", []string{"GHSA-69cg-p879-7622", "GHSA-4374-p667-p6c8"}, []string{"GHSA-vc3p-29h2-gpcp"}},
		{"Go", "golang.org/x/text", "v0.3.5-0.20201125200606-c27b9fd57aec", []string{"GHSA-ppp9-7jff-5vj2"}, []string{"GHSA-5rcv-m4m3-hfh7"}},
		{"Go", "github.com/dgrijalva/jwt-go", "v3.2.0", []string{"GHSA-w73w-5m7g-f7qc"}, nil},
		{"Go", "github.com/go-resty/resty/v2", "v2.6.0", nil, []string{"GHSA-xwh9-gc39-5298"}},
	} {
		res := ix.MatchEcosystem(tc.eco, []Installed{{Name: tc.name, Version: tc.version}})
		for _, p := range res.Problems {
			t.Errorf("%s: %v", tc.name, p)
		}
		for _, id := range tc.affected {
			if finding(res, id, tc.name) == nil {
				t.Errorf("%s %s: not affected by %s", tc.name, tc.version, id)
			}
		}
		for _, id := range tc.clean {
			if f := finding(res, id, tc.name); f != nil {
				t.Errorf("%s %s: wrongly affected by %s: %+v", tc.name, tc.version, id, *f)
			}
		}
	}
}

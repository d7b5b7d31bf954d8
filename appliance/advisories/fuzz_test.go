package advisories

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// seed adds shared files (at most limit bytes of each) to a fuzz corpus.
func seed(f *testing.F, limit int, files ...string) {
	for _, file := range files {
		b, err := os.ReadFile(advDir + "/" + file)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > limit {
			b = b[:limit]
		}
		f.Add(b)
	}
}

// exercise matches a few packages against what was decoded: never a panic.
func exercise(advs []Advisory) {
	ix := NewIndex()
	for _, a := range advs {
		ix.Add(a)
	}
	pkgs := []Installed{{Name: "openssl", Version: "1.0-1"}, {Name: "libc6:amd64", Version: "2.35-0ubuntu3.1"}}
	for _, h := range []Host{{OSID: "ubuntu", VersionID: "22.04"}, {OSID: "debian", VersionID: "11"},
		{OSID: "rocky", VersionID: "9.6"}, {OSID: "alpine", VersionID: "3.11.6"}} {
		ix.Match(h, pkgs)
	}
	ix.MatchEcosystem("npm", pkgs)
}

func FuzzDecodeOSV(f *testing.F) {
	seed(f, 1<<20, "ubuntu-osv/osv/CVE-2022-3602.json", "ubuntu-osv/osv/usn/USN-6719-1.json",
		"ubuntu-osv/osv/cve/2023/UBUNTU-CVE-2023-4911.json", "redhat/almalinux-osv/almalinux8/ALSA-2024:3214.json",
		"redhat/redhat-osv/RHSA-2024:8709.json", "debian/osv/DSA-3029-1.json",
		"alpine-secdb/format-samples/alpine-osv/CVE-2023-46850.json", "ghsa-osv/GHSA-3vqj-43w4-2q58.json",
		"ghsa-osv/GHSA-564r-hj7v-mcr5.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeOSV(bytes.NewReader(b))
		if err != nil {
			return
		}
		if a.ID == "" {
			t.Fatal("decoded a record without id")
		}
		exercise([]Advisory{a})
	})
}

func FuzzDecodeDebianTracker(f *testing.F) {
	seed(f, 1<<20, trackerFiles...)
	f.Fuzz(func(t *testing.T, b []byte) {
		var advs []Advisory
		_ = DecodeDebianTracker(bytes.NewReader(b), func(a Advisory) error { advs = append(advs, a); return nil })
		exercise(advs)
	})
}

func FuzzDecodeDebianList(f *testing.F) {
	seed(f, 8<<10, "debian/security-tracker-lists/DSA/list", "debian/security-tracker-lists/DLA/list")
	f.Add([]byte("CVE-2023-5981 (A vulnerability …)\n\t{DLA-3660-1}\n\t- gnutls28 3.8.2-1 (bug #1056188)\n\t[bookworm] - gnutls28 3.7.9-2+deb12u1\n\t[buster] - gnutls28 <no-dsa> (Minor issue)\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var advs []Advisory
		_ = DecodeDebianList(bytes.NewReader(b), func(a Advisory) error { advs = append(advs, a); return nil })
		for _, a := range advs {
			if a.ID == "" {
				t.Fatal("an advisory without id")
			}
		}
		exercise(advs)
	})
}

func FuzzDecodeSecDB(f *testing.F) {
	seed(f, 16<<10, "alpine-secdb/v3.11/main.yaml", "alpine-secdb/format-samples/alpine-secdb-json/312-main.json",
		"alpine-secdb/format-samples/wolfi-secdb/wolfi_security.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		var advs []Advisory
		_ = DecodeSecDB(bytes.NewReader(b), "alpine", func(a Advisory) error { advs = append(advs, a); return nil })
		exercise(advs)
	})
}

// TestSecDBNeverAffectedKey: "0" (a YAML integer key, or a JSON string) means never affected.
func TestSecDBNeverAffectedKey(t *testing.T) {
	for _, doc := range []string{
		"distroversion: v3.20\npackages:\n- pkg:\n    name: zlib\n    secfixes:\n      0:\n      - CVE-2023-45853\n      1.3-r1:\n      - CVE-2022-37434\n",
		`{"distroversion":"v3.20","packages":[{"pkg":{"name":"zlib","secfixes":{"0":["CVE-2023-45853"],"1.3-r1":["CVE-2022-37434"]}}}]}`,
	} {
		ix := NewIndex()
		if err := DecodeSecDB(strings.NewReader(doc), "alpine", func(a Advisory) error { ix.Add(a); return nil }); err != nil {
			t.Fatal(err)
		}
		res := ix.Match(Host{OSID: "alpine", VersionID: "3.20.1"}, []Installed{{Name: "zlib", Version: "1.2.13-r0"}})
		if len(res.Findings) != 1 || res.Findings[0].AdvisoryID != "CVE-2022-37434" {
			t.Errorf("findings %+v", res.Findings)
		}
	}
}

package collect

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

type syftDoc struct {
	Artifacts []struct {
		Name     string `json:"name"`
		Version  string `json:"version"`
		Type     string `json:"type"`
		Metadata struct {
			Origin     string `json:"originPackage"`
			Maintainer string `json:"maintainer"`
			Arch       string `json:"architecture"`
		} `json:"metadata"`
	} `json:"artifacts"`
	Distro struct {
		PrettyName string `json:"prettyName"`
		Name       string `json:"name"`
		ID         string `json:"id"`
		VersionID  string `json:"versionID"`
	} `json:"distro"`
}

// An Alpine root built from the real Alpine image list: every apk package and the OS fields.
func TestAlpineHostFromRealList(t *testing.T) {
	b, err := os.ReadFile("../../../shared/data/inventory/syft_alpine-image.syft.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc syftDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var db strings.Builder
	want := map[string]Product{}
	for _, a := range doc.Artifacts {
		if a.Type != "apk" {
			continue
		}
		m := a.Metadata
		fmt.Fprintf(&db, "C:Q1abc=\nP:%s\nV:%s\nA:%s\nS:1000\nT:description\no:%s\nm:%s\nF:usr/bin\nR:file\n\n",
			a.Name, a.Version, m.Arch, m.Origin, m.Maintainer)
		p := Product{Product: a.Name, Version: a.Version, Arch: m.Arch, Vendor: m.Maintainer, Source: "apk"}
		if m.Origin != a.Name {
			p.SourcePackage = m.Origin
		}
		want[a.Name] = p
	}
	d := doc.Distro
	osRelease := fmt.Sprintf("NAME=%q\nID=%s\nVERSION_ID=%s\nPRETTY_NAME=%q\nHOME_URL=\"https://alpinelinux.org/\"\n",
		d.Name, d.ID, d.VersionID, d.PrettyName)
	fsys := mapFS(map[string]string{apkInstalled: db.String(), "etc/os-release": osRelease,
		"proc/sys/kernel/osrelease": "6.1.0-25-amd64\n"})
	o, prods, err := Collect(Host{FS: fsys, GOOS: "linux", Arch: "amd64"})
	if err != nil {
		t.Fatal(err)
	}
	wantOS := OS{Name: d.PrettyName, Version: d.VersionID, ID: "alpine", VersionID: d.VersionID, Arch: "amd64", Kernel: "6.1.0-25-amd64"}
	if o != wantOS {
		t.Errorf("os %+v, want %+v", o, wantOS)
	}
	if len(prods) != len(want) || len(want) < 10 {
		t.Fatalf("%d products, want %d", len(prods), len(want))
	}
	for _, p := range prods {
		w := want[p.Product]
		w.PURL = "pkg:apk/alpine/" + p.Product + "@" + strings.ReplaceAll(p.Version, "+", "%2B") + "?arch=" + w.Arch + "&distro=alpine-" + d.VersionID
		if p != w {
			t.Errorf("got %+v\nwant %+v", p, w)
		}
	}
}

func TestOSReleaseQuotingAndFallback(t *testing.T) {
	o, err := OSRelease(mapFS(map[string]string{"usr/lib/os-release": `# comment
PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
`}))
	if err != nil {
		t.Fatal(err)
	}
	want := OS{Name: "Debian GNU/Linux 12 (bookworm)", Version: "12 (bookworm)", ID: "debian", VersionID: "12", Codename: "bookworm"}
	if o != want {
		t.Fatalf("got %+v want %+v", o, want)
	}
}

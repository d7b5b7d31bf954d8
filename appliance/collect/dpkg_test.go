package collect

import (
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// This machine's dpkg database against dpkg-query: the same installed packages and versions.
func TestDpkgMatchesDpkgQuery(t *testing.T) {
	out, err := exec.Command("dpkg-query", "-W", "-f=${db:Status-Status}\t${Package}\t${Version}\t${Architecture}\n").Output()
	if err != nil {
		t.Fatalf("dpkg-query: %v", err)
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		status, rest, _ := strings.Cut(line, "\t")
		if status == "installed" {
			want = append(want, rest)
		}
	}
	prods, err := Dpkg(os.DirFS("/"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range prods {
		if p.Source != "deb" || p.Vendor == "" {
			t.Errorf("%s: source %q vendor %q", p.Product, p.Source, p.Vendor)
		}
		got = append(got, p.Product+"\t"+p.Version+"\t"+p.Arch)
	}
	sort.Strings(want)
	sort.Strings(got)
	if len(want) < 50 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("dpkg: %d packages, dpkg-query: %d installed; first difference %q", len(got), len(want), firstDiff(got, want))
	}
}

func TestDpkgSourceAndStatus(t *testing.T) {
	status := `Package: libssl3
Status: install ok installed
Architecture: amd64
Maintainer: Debian OpenSSL Team <pkg-openssl-devel@alioth-lists.debian.net>
Source: openssl (3.0.15-1~deb12u1)
Version: 3.0.15-1~deb12u1+b1
Description: Secure Sockets Layer toolkit
 This package is part of the OpenSSL project.

Package: removed-one
Status: deinstall ok config-files
Version: 1.0
Architecture: all

Package: bash
Status: install ok installed
Maintainer: Matthias Klose <doko@debian.org>
Architecture: amd64
Version: 5.2.15-2+b7
`
	prods, err := Dpkg(mapFS(map[string]string{dpkgStatus: status}))
	if err != nil {
		t.Fatal(err)
	}
	want := []Product{
		{Vendor: "Debian OpenSSL Team <pkg-openssl-devel@alioth-lists.debian.net>", Product: "libssl3",
			Version: "3.0.15-1~deb12u1+b1", Source: "deb", SourcePackage: "openssl", SourceVersion: "3.0.15-1~deb12u1", Arch: "amd64"},
		{Vendor: "Matthias Klose <doko@debian.org>", Product: "bash", Version: "5.2.15-2+b7", Source: "deb", Arch: "amd64"},
	}
	if len(prods) != len(want) || prods[0] != want[0] || prods[1] != want[1] {
		t.Fatalf("got %+v\nwant %+v", prods, want)
	}
}

func firstDiff(a, b []string) string {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return a[i]
		}
	}
	if len(b) > len(a) {
		return b[len(a)]
	}
	return ""
}

package inventory

import (
	"strings"
	"testing"
	"unicode"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestUpstreamVersion(t *testing.T) {
	for in, want := range map[string]string{
		"1.1.1n-0+deb11u5":      "1.1.1n",
		"1:2.44-1build3":        "2.44",
		"2.36-9+deb12u9":        "2.36",
		"1:1.2.13.dfsg-1":       "1.2.13",
		"1.34+dfsg-1.2+deb12u1": "1.34",
		"1.1.1k-12.el8_9":       "1.1.1k",
		"1:3.2.2-6.el9_5.1":     "3.2.2",
		"1.2.3-r3":              "1.2.3",
		"3.134":                 "3.134",
	} {
		if got := upstreamVersion(in); got != want {
			t.Errorf("upstreamVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestClassifyInfers checks what the server infers when a host reports only os name and
// version and its items carry no source, and that it says it inferred.
func TestClassifyInfers(t *testing.T) {
	e := &Engine{}
	cases := []struct {
		osName, osVersion string
		item              Item
		wantOS            appliance.HostOS
		wantPkg           appliance.PackageInfo
	}{
		{"Debian GNU/Linux", "11 (bullseye)", Item{Vendor: "Debian OpenSSL Team", Product: "libssl1.1", Version: "1.1.1n-0+deb11u5"},
			appliance.HostOS{ID: "debian", VersionID: "11", Inferred: "id,version_id"},
			appliance.PackageInfo{Source: "deb", Release: "debian:11", Inferred: "source"}},
		{"Ubuntu", "22.04.4 LTS", Item{Vendor: "Ubuntu Developers <ubuntu-devel-discuss@lists.ubuntu.com>", Product: "bash", Version: "5.1-6ubuntu1"},
			appliance.HostOS{ID: "ubuntu", VersionID: "22.04.4", Inferred: "id,version_id"},
			appliance.PackageInfo{Source: "deb", Release: "ubuntu:22.04", Inferred: "source"}},
		{"Rocky Linux", "8.7 (Green Obsidian)", Item{Product: "openssl-libs", Version: "1.1.1k-7.el8_7"},
			appliance.HostOS{ID: "rocky", VersionID: "8.7", Inferred: "id,version_id"},
			appliance.PackageInfo{Source: "rpm", Release: "rocky:8", Inferred: "source"}},
		{"Alpine Linux", "3.19.1", Item{Product: "musl", Version: "1.2.4_git20230717-r4"},
			appliance.HostOS{ID: "alpine", VersionID: "3.19.1", Inferred: "id,version_id"},
			appliance.PackageInfo{Source: "apk", Release: "alpine:3.19", Inferred: "source"}},
		{"macOS", "14.5", Item{Product: "Google Chrome.app", Version: "126.0.6478.127"},
			appliance.HostOS{ID: "macos", VersionID: "14.5", Inferred: "id,version_id"},
			appliance.PackageInfo{Source: "macos", Inferred: "source"}},
		{"Microsoft Windows 10 Pro", "10.0.19045", Item{Vendor: "Python Software Foundation", Product: "Python 3.9.1 (64-bit)", Version: "3.9.1150.0"},
			appliance.HostOS{ID: "windows", Inferred: "id"}, appliance.PackageInfo{}},
	}
	for _, c := range cases {
		rep := Report{OSName: c.osName, OSVersion: c.osVersion, Items: []Item{c.item}}
		e.classify(&rep)
		if rep.OS != c.wantOS || rep.Items[0].Package != c.wantPkg {
			t.Errorf("%s %s / %s: os %+v package %+v, want %+v %+v", c.osName, c.osVersion, c.item.Product,
				rep.OS, rep.Items[0].Package, c.wantOS, c.wantPkg)
		}
	}
	// Reported facts are kept and nothing is said to be inferred.
	rep := Report{OS: appliance.HostOS{ID: "Ubuntu", VersionID: "22.04"}, Items: []Item{{Product: "libssl3", Version: "3.0.2-0ubuntu1.6",
		Package: appliance.PackageInfo{Source: "deb", SourcePackage: "openssl"}}}}
	e.classify(&rep)
	if rep.OS.Inferred != "" || rep.Items[0].Package != (appliance.PackageInfo{Source: "deb", SourcePackage: "openssl", Release: "ubuntu:22.04"}) {
		t.Errorf("reported facts: os %+v package %+v", rep.OS, rep.Items[0].Package)
	}
}

// TestCleanTextFastPathAgrees: the shortcut for text that needs no cleaning returns what the
// full fold returns, for clean and unclean text alike.
func TestCleanTextFastPathAgrees(t *testing.T) {
	fold := func(s string) string {
		return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	}
	for _, s := range []string{"", "a", "Google Chrome", " lead", "trail ", "two  spaces", "tab\there", "new\nline", "nul\x00",
		"del\x7f", "Müller GmbH", "non\u00a0breaking", "x64 (en-US)", " ", "a b c", "\u2028sep"} {
		if got, want := cleanText(s), fold(s); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", s, got, want)
		}
	}
}

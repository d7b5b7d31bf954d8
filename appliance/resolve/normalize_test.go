package resolve

import (
	"os"
	"strings"
	"testing"
	"unicode"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		vendor, product string
		want            Key
	}{
		{"Mozilla", "Mozilla Firefox (x64 en-US)", Key{"mozilla", "firefox"}},
		{"Igor Pavlov", "7-Zip 23.01 (x64)", Key{"igor_pavlov", "7-zip"}},
		{"Notepad++ Team", "Notepad++ (64-bit x64)", Key{"notepad++", "notepad++"}},
		{"", `notepad\+\+`, Key{"", "notepad++"}},
		{"Microsoft Corporation", "Microsoft Visual C++ 2015-2022 Redistributable (x64) - 14.38.33130",
			Key{"microsoft", "visual_c++_redistributable"}},
		{"Google LLC", "Google Chrome", Key{"google", "chrome"}},
		{"Zoom Video Communications, Inc.", "Zoom", Key{"zoom_video", "zoom"}},
		{"Simon Tatham", "PuTTY release 0.79 (64-bit)", Key{"simon_tatham", "putty"}},
		{"The Apache Software Foundation", "Apache Tomcat 9.0 Tomcat9 (remove only)", Key{"apache", "tomcat"}},
		{"Microsoft Corporation", "Microsoft .NET Runtime - 8.0.0 (x64)", Key{"microsoft", ".net_runtime"}},
		{"Microsoft Corporation", "Microsoft 365 Apps for enterprise - en-us", Key{"microsoft", "365_apps"}},
		{"JetBrains s.r.o.", "PyCharm Community Edition 2023.3", Key{"jetbrains", "pycharm"}},
		{"PostgreSQL Global Development Group", "PostgreSQL 15", Key{"postgresql_global", "postgresql_15"}},
		{"", "libssl3:amd64", Key{"", "libssl3"}},
		{"", "OpenSSL 1.1.1w  11 Sep 2023", Key{"", "openssl_11_sep_2023"}},
		{"Oracle Corporation", "Java(TM) SE Development Kit 17.0.9 (64-bit)", Key{"oracle", "java_se_development_kit"}},
		{"", "R", Key{"", "r"}},                                   // only a noise word: the name itself
		{"", "Microsoft R Open 4.0.2", Key{"", "microsoft_open"}}, // "R" among other words is noise
	}
	for _, tt := range tests {
		if got := Normalize(tt.vendor, tt.product); got != tt.want {
			t.Errorf("Normalize(%q, %q) = %+v, want %+v", tt.vendor, tt.product, got, tt.want)
		}
	}
}

func TestIsVersion(t *testing.T) {
	tests := map[string]bool{
		"23.01": true, "2015-2022": true, "1.1.1w": true, "v2": true, "6.0.25+1": true, "2.6.8-i001": true,
		"365": false, "2016": false, "7-zip": false, "x64": false, "v": false, "": false, "python3": false,
	}
	for word, want := range tests {
		if got := isVersion(word); got != want {
			t.Errorf("isVersion(%q) = %v, want %v", word, got, want)
		}
	}
}

func TestProductSpellingsOfPackages(t *testing.T) {
	tests := []struct {
		name string
		want string // must be among the spellings
	}{
		{"libssl3", "openssl"}, {"libidn2-0", "libidn2"}, {"zlib1g", "zlib"}, {"openssh-server", "openssh"},
		{"libgmp10", "gmp"}, {"libc6", "glibc"}, {"python3", "python"}, {"libdb5.3", "berkeley_db"},
		{"krb5-libs", "kerberos_5"}, {"gcc-12-base", "gcc"},
	}
	for _, tt := range tests {
		got := productSpellings([]string{tt.name})
		if !contains(got, tt.want) {
			t.Errorf("productSpellings(%q) = %v, want it to contain %q", tt.name, got, tt.want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// FuzzNormalize: any input gives components of non-empty words without spaces.
func FuzzNormalize(f *testing.F) {
	for _, c := range evalSeeds(f) {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, vendor, product string) {
		k := Normalize(vendor, product)
		for _, s := range []string{k.Vendor, k.Product} {
			if strings.IndexFunc(s, unicode.IsSpace) >= 0 || strings.Contains(s, "__") ||
				strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") {
				t.Fatalf("Normalize(%q, %q) = %+v: spaces or empty words", vendor, product, k)
			}
		}
	})
}

// evalSeeds reads the reported names of the accuracy set (kbindex/testdata/eval.tsv).
func evalSeeds(f *testing.F) [][2]string {
	data, err := os.ReadFile("../../kbindex/testdata/eval.tsv")
	if err != nil {
		f.Fatalf("seeds: %v", err)
	}
	var seeds [][2]string
	for _, line := range strings.Split(string(data), "\n") {
		cols := strings.Split(line, "\t")
		if len(cols) == 4 && !strings.HasPrefix(line, "#") {
			seeds = append(seeds, [2]string{cols[1], cols[2]})
		}
	}
	return seeds
}

package criticality

import (
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestDefaultsAndGlobs(t *testing.T) {
	rules := MustCompile(Defaults)
	tests := []struct {
		p    appliance.Product
		want int
	}{
		{appliance.Product{Name: "nginx"}, 5},
		{appliance.Product{Name: "Apache HTTP Server 2.4"}, 5},
		{appliance.Product{Name: "apache", Identity: appliance.Identity{Vendor: "apache", Product: "http_server"}}, 5},
		{appliance.Product{Name: "openssh-server"}, 5},
		{appliance.Product{Name: "libssl3", Package: appliance.PackageInfo{SourcePackage: "openssl"}}, 4},
		{appliance.Product{Name: "Microsoft SQL Server 2019"}, 4},
		{appliance.Product{Name: "Google Chrome"}, 3},
		{appliance.Product{Name: "Notepad++"}, Default},
		{appliance.Product{Name: "pseudo-tool"}, Default}, // "sudo" is the whole name only
	}
	for _, tt := range tests {
		if got := rules.For(tt.p); got != tt.want {
			t.Errorf("%+v: %d, want %d", tt.p, got, tt.want)
		}
	}
	own := MustCompile([]appliance.CriticalityRule{{Pattern: "a?c", Criticality: 5}, {Pattern: "a.c*", Criticality: 4}})
	for name, want := range map[string]int{"ABC": 5, "abbc": Default, "a.cx": 4, "axcx": Default} {
		if got := own.For(appliance.Product{Name: name}); got != want {
			t.Errorf("%s: %d, want %d", name, got, want)
		}
	}
	if _, err := Compile([]appliance.CriticalityRule{{Pattern: "x", Criticality: 0}}); err == nil {
		t.Error("criticality 0 accepted")
	}
}

func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		pattern, name string
		want          bool
	}{
		{"*server*", "microsoft sql server 2019", true}, {"*a*b", "aaab", true}, {"a*b*c", "abbbc", true},
		{"a*b*c", "abbb", false}, {"*", "", true}, {"?", "é", true}, {"??", "é", false}, {"", "", true},
		{"x", "", false}, {"nginx*", "nginx-core", true}, {"*httpd*", "apache httpd", true}, {"*x", "xxy", false},
	} {
		if got := match([]rune(tt.pattern), []rune(tt.name)); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

// The string tests of patterns with outer stars only agree with matching rune by rune.
func TestPatternFastPathAgrees(t *testing.T) {
	patterns := []string{"*server*", "nginx*", "*httpd", "sudo", "*", "**", "*a*b", "a?c", "é*", "*é*", "", "x*y", "*.*"}
	names := []string{"", "sudo", "pseudo", "microsoft sql server 2019", "nginx-core", "apache httpd", "httpd-tools",
		"é", "éa", "aé", "a.c", "axc", "xy", "x-y", "ab", "aab", "*"}
	for _, p := range patterns {
		fast := compilePattern(p)
		for _, n := range names {
			want := match([]rune(p), []rune(n))
			var runes []rune
			if got := fast.matches(n, &runes); got != want {
				t.Errorf("pattern %q (kind %d) on %q: %v, match says %v", p, fast.kind, n, got, want)
			}
		}
	}
}

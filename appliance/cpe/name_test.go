package cpe

import (
	"errors"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// app fills a Name for part "a" whose trailing components are Any.
func app(vendor, product, version string) Name {
	return Name{Part: "a", Vendor: vendor, Product: product, Version: version, Update: Any,
		Edition: Any, Language: Any, SWEdition: Any, TargetSW: Any, TargetHW: Any, Other: Any}
}

func TestParse(t *testing.T) {
	withTarget := app("2glux", "com_sexypolling", "0.9.1")
	withTarget.Update, withTarget.Edition, withTarget.SWEdition, withTarget.TargetSW = NA, NA, NA, "joomla!"
	tests := []struct {
		name, in string
		want     Name
	}{
		{"plain", "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*", app("openssl", "openssl", "1.1.1k")},
		{"escaped plus", `cpe:2.3:a:notepad-plus-plus:notepad\+\+:8.1:*:*:*:*:*:*:*`, app("notepad-plus-plus", "notepad++", "8.1")},
		{"escaped colon", `cpe:2.3:a:cgiirc:cgi\:irc:0.5.8:*:*:*:*:*:*:*`, app("cgiirc", "cgi:irc", "0.5.8")},
		{"escaped dot and bang", `cpe:2.3:a:nodejs:node\.js:\!1:*:*:*:*:*:*:*`, app("nodejs", "node.js", "!1")},
		{"escaped backslash", `cpe:2.3:a:x:back\\slash:1:*:*:*:*:*:*:*`, app("x", `back\slash`, "1")},
		{"escaped star inside", `cpe:2.3:a:content\*builder:content\*builder:0.7.5:*:*:*:*:*:*:*`, app("content*builder", "content*builder", "0.7.5")},
		{"cisco parens", `cpe:2.3:o:cisco:ios:12.1\(12c\)e7:*:*:*:*:*:*:*`, osName("cisco", "ios", "12.1(12c)e7")},
		{"unquoted punctuation tolerated", "cpe:2.3:a:notepad-plus-plus:notepad++:8.1:*:*:*:*:*:*:*", app("notepad-plus-plus", "notepad++", "8.1")},
		{"upper-case prefix and part", "CPE:2.3:A:OpenSSL:OpenSSL:1.0:*:*:*:*:*:*:*", app("OpenSSL", "OpenSSL", "1.0")},
		{"all fields", "cpe:2.3:a:2glux:com_sexypolling:0.9.1:-:-:*:-:joomla\\!:*:*", withTarget},
		{"uri short", "cpe:/a:openssl:openssl:1.1.1k", app("openssl", "openssl", "1.1.1k")},
		{"uri vendor only", "cpe:/a:openssl", app("openssl", Any, Any)},
		{"uri empty update", "cpe:/a:openssl:openssl:1.1.1k::", app("openssl", "openssl", "1.1.1k")},
		{"uri percent", "cpe:/a:notepad-plus-plus:notepad%2b%2B:8.1", app("notepad-plus-plus", "notepad++", "8.1")},
		{"uri packed edition", "cpe:/a:2glux:com_sexypolling:0.9.1:-:~-~-~joomla%21~~", withTarget},
		{"uri os", "cpe:/o:cisco:ios:12.1%2812c%29e7", osName("cisco", "ios", "12.1(12c)e7")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Errorf("Parse(%q) = %#v, want %#v", tc.in, got, tc.want)
			}
		})
	}
}

func osName(vendor, product, version string) Name {
	n := app(vendor, product, version)
	n.Part = "o"
	return n
}

func TestParseRejectsMalformed(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"not cpe", "openssl:1.1.1k"},
		{"cpe 2.2 without slash", "cpe:a:openssl:openssl"},
		{"too few fields", "cpe:2.3:a:openssl:openssl:1.1.1k"},
		{"too many fields", "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*:*"},
		{"empty component", "cpe:2.3:a::openssl:1.1.1k:*:*:*:*:*:*:*"},
		{"trailing colon", "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:"},
		{"bad part", "cpe:2.3:x:openssl:openssl:1.1.1k:*:*:*:*:*:*:*"},
		{"space", "cpe:2.3:a:open ssl:openssl:1.1.1k:*:*:*:*:*:*:*"},
		{"non-ascii", "cpe:2.3:a:müller:tool:1:*:*:*:*:*:*:*"},
		{"control", "cpe:2.3:a:openssl:openssl:1.1\n:*:*:*:*:*:*:*"},
		{"dangling backslash", `cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:x\`},
		{"wildcard suffix", "cpe:2.3:a:openssl:open*:*:*:*:*:*:*:*:*"},
		{"question mark", "cpe:2.3:a:openssl:openss?:*:*:*:*:*:*:*:*"},
		{"uri too many", "cpe:/a:v:p:1:u:e:l:extra"},
		{"uri bad percent", "cpe:/a:v:p%2"},
		{"uri bad hex", "cpe:/a:v:p%zz"},
		{"uri wildcard", "cpe:/a:v:p%02"},
		{"uri encoded space", "cpe:/a:v:my%20product"},
		{"uri short packed edition", "cpe:/a:v:p:1::~a~b"},
		{"uri bad part", "cpe:/q:v:p"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.in)
			var verr *appliance.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Parse(%q) error = %v, want a ValidationError", tc.in, err)
			}
			if verr.Field != "cpe" || verr.Constraint != "format" {
				t.Errorf("error field/constraint = %q/%q", verr.Field, verr.Constraint)
			}
		})
	}
}

func TestParseErrorQuotesBoundedInput(t *testing.T) {
	_, err := Parse("cpe:2.3:" + strings.Repeat("a", 10000))
	if err == nil || len(err.Error()) > 400 {
		t.Fatalf("error = %v (length %d), want a short error", err, len(err.Error()))
	}
}

func TestStringRoundTrip(t *testing.T) {
	names := []Name{
		app("openssl", "openssl", "1.1.1k"),
		app("notepad-plus-plus", "notepad++", "8.1"),
		app("x", `a\b:c*d?e`, "1.0~rc1"),
		{Part: "h", Vendor: "cisco", Product: "asa_5505", Version: NA},
	}
	for _, n := range names {
		s := n.String()
		back, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if back != withAnyForEmpty(n) {
			t.Errorf("Parse(%q) = %#v, want %#v", s, back, n)
		}
	}
}

func withAnyForEmpty(n Name) Name {
	c := n.components()
	for i := range c {
		c[i] = orAny(c[i])
	}
	return nameOf(c)
}

func TestFormat(t *testing.T) {
	tests := []struct{ part, vendor, product, version, want string }{
		{"a", "openssl", "openssl", "1.1.1k", "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*"},
		{"a", "openssl", "openssl", "", "cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*"},
		{"a", "notepad-plus-plus", "notepad++", "8.1", `cpe:2.3:a:notepad-plus-plus:notepad\+\+:8.1:*:*:*:*:*:*:*`},
		{"o", "microsoft", "windows_10", "-", "cpe:2.3:o:microsoft:windows_10:-:*:*:*:*:*:*:*"},
		{"a", "nodejs", "node.js", "18.0.0", "cpe:2.3:a:nodejs:node.js:18.0.0:*:*:*:*:*:*:*"},
	}
	for _, tc := range tests {
		if got := Format(tc.part, tc.vendor, tc.product, tc.version); got != tc.want {
			t.Errorf("Format(%q, %q, %q, %q) = %q, want %q", tc.part, tc.vendor, tc.product, tc.version, got, tc.want)
		}
	}
}

package cpe

import "testing"

func TestEscapeAndUnescape(t *testing.T) {
	tests := []struct{ plain, escaped string }{
		{"openssl", "openssl"},
		{"notepad++", `notepad\+\+`},
		{"node.js", "node.js"},
		{"xerces-c++", `xerces-c\+\+`},
		{"dolibarr_erp/crm", `dolibarr_erp\/crm`},
		{"cgi:irc", `cgi\:irc`},
		{"rocks'n'diamonds", `rocks\'n\'diamonds`},
		{"12.1(12c)e7", `12.1\(12c\)e7`},
		{"$0.99_kindle_books", `\$0.99_kindle_books`},
		{`back\slash`, `back\\slash`},
		{"content*builder", `content\*builder`},
		{Any, Any},
		{NA, NA},
		{"", ""},
	}
	for _, tc := range tests {
		if got := Escape(tc.plain); got != tc.escaped {
			t.Errorf("Escape(%q) = %q, want %q", tc.plain, got, tc.escaped)
		}
		if got := Unescape(tc.escaped); got != tc.plain {
			t.Errorf("Unescape(%q) = %q, want %q", tc.escaped, got, tc.plain)
		}
	}
}

func TestUnescapeTolerates(t *testing.T) {
	tests := []struct{ in, want string }{
		{`node\.js`, "node.js"},
		{`a\-b`, "a-b"},
		{`trailing\`, `trailing\`},
		{"notepad++", "notepad++"},
	}
	for _, tc := range tests {
		if got := Unescape(tc.in); got != tc.want {
			t.Errorf("Unescape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestValidComponent(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"openssl", true},
		{"notepad++", true},
		{"node.js", true},
		{"cgi:irc", true},
		{"Microsoft", true},
		{"", false},
		{Any, false},
		{NA, false},
		{"open ssl", false},
		{"tab\there", false},
		{"müller", false},
	}
	for _, tc := range tests {
		if got := ValidComponent(tc.in); got != tc.want {
			t.Errorf("ValidComponent(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

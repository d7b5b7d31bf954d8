package cpe

import "testing"

// FuzzCPE feeds arbitrary text to Parse: it returns a Name or an error, never panics, and a
// Name it returns survives String and Parse unchanged. Escape and Unescape invert each other.
func FuzzCPE(f *testing.F) {
	criteria := realCriteria(f)
	for i := 0; i < len(criteria); i += 50 {
		f.Add(criteria[i])
	}
	pairs := dictionaryPairs(f)
	for i := 0; i < len(pairs); i += 500 {
		f.Add(pairs[i].uri)
	}
	f.Add(`cpe:2.3:a:notepad-plus-plus:notepad\+\+:8.1:*:*:*:*:*:*:*`)
	f.Add("cpe:/a:2glux:com_sexypolling:0.9.1:-:~-~-~joomla%21~~")
	f.Fuzz(func(t *testing.T, s string) {
		if got := Unescape(Escape(s)); got != s {
			t.Fatalf("Unescape(Escape(%q)) = %q", s, got)
		}
		n, err := Parse(s)
		if err != nil {
			return
		}
		formatted := n.String()
		back, err := Parse(formatted)
		if err != nil {
			t.Fatalf("Parse(%q) gave %#v whose String %q does not parse: %v", s, n, formatted, err)
		}
		if back != n {
			t.Fatalf("Parse(%q) = %#v, but Parse(String()) = %#v", s, n, back)
		}
	})
}

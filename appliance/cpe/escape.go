package cpe

import "strings"

// Escape quotes a component value for the formatted string binding: every character other
// than letters, digits, '_', '.' and '-' gets a backslash ("notepad++" → "notepad\+\+").
// The logical values Any and NA stay as they are.
func Escape(component string) string {
	if component == Any || component == NA || !needsEscape(component) {
		return component
	}
	var b strings.Builder
	b.Grow(len(component) + 4)
	writeEscaped(&b, component)
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if !passesUnquoted(s[i]) {
			return true
		}
	}
	return false
}

func writeEscaped(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if !passesUnquoted(s[i]) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
}

// passesUnquoted lists what a formatted string carries without a backslash.
func passesUnquoted(c byte) bool {
	return isAlnum(c) || c == '_' || c == '.' || c == '-'
}

// Unescape removes the backslash quoting of a formatted-string component ("notepad\+\+" →
// "notepad++"). A trailing lone backslash is kept.
func Unescape(component string) string {
	if strings.IndexByte(component, '\\') < 0 {
		return component
	}
	var b strings.Builder
	b.Grow(len(component))
	for i := 0; i < len(component); i++ {
		if component[i] == '\\' && i+1 < len(component) {
			i++
		}
		b.WriteByte(component[i])
	}
	return b.String()
}

// ValidComponent reports whether s, unescaped, can be a concrete vendor or product value:
// non-empty printable ASCII without whitespace (what CPE 2.3 allows in a value), and not one
// of the logical values Any or NA, which name no identity.
func ValidComponent(s string) bool {
	if s == "" || s == Any || s == NA {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isPrintableASCII(s[i]) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isPrintableASCII is the CPE 2.3 value alphabet: visible ASCII, no space.
func isPrintableASCII(c byte) bool { return '!' <= c && c <= '~' }

package kb

import "strings"

// cpePunctuation are the characters a CPE 2.3 formatted string may carry after a backslash.
const cpePunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// IsCPEComponent reports whether s is a concrete vendor or product value as written in a CPE 2.3
// formatted string: ASCII letters, digits, '_', '-', '.', and any other punctuation only when
// escaped with a backslash (e.g. notepad\+\+). Wildcards (unescaped * or ?) and the logical
// values "*" (ANY) and "-" (NA) name no product and are refused.
func IsCPEComponent(s string) bool {
	if s == "" || s == "-" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isCPEPlain(c):
		case c == '\\' && i+1 < len(s) && strings.IndexByte(cpePunctuation, s[i+1]) >= 0:
			i++ // the escaped character
		default:
			return false
		}
	}
	return true
}

func isCPEPlain(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// Package resolve decides which CPE 2.3 identity (part, vendor, product) a reported
// (vendor, product) pair of an inventory names: an organization's override, a published KB
// mapping, an exact catalogue hit or a fuzzy candidate accepted only when it is clearly best.
package resolve

import (
	"strings"
	"unicode"
)

// Key is a normalized reported pair in CPE character rules: lowercase words joined by "_".
// Plain integers ("365", "2016") stay in Product; dotted versions and markers are gone.
type Key struct {
	Vendor  string
	Product string
}

// Normalize lowercases, drops versions, architecture, locale and legal-form noise, removes
// vendor words repeated at the start of the product, and joins words with "_".
func Normalize(vendor, product string) Key {
	product = trimAppBundle(product)
	vendorWords := vendorTokens(vendor)
	productWords := productTokens(product)
	if len(productWords) == 1 && len(productWords[0]) < 5 && !strings.ContainsAny(strings.TrimSpace(product), " \t") {
		// A package name keeps the words a program name would drop (net-tools is not "net",
		// rdma-core not "rdma").
		if all := packageTokens(product); len(all) > 1 {
			productWords = all
		}
	}
	productWords = dropNumberedRepeats(stripVendorPrefix(productWords, vendorWords))
	return Key{Vendor: strings.Join(vendorWords, "_"), Product: strings.Join(productWords, "_")}
}

// trimAppBundle drops the ".app" of a macOS application bundle's name ("Google Chrome.app").
func trimAppBundle(product string) string {
	p := strings.TrimSpace(product)
	if len(p) > 4 && strings.EqualFold(p[len(p)-4:], ".app") {
		return p[:len(p)-4]
	}
	return p
}

// Words splits a normalized Key component back into its words.
func Words(component string) []string {
	if component == "" {
		return nil
	}
	return strings.Split(component, "_")
}

func vendorTokens(vendor string) []string {
	words := tokenize(vendor)
	kept := words[:0]
	for _, w := range words {
		if !legalNoise[w] && !isVersion(w) {
			kept = append(kept, w)
		}
	}
	return kept
}

// packageTokens are a package name's words, versions, architectures and locales aside.
func packageTokens(product string) []string {
	var kept []string
	for _, w := range tokenize(product) {
		if !isVersion(w) && !isArchOrLocale(w) {
			kept = append(kept, w)
		}
	}
	return kept
}

func productTokens(product string) []string {
	words := tokenize(product)
	kept := make([]string, 0, len(words))
	for i := 0; i < len(words); i++ {
		w := words[i]
		if i+1 < len(words) && phraseNoise[w+" "+words[i+1]] {
			i++
			continue
		}
		if editionNoise[w] && len(kept) > 0 {
			continue
		}
		if !productNoise[w] && !isVersion(w) && !isArchOrLocale(w) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 && len(words) == 1 && productNoise[words[0]] {
		return words // a name that is only a noise word is that name ("R", the language)
	}
	return kept
}

// stripVendorPrefix turns "google chrome" reported by "google" into "chrome"; it keeps the
// product whole when nothing would remain ("Zoom" by "Zoom Video Communications").
func stripVendorPrefix(product, vendor []string) []string {
	n := 0
	for n < len(product) && n < len(vendor) && product[n] == vendor[n] {
		n++
	}
	if n == 0 && len(vendor) > 0 && len(product) > 1 && product[0] == vendor[0] {
		n = 1
	}
	if n == len(product) || len(withoutNumbers(product[n:])) == 0 {
		return product // keep "PostgreSQL 15" rather than "15"
	}
	return product[n:]
}

// dropNumberedRepeats removes a word that repeats another with a number appended, as
// service names do ("Apache Tomcat 9.0 Tomcat9").
func dropNumberedRepeats(words []string) []string {
	have := set(words...)
	kept := words[:0:0]
	for _, w := range words {
		base := strings.TrimRight(w, "0123456789")
		if base == w || base == "" || !have[base] {
			kept = append(kept, w)
		}
	}
	return kept
}

// tokenize lowercases, removes CPE backslash escapes and splits on separators. Characters
// that CPE products keep ("+", ".", "-", "&", "#", "!") stay inside words.
func tokenize(s string) []string {
	s = strings.ToLower(strings.ReplaceAll(s, `\`, ""))
	fields := strings.FieldsFunc(s, isSeparator)
	words := make([]string, 0, len(fields))
	for _, f := range fields {
		f = strings.TrimRight(strings.TrimLeft(f, "-&#!'"), ".-&#!'") // keep ".net"
		if f != "" && f != "+" {
			words = append(words, f)
		}
	}
	return words
}

func isSeparator(r rune) bool {
	switch r {
	case '+', '.', '-', '&', '#', '!', '\'':
		return false
	}
	return unicode.IsSpace(r) || r == '_' || unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// isVersion is true for dotted or ranged numbers ("23.01", "2015-2022", "1.1.1w", "v2.6",
// "6.0.25+1") and release markers; plain integers are not versions ("365", "2016").
func isVersion(w string) bool {
	if w == "" {
		return false
	}
	body := strings.TrimPrefix(w, "v")
	if body == "" || !isDigit(body[0]) {
		return false
	}
	if allDigits(body) {
		return body != w // "v2" is a version, "365" is not
	}
	if strings.Trim(body, "0123456789-") == "" {
		return true // a range such as 2015-2022
	}
	return strings.Contains(body, ".") && looksDotted(body)
}

// looksDotted accepts digits, separators and a few letters ("1.1.1w", "2.6.8-i001").
func looksDotted(body string) bool {
	letters := 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case isDigit(c), c == '.', c == '-', c == '+', c == '~':
		case isLower(c):
			letters++
		default:
			return false
		}
	}
	return letters <= 4
}

func isArchOrLocale(w string) bool {
	if archNoise[w] {
		return true
	}
	// Locale markers such as en-us, de-de, pt-br.
	return len(w) == 5 && w[2] == '-' && isLower(w[0]) && isLower(w[1]) && isLower(w[3]) && isLower(w[4]) &&
		localePrefixes[w[:2]]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

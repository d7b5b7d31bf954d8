package version

import (
	"cmp"
	"strings"
)

// tokenClass ranks the kinds of token: tokens of a lower class sort first, whatever their text.
type tokenClass uint8

const (
	classTilde  tokenClass = iota // '~' sorts before everything, even the end of a version (Debian)
	classPre                      // pre-release words: dev < alpha < beta < milestone < pre < rc
	classZero                     // numeric zero, release words, and the padding past the end
	classPost                     // other words: OpenSSL letters, "p1", "sp", distro suffixes
	classNumber                   // positive numbers
)

// token is one element of a version. Treating the end of a version as an endless run of
// zero-class tokens is what makes "1.0" equal "1.0.0" while keeping the order total.
type token struct {
	class tokenClass
	rank  uint8  // orders pre-release words
	text  string // digits without leading zeros, or the word as written
}

func compareTokens(a, b token) int {
	if a.class != b.class {
		return cmp.Compare(a.class, b.class)
	}
	switch a.class {
	case classPre:
		return cmp.Compare(a.rank, b.rank)
	case classPost:
		return compareFold(a.text, b.text)
	case classNumber:
		return compareDigits(a.text, b.text)
	}
	return 0
}

// compareDigits orders digit strings without leading zeros numerically, at any length.
func compareDigits(a, b string) int {
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return strings.Compare(a, b)
}

// compareFold compares ASCII case-insensitively without allocating.
func compareFold(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := cmp.Compare(lower(a[i]), lower(b[i])); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func numberToken(digits string) token {
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return token{class: classZero}
	}
	return token{class: classNumber, text: digits}
}

// wordToken classifies a run of letters; beforeDigit says a digit follows it directly,
// which turns the single letters a, b and m into alpha, beta and milestone ("1.0b2").
func wordToken(word string, beforeDigit bool) token {
	if rank := preReleaseRank(word, beforeDigit); rank > 0 {
		return token{class: classPre, rank: rank}
	}
	if isReleaseWord(word) {
		return token{class: classZero}
	}
	return token{class: classPost, text: word}
}

func preReleaseRank(word string, beforeDigit bool) uint8 {
	switch {
	case equalsAny(word, "dev", "snapshot", "nightly"):
		return 1
	case equalsAny(word, "alpha") || beforeDigit && equalsAny(word, "a"):
		return 2
	case equalsAny(word, "beta") || beforeDigit && equalsAny(word, "b"):
		return 3
	case equalsAny(word, "milestone") || beforeDigit && equalsAny(word, "m"):
		return 4
	case equalsAny(word, "pre", "preview"):
		return 5
	case equalsAny(word, "rc", "cr"):
		return 6
	}
	return 0
}

// isReleaseWord reports words that only restate a final release ("2.0.GA" is "2.0").
func isReleaseWord(word string) bool {
	return equalsAny(word, "final", "ga", "release")
}

func equalsAny(word string, candidates ...string) bool {
	for _, c := range candidates {
		if strings.EqualFold(word, c) {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isLetter counts bytes of non-ASCII characters as letters so they stay inside words.
func isLetter(c byte) bool {
	return 'a' <= lower(c) && lower(c) <= 'z' || c >= 0x80
}

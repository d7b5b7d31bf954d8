// Package version orders software versions the way NVD version bounds need: dotted numbers,
// OpenSSL letters ("1.1.1k"), pre-release tags ("2.0-rc1"), Debian/RPM epochs and revisions,
// and '~'. Compare is a total preorder: reflexive, antisymmetric and transitive over all
// strings, with distinct spellings of one version ("1.0", "1.0.0", "v1.0") comparing equal.
//
// The rules, applied token by token after an optional epoch ("1:") and a leading "v":
//   - digits, letters and '~' form tokens; every other character only separates them;
//   - numbers compare numerically at any length; leading zeros do not count;
//   - a version ends in endless zeros, so "1.0" equals "1.0.0" and "1.0.1" is newer;
//   - '~' sorts before anything, even the end ("1.0~rc1" < "1.0");
//   - dev, snapshot, nightly < alpha < beta < milestone < pre, preview < rc, cr sort before the
//     end ("2.0-beta9" < "2.0"); a, b and m directly followed by a digit mean alpha, beta, milestone;
//   - final, ga and release count as zero ("2.0.GA" equals "2.0");
//   - any other word is post-release: after the end or a zero, before any positive number
//     ("1.1.1" < "1.1.1a" < "1.1.2", "7.4" < "7.4p1" < "7.5"), ordered among words by case-folded text.
package version

import (
	"unicode"
	"unicode/utf8"
)

// Compare returns -1, 0 or 1 as a is older than, the same as, or newer than b.
// It does not allocate.
func Compare(a, b string) int {
	sa, sb := newScanner(a), newScanner(b)
	for {
		ta, moreA := sa.next()
		tb, moreB := sb.next()
		if !moreA && !moreB {
			return 0
		}
		if c := compareTokens(ta, tb); c != 0 {
			return c
		}
	}
}

// Valid reports whether s can stand for a version: non-blank, valid UTF-8, printable.
func Valid(s string) bool {
	if !utf8.ValidString(s) || !hasVisible(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

func hasVisible(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return true
		}
	}
	return false
}

// Version is a version parsed once so that it can be compared many times without allocating,
// e.g. the bounds of an NVD criterion against every installed version.
type Version struct {
	raw    string
	tokens []token
}

// Parse tokenizes s; every string is a version (an empty one equals "0").
func Parse(s string) Version {
	sc := newScanner(s)
	tokens := make([]token, 0, countTokens(s))
	for t, more := sc.next(); more; t, more = sc.next() {
		tokens = append(tokens, t)
	}
	return Version{raw: s, tokens: trimPadding(tokens)}
}

// countTokens lets Parse allocate its tokens once.
func countTokens(s string) int {
	sc, n := newScanner(s), 0
	for _, more := sc.next(); more; _, more = sc.next() {
		n++
	}
	return n
}

// trimPadding drops trailing zero-class tokens: the comparison pads with them anyway.
func trimPadding(tokens []token) []token {
	n := len(tokens)
	for n > 0 && tokens[n-1].class == classZero {
		n--
	}
	return tokens[:n:n]
}

// String returns the text v was parsed from.
func (v Version) String() string { return v.raw }

// Compare orders v against w exactly as Compare orders their strings.
func (v Version) Compare(w Version) int {
	for i := range max(len(v.tokens), len(w.tokens)) {
		if c := compareTokens(v.at(i), w.at(i)); c != 0 {
			return c
		}
	}
	return 0
}

func (v Version) at(i int) token {
	if i < len(v.tokens) {
		return v.tokens[i]
	}
	return token{class: classZero}
}

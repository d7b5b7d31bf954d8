package version

import "strings"

// scanner walks a version string token by token without allocating. The first token is
// always the epoch (zero when the version names none).
type scanner struct {
	rest    string
	epoch   string
	started bool
}

func newScanner(s string) scanner {
	epoch, rest := splitEpoch(strings.TrimSpace(s))
	return scanner{rest: trimVPrefix(rest), epoch: epoch}
}

// next returns the next token; past the end it returns the zero-class padding and false.
func (sc *scanner) next() (token, bool) {
	if !sc.started {
		sc.started = true
		return numberToken(sc.epoch), true
	}
	sc.rest = skipSeparators(sc.rest)
	if sc.rest == "" {
		return token{class: classZero}, false
	}
	switch c := sc.rest[0]; {
	case c == '~':
		sc.rest = sc.rest[1:]
		return token{class: classTilde}, true
	case isDigit(c):
		return numberToken(sc.take(isDigit)), true
	}
	word := sc.take(isLetter)
	return wordToken(word, sc.rest != "" && isDigit(sc.rest[0])), true
}

// take cuts the longest prefix whose bytes satisfy in.
func (sc *scanner) take(in func(byte) bool) string {
	n := prefixLen(sc.rest, in)
	run := sc.rest[:n]
	sc.rest = sc.rest[n:]
	return run
}

func prefixLen(s string, in func(byte) bool) int {
	n := 0
	for n < len(s) && in(s[n]) {
		n++
	}
	return n
}

// splitEpoch separates a Debian/RPM epoch ("2:8.2.3995-1") from the rest.
func splitEpoch(s string) (epoch, rest string) {
	n := prefixLen(s, isDigit)
	if n > 0 && n < len(s) && s[n] == ':' {
		return s[:n], s[n+1:]
	}
	return "", s
}

// trimVPrefix makes "v1.2" read as "1.2".
func trimVPrefix(s string) string {
	if len(s) > 1 && (s[0] == 'v' || s[0] == 'V') && isDigit(s[1]) {
		return s[1:]
	}
	return s
}

// skipSeparators drops everything that is neither digit, letter nor '~': '.', '-', '_', '+',
// ':', parentheses and the like only delimit tokens.
func skipSeparators(s string) string {
	separator := func(c byte) bool { return !isDigit(c) && !isLetter(c) && c != '~' }
	return s[prefixLen(s, separator):]
}

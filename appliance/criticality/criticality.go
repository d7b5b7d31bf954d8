// Package criticality gives products a criticality without a person touching each one: an
// organization's ordered rules of name patterns (or the built-in defaults) decide for every
// product whose criticality no person chose.
package criticality

import (
	"fmt"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Default is the criticality of a product no rule matches.
const Default = 2

// Limits of a rule set.
const (
	MaxRules   = 200
	MaxPattern = 100
)

// Defaults are the rules of an organization that never set its own: internet-facing servers
// and remote access first, then security software, other servers and the programs that open
// what the internet sends.
var Defaults = []appliance.CriticalityRule{
	// Internet-facing servers and remote access: what an attacker reaches first.
	{Pattern: "nginx*", Criticality: 5}, {Pattern: "apache2*", Criticality: 5}, {Pattern: "*httpd*", Criticality: 5},
	{Pattern: "apache http server*", Criticality: 5}, {Pattern: "http_server", Criticality: 5},
	{Pattern: "*openssh*", Criticality: 5}, {Pattern: "*sshd*", Criticality: 5}, {Pattern: "haproxy*", Criticality: 5},
	{Pattern: "*tomcat*", Criticality: 5}, {Pattern: "*exchange server*", Criticality: 5}, {Pattern: "*vpn*", Criticality: 5},
	{Pattern: "*wireguard*", Criticality: 5}, {Pattern: "postfix*", Criticality: 5}, {Pattern: "exim*", Criticality: 5},
	{Pattern: "dovecot*", Criticality: 5}, {Pattern: "bind9*", Criticality: 5}, {Pattern: "squid*", Criticality: 5},
	{Pattern: "vsftpd*", Criticality: 5}, {Pattern: "*remote desktop*", Criticality: 5},
	// Security software: privileged, and it guards the rest.
	{Pattern: "*openssl*", Criticality: 4}, {Pattern: "*antivirus*", Criticality: 4}, {Pattern: "*defender*", Criticality: 4},
	{Pattern: "*firewall*", Criticality: 4}, {Pattern: "*endpoint*", Criticality: 4}, {Pattern: "*crowdstrike*", Criticality: 4},
	{Pattern: "*sentinelone*", Criticality: 4}, {Pattern: "*clamav*", Criticality: 4}, {Pattern: "*keepass*", Criticality: 4},
	{Pattern: "*bitwarden*", Criticality: 4}, {Pattern: "*1password*", Criticality: 4}, {Pattern: "gnupg*", Criticality: 4},
	{Pattern: "sudo", Criticality: 4},
	// Other servers.
	{Pattern: "*server*", Criticality: 4},
	// Browsers, mail clients and document readers open what the internet sends.
	{Pattern: "*chrome*", Criticality: 3}, {Pattern: "*firefox*", Criticality: 3}, {Pattern: "microsoft edge*", Criticality: 3},
	{Pattern: "*thunderbird*", Criticality: 3}, {Pattern: "*outlook*", Criticality: 3}, {Pattern: "*acrobat*", Criticality: 3},
	{Pattern: "adobe reader*", Criticality: 3},
}

// Rules is a compiled rule set.
type Rules struct {
	rules    []appliance.CriticalityRule
	patterns []pattern
}

// pattern is a lowercased rule pattern. One whose only wildcards are a leading or a trailing
// "*" (nearly all: "nginx*", "*server*") is a plain string test on the name; the rest match
// rune by rune.
type pattern struct {
	kind    patternKind
	literal string // the pattern without its outer stars
	runes   []rune // the whole pattern, for kindGlob
}

type patternKind int

const (
	kindEqual patternKind = iota
	kindPrefix
	kindSuffix
	kindContains
	kindGlob
)

func compilePattern(p string) pattern {
	lead, trail := strings.HasPrefix(p, "*"), strings.HasSuffix(p, "*")
	literal := strings.TrimSuffix(strings.TrimPrefix(p, "*"), "*")
	if strings.ContainsAny(literal, "*?") {
		return pattern{kind: kindGlob, runes: []rune(p)}
	}
	switch {
	case lead && trail:
		return pattern{kind: kindContains, literal: literal}
	case lead:
		return pattern{kind: kindSuffix, literal: literal}
	case trail:
		return pattern{kind: kindPrefix, literal: literal}
	}
	return pattern{kind: kindEqual, literal: literal}
}

// matches reports whether name (lowercased) fits the pattern, as match would; runes holds the
// name's runes once a glob needed them.
func (p pattern) matches(name string, runes *[]rune) bool {
	switch p.kind {
	case kindEqual:
		return name == p.literal
	case kindPrefix:
		return strings.HasPrefix(name, p.literal)
	case kindSuffix:
		return strings.HasSuffix(name, p.literal)
	case kindContains:
		return strings.Contains(name, p.literal)
	}
	if *runes == nil {
		*runes = []rune(name)
	}
	return match(p.runes, *runes)
}

// Compile checks rules — a pattern of 1–100 characters, a criticality 1–5, at most 200 —
// and prepares them for matching.
func Compile(rules []appliance.CriticalityRule) (*Rules, error) {
	if len(rules) > MaxRules {
		return nil, appliance.Invalid("rules", "max", "at most %d rules", MaxRules)
	}
	out := &Rules{rules: rules, patterns: make([]pattern, len(rules))}
	for i, r := range rules {
		p := strings.TrimSpace(r.Pattern)
		if p == "" || len(p) > MaxPattern {
			return nil, appliance.Invalid(fmt.Sprintf("rules[%d].pattern", i), "length",
				"a pattern has 1 to %d characters", MaxPattern)
		}
		if r.Criticality < 1 || r.Criticality > 5 {
			return nil, appliance.Invalid(fmt.Sprintf("rules[%d].criticality", i), "range", "criticality must be between 1 and 5")
		}
		out.rules[i].Pattern = p
		out.patterns[i] = compilePattern(strings.ToLower(p))
	}
	return out, nil
}

// MustCompile compiles rules known to be valid (the defaults).
func MustCompile(rules []appliance.CriticalityRule) *Rules {
	r, err := Compile(rules)
	if err != nil {
		panic(err)
	}
	return r
}

// match reports whether name (lowercased runes) fits pattern: * is any run of characters,
// ? one character, everything else itself. A mismatch after a * retries one character
// further, so matching is linear in practice and never backtracks without bound.
func match(pattern, name []rune) bool {
	pi, ni, star, mark := 0, 0, -1, 0
	for ni < len(name) {
		switch {
		case pi < len(pattern) && pattern[pi] == '*':
			star, mark = pi, ni
			pi++
		case pi < len(pattern) && (pattern[pi] == '?' || pattern[pi] == name[ni]):
			pi++
			ni++
		case star >= 0:
			pi, mark = star+1, mark+1
			ni = mark
		default:
			return false
		}
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}

// List returns the rules as compiled (patterns trimmed).
func (rs *Rules) List() []appliance.CriticalityRule { return rs.rules }

// For returns the criticality of the first rule matching the product's reported name, its CPE
// product or its source package; Default when none does.
func (rs *Rules) For(p appliance.Product) int {
	var names [3]string
	var runes [3][]rune
	n := 0
	for _, name := range []string{p.Name, p.Identity.Product, p.Package.SourcePackage} {
		if name != "" {
			names[n] = strings.ToLower(name)
			n++
		}
	}
	for i, pattern := range rs.patterns {
		for j := range n {
			if pattern.matches(names[j], &runes[j]) {
				return rs.rules[i].Criticality
			}
		}
	}
	return Default
}

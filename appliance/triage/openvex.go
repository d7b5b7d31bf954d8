package triage

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	openvex "github.com/openvex/go-vex/pkg/vex"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
)

// statementOf is the OpenVEX statement a rule makes about cve: our states in OpenVEX's four.
func statementOf(r appliance.TriageRule, cve string) openvex.Statement {
	at := r.UpdatedAt
	st := openvex.Statement{Vulnerability: openvex.Vulnerability{Name: openvex.VulnerabilityID(cve)}, Timestamp: &at,
		StatusNotes: r.Note}
	switch r.State {
	case StateNotAffected:
		st.Status, st.Justification = openvex.StatusNotAffected, openvex.Justification(r.Justification)
	case StateFalsePositive:
		st.Status, st.ImpactStatement = openvex.StatusNotAffected, "false positive: "+orNone(r.Note)
	case StateFixed:
		st.Status = openvex.StatusFixed
	case StateInTriage:
		st.Status = openvex.StatusUnderInvestigation
	case StateAcceptedRisk:
		st.Status = openvex.StatusAffected
		st.ActionStatement = fmt.Sprintf("risk accepted until %s: %s", r.ExpiresAt.UTC().Format(time.RFC3339), orNone(r.Note))
	default: // exploitable
		st.Status, st.ActionStatement = openvex.StatusAffected, "exploitable: "+orNone(r.Note)
	}
	return st
}

func orNone(note string) string {
	if note == "" {
		return "no note"
	}
	return note
}

// componentOf names a product as OpenVEX does: by its CPE 2.3 name, else its package URL,
// with the version (any version when version is ""); ok is false when it has neither.
func componentOf(identity, version string) (openvex.Component, bool) {
	switch {
	case strings.HasPrefix(identity, "cpe:2.3:"):
		v := "*"
		if version != "" {
			v = cpe.Escape(version)
		}
		name := identity + ":" + v + ":*:*:*:*:*:*:*"
		return openvex.Component{ID: name, Identifiers: map[openvex.IdentifierType]string{openvex.CPE23: name}}, true
	case strings.HasPrefix(identity, "pkg:"):
		name := identity
		if version != "" {
			name += "@" + url.PathEscape(version)
		}
		return openvex.Component{ID: name, Identifiers: map[openvex.IdentifierType]string{openvex.PURL: name}}, true
	}
	return openvex.Component{}, false
}

// findingComponent names the version a finding is about: its CPE identity, else its package URL.
func findingComponent(p appliance.Product) (openvex.Component, bool) {
	for _, id := range Identities(p) {
		if c, ok := componentOf(id, p.Version); ok {
			return c, true
		}
	}
	return openvex.Component{}, false
}

// splitComponent reads a product's identity and version from an OpenVEX component: a CPE 2.3
// name or a package URL, as its @id or among its identifiers. version is "" for any version.
func splitComponent(c openvex.Component) (identity, version string, err error) {
	for _, name := range []string{c.ID, c.Identifiers[openvex.CPE23], c.Identifiers[openvex.PURL]} {
		name = strings.TrimSpace(name)
		switch {
		case strings.HasPrefix(name, "cpe:2.3:"):
			identity, err = NormalizeProduct(name)
			if f := strings.Split(name, ":"); err == nil && len(f) > 5 && f[5] != "*" && f[5] != "-" && f[5] != "" {
				version = cpe.Unescape(f[5])
			}
			return identity, version, err
		case strings.HasPrefix(name, "pkg:"):
			identity, err = NormalizeProduct(name)
			return identity, purlVersion(name), err
		}
	}
	return "", "", appliance.Invalid("products", "format", "a product names neither a CPE 2.3 name nor a package URL")
}

// purlVersion is a package URL's version, "" when it names none.
func purlVersion(s string) string {
	s, _, _ = strings.Cut(s, "#")
	s, _, _ = strings.Cut(s, "?")
	i := strings.LastIndex(s, "@")
	if i < 0 || strings.LastIndex(s, "/") > i {
		return ""
	}
	v, err := url.PathUnescape(s[i+1:])
	if err != nil {
		return s[i+1:]
	}
	return v
}

// statementRules are the rules an OpenVEX statement's not_affected verdict makes: one per
// product (or, when a product lists subcomponents, per subcomponent), for exactly the version
// it names or every version. Other statuses make none (skipped).
func statementRules(st openvex.Statement, author, note string) ([]Input, bool, error) {
	if err := st.Validate(); err != nil {
		return nil, false, appliance.Invalid("", "openvex", "%s", err.Error())
	}
	if st.Status != openvex.StatusNotAffected || st.Justification == "" {
		return nil, false, nil
	}
	cve := vulnerabilityName(st.Vulnerability)
	if st.ImpactStatement != "" {
		note = st.ImpactStatement
	}
	var out []Input
	for _, p := range st.Products {
		components := []openvex.Component{p.Component}
		if len(p.Subcomponents) > 0 {
			components = components[:0]
			for _, sc := range p.Subcomponents {
				components = append(components, sc.Component)
			}
		}
		for _, c := range components {
			identity, version, err := splitComponent(c)
			if err != nil {
				return nil, false, err
			}
			in := Input{CVEID: cve, Scope: ScopeProduct, Product: identity, State: StateNotAffected,
				Justification: string(st.Justification), Note: note, Author: author}
			if version != "" {
				in.Scope, in.VersionStart, in.VersionEnd = ScopeVersionRange, version, version
			}
			out = append(out, in)
		}
	}
	return out, true, nil
}

// vulnerabilityName is the statement's CVE id, from its name or its aliases (findings are
// named by CVE), else its name.
func vulnerabilityName(v openvex.Vulnerability) string {
	for _, n := range append([]openvex.VulnerabilityID{v.Name}, v.Aliases...) {
		if s := strings.ToUpper(strings.TrimSpace(string(n))); strings.HasPrefix(s, "CVE-") && cveID.MatchString(s) {
			return s
		}
	}
	return string(v.Name)
}

// sameRule reports whether two rules decide the same thing the same way.
func sameRule(a, b appliance.TriageRule) bool {
	return a.CVEID == b.CVEID && a.Scope == b.Scope && a.Product == b.Product && a.VersionStart == b.VersionStart &&
		a.VersionEnd == b.VersionEnd && a.AssetID == b.AssetID && a.Tag == b.Tag && a.State == b.State && a.Justification == b.Justification
}

// hasSame reports whether rules hold one in force that decides like r.
func hasSame(rules []appliance.TriageRule, r appliance.TriageRule, now time.Time) bool {
	return slices.ContainsFunc(rules, func(old appliance.TriageRule) bool {
		return sameRule(old, r) && (old.ExpiresAt.IsZero() || now.Before(old.ExpiresAt))
	})
}

// Package triage keeps the decisions people (and vendors, through VEX) make about findings —
// not affected, false positive, accepted risk … — as scoped, expiring rules with an audit
// trail, and applies them to the current findings so that suppressed ones leave counts and
// lists while staying readable with their state.
package triage

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
	"github.com/vulnkeeper/vulnkeeper/appliance/version"
)

// States, in the words of CycloneDX and OpenVEX.
const (
	StateInTriage      = "in_triage"
	StateExploitable   = "exploitable"
	StateNotAffected   = "not_affected"
	StateFalsePositive = "false_positive"
	StateAcceptedRisk  = "accepted_risk"
	StateFixed         = "fixed"
)

// States lists every state.
var States = []string{StateInTriage, StateExploitable, StateNotAffected, StateFalsePositive, StateAcceptedRisk, StateFixed}

// Justifications of not_affected (OpenVEX's words).
var Justifications = []string{"component_not_present", "vulnerable_code_not_present", "vulnerable_code_not_in_execute_path",
	"vulnerable_code_cannot_be_controlled_by_adversary", "inline_mitigations_already_exist"}

// Scopes of a rule, from the narrowest.
const (
	ScopeHost         = "host"
	ScopeVersionRange = "version_range"
	ScopeProduct      = "product"
	ScopeOrganization = "organization"
	ScopeTag          = "tag" // every host having the product carries the tag
)

// Scopes lists the accepted scopes.
var Scopes = []string{ScopeHost, ScopeTag, ScopeVersionRange, ScopeProduct, ScopeOrganization}

// Suppresses reports whether findings in state leave counts, lists and SLAs.
func Suppresses(state string) bool {
	switch state {
	case StateNotAffected, StateFalsePositive, StateAcceptedRisk, StateFixed:
		return true
	}
	return false
}

// Rule limits.
const (
	maxNote    = 10000
	maxProduct = 512
	maxVersion = 128
)

var cveID = regexp.MustCompile(`^[A-Z]+-[0-9]{4}-[0-9]{3,}$|^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$`)

// Validate checks a rule and normalizes its product identity; now decides whether an
// expiry lies in the future.
func Validate(r *appliance.TriageRule, now time.Time) error {
	r.CVEID = strings.ToUpper(strings.TrimSpace(r.CVEID))
	if strings.HasPrefix(r.CVEID, "GHSA-") {
		r.CVEID = "GHSA-" + strings.ToLower(r.CVEID[5:])
	}
	r.Note = strings.TrimSpace(r.Note)
	if r.CVEID != "" && !cveID.MatchString(r.CVEID) {
		return appliance.Invalid("cve_id", "format", "cve_id must look like CVE-2024-12345")
	}
	if len([]rune(r.Note)) > maxNote {
		return appliance.Invalid("note", "max_length", "note must have at most %d characters", maxNote)
	}
	if err := validateScope(r); err != nil {
		return err
	}
	if r.CVEID == "" && (r.Product == "" || r.Note == "") {
		return appliance.Invalid("cve_id", "required", "a rule for every CVE needs a product scope and a note giving the reason")
	}
	return validateState(r, now)
}

func validateScope(r *appliance.TriageRule) error {
	if r.Product != "" {
		id, err := NormalizeProduct(r.Product)
		if err != nil {
			return err
		}
		r.Product = id
	}
	if r.Scope != ScopeTag && r.Tag != "" {
		return appliance.Invalid("tag", "scope", "only a tag rule names a tag")
	}
	switch r.Scope {
	case ScopeOrganization:
		if r.Product != "" || r.AssetID != 0 || r.VersionStart != "" || r.VersionEnd != "" {
			return appliance.Invalid("scope", "fields", "an organization-wide rule names no product, host or versions")
		}
	case ScopeProduct:
		if r.Product == "" || r.AssetID != 0 || r.VersionStart != "" || r.VersionEnd != "" {
			return appliance.Invalid("product", "required", "a product rule names a product and no host or versions")
		}
	case ScopeVersionRange:
		if r.Product == "" || r.AssetID != 0 || (r.VersionStart == "" && r.VersionEnd == "") {
			return appliance.Invalid("version_start", "required", "a version_range rule names a product and version_start and/or version_end")
		}
		for field, v := range map[string]string{"version_start": r.VersionStart, "version_end": r.VersionEnd} {
			if v != "" && (!version.Valid(v) || len(v) > maxVersion) {
				return appliance.Invalid(field, "format", "%s is not a version", field)
			}
		}
		if r.VersionStart != "" && r.VersionEnd != "" && version.Compare(r.VersionStart, r.VersionEnd) > 0 {
			return appliance.Invalid("version_end", "range", "version_end must be after version_start (equal bounds name one version)")
		}
	case ScopeHost:
		if r.AssetID <= 0 || r.VersionStart != "" || r.VersionEnd != "" {
			return appliance.Invalid("asset_id", "required", "a host rule names the host (asset_id) and no versions")
		}
	case ScopeTag:
		tag, err := appliance.NormalizeTag(r.Tag, "tag")
		if err != nil {
			return err
		}
		if r.AssetID != 0 || r.VersionStart != "" || r.VersionEnd != "" {
			return appliance.Invalid("tag", "fields", "a tag rule names the tag and no host or versions")
		}
		r.Tag = tag
	default:
		return appliance.Invalid("scope", "enum", "scope must be one of %s", strings.Join(Scopes, ", "))
	}
	return nil
}

func validateState(r *appliance.TriageRule, now time.Time) error {
	if !slices.Contains(States, r.State) {
		return appliance.Invalid("state", "enum", "state must be one of %s", strings.Join(States, ", "))
	}
	if r.State == StateNotAffected {
		if !slices.Contains(Justifications, r.Justification) {
			return appliance.Invalid("justification", "enum", "not_affected needs a justification: one of %s", strings.Join(Justifications, ", "))
		}
	} else if r.Justification != "" {
		return appliance.Invalid("justification", "state", "only not_affected takes a justification")
	}
	if r.State == StateAcceptedRisk && r.ExpiresAt.IsZero() {
		return appliance.Invalid("expires_at", "required", "accepted_risk needs an expiry (expires_at)")
	}
	if !r.ExpiresAt.IsZero() && !r.ExpiresAt.After(now) {
		return appliance.Invalid("expires_at", "future", "expires_at must lie in the future")
	}
	return nil
}

// NormalizeProduct turns a product identity (a CPE 2.3 name or prefix, a package URL, or
// "product:vendor/name") into its version-less form.
func NormalizeProduct(s string) (string, error) {
	s = strings.TrimSpace(s)
	bad := appliance.Invalid("product", "format", "product must be a CPE 2.3 name, a package URL (pkg:…) or product:vendor/name")
	if len(s) > maxProduct {
		return "", bad
	}
	switch {
	case strings.HasPrefix(s, "cpe:2.3:"):
		f := strings.Split(s, ":")
		if len(f) < 5 || f[2] == "" || f[3] == "" || f[4] == "" {
			return "", bad
		}
		return CPEIdentity(appliance.Identity{Part: f[2], Vendor: cpe.Unescape(f[3]), Product: cpe.Unescape(f[4])}), nil
	case strings.HasPrefix(s, "pkg:"):
		p, ok := PURLBase(s)
		if !ok {
			return "", bad
		}
		return p, nil
	case strings.HasPrefix(s, "product:") && strings.Contains(s, "/"):
		return s, nil
	}
	return "", bad
}

// CPEIdentity is the version-less CPE form of an identity.
func CPEIdentity(id appliance.Identity) string {
	return "cpe:2.3:" + id.Part + ":" + cpe.Escape(id.Vendor) + ":" + cpe.Escape(id.Product)
}

// PURLBase drops a package URL's version, qualifiers and subpath, lowercasing its type.
func PURLBase(s string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "pkg:")
	if !ok {
		return "", false
	}
	rest, _, _ = strings.Cut(rest, "#")
	rest, _, _ = strings.Cut(rest, "?")
	if i := strings.LastIndex(rest, "@"); i > 0 {
		rest = rest[:i]
	}
	typ, name, ok := strings.Cut(strings.TrimLeft(rest, "/"), "/")
	if !ok || typ == "" || name == "" {
		return "", false
	}
	if un, err := url.PathUnescape(name); err == nil {
		name = un
	}
	return "pkg:" + strings.ToLower(typ) + "/" + name, true
}

// Identities are the version-less identities a product answers to.
func Identities(p appliance.Product) []string {
	var out []string
	if p.Identity.Resolved() {
		out = append(out, CPEIdentity(p.Identity))
	}
	if b, ok := PURLBase(p.Package.PURL); ok {
		out = append(out, b)
	}
	return append(out, "product:"+p.Vendor+"/"+p.Name)
}

// Applies reports whether r covers the finding f on the host assetID (0: the product as a
// whole). Expiry is not considered here.
func Applies(r appliance.TriageRule, f appliance.TriageFinding, assetID int64) bool {
	if r.CVEID != "" && r.CVEID != f.CVEID {
		return false
	}
	if r.Product != "" && !slices.Contains(Identities(f.Product), r.Product) {
		return false
	}
	switch r.Scope {
	case ScopeVersionRange:
		v := f.Product.Version
		if r.VersionStart != "" && version.Compare(v, r.VersionStart) < 0 {
			return false
		}
		if r.VersionEnd != "" && version.Compare(v, r.VersionEnd) >= 0 && !exactly(r, v) {
			return false
		}
	case ScopeHost:
		return assetID != 0 && assetID == r.AssetID
	case ScopeTag:
		return assetID != 0 && slices.Contains(f.HostTags[assetID], r.Tag)
	}
	return true
}

// exactly reports whether r names one version (equal bounds) and v is it.
func exactly(r appliance.TriageRule, v string) bool {
	return r.VersionStart == r.VersionEnd && version.Compare(v, r.VersionEnd) == 0
}

// rank orders rules by specificity: a narrower scope wins, then the newer rule. A tag rule
// stands above only an organization-wide one.
func rank(r appliance.TriageRule) int {
	switch r.Scope {
	case ScopeHost:
		return 4
	case ScopeVersionRange:
		return 3
	case ScopeProduct:
		return 2
	case ScopeTag:
		return 1
	}
	return 0
}

func better(a, b appliance.TriageRule) bool {
	if rank(a) != rank(b) {
		return rank(a) > rank(b)
	}
	return a.ID > b.ID
}

// Decide returns the decision in force on f at now, or nil. A rule that covers the product as
// a whole decides; host rules, and tag rules, decide only when they cover every host that has
// the product now (a new host outside their scope, or a host losing the tag, brings the
// finding back). Expired rules are ignored.
func Decide(rules []appliance.TriageRule, f appliance.TriageFinding, now time.Time) *appliance.TriageState {
	var best *appliance.TriageRule
	pick := func(r *appliance.TriageRule) {
		if best == nil || better(*r, *best) {
			best = r
		}
	}
	perHost := map[string][]*appliance.TriageRule{}
	for i := range rules {
		r := &rules[i]
		if !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt) {
			continue
		}
		if r.Scope == ScopeHost || r.Scope == ScopeTag {
			perHost[r.Scope] = append(perHost[r.Scope], r)
			continue
		}
		if Applies(*r, f, 0) {
			pick(r)
		}
	}
	for _, scope := range []string{ScopeHost, ScopeTag} {
		if hr := hostDecision(perHost[scope], f); hr != nil {
			pick(hr)
		}
	}
	if best == nil {
		return nil
	}
	return &appliance.TriageState{RuleID: best.ID, State: best.State, Justification: best.Justification,
		ExpiresAt: best.ExpiresAt, Suppresses: Suppresses(best.State)}
}

// hostDecision is the rule standing for f when rules of one per-host scope (host or tag)
// cover every host of f's product, all in one state: the newest of those.
func hostDecision(rules []*appliance.TriageRule, f appliance.TriageFinding) *appliance.TriageRule {
	if len(rules) == 0 || len(f.AssetIDs) == 0 {
		return nil
	}
	var chosen *appliance.TriageRule
	for _, host := range f.AssetIDs {
		var forHost *appliance.TriageRule
		for _, r := range rules {
			if Applies(*r, f, host) && (forHost == nil || r.ID > forHost.ID) {
				forHost = r
			}
		}
		if forHost == nil || (chosen != nil && forHost.State != chosen.State) {
			return nil
		}
		if chosen == nil || forHost.ID > chosen.ID {
			chosen = forHost
		}
	}
	return chosen
}

// Apply decides every finding at now and returns the decisions in force.
func Apply(rules []appliance.TriageRule, findings []appliance.TriageFinding, now time.Time) []appliance.AppliedTriage {
	var out []appliance.AppliedTriage
	for _, f := range findings {
		if st := Decide(rules, f, now); st != nil {
			out = append(out, appliance.AppliedTriage{ProductID: f.ProductID, ContainerImageID: f.ContainerImageID,
				PackageName: packageName(f), CVEID: f.CVEID, TriageState: *st})
		}
	}
	return out
}

// packageName is the package a container finding is about ("" for a product's finding).
func packageName(f appliance.TriageFinding) string {
	if f.ContainerImageID == 0 {
		return ""
	}
	return f.Product.Name
}

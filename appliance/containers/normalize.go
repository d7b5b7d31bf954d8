package containers

import (
	"strings"
	"unicode/utf8"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Field bounds. Identity fields (vulnerability ID, package, installed version) key the stored
// record, so one that is too long is an error: cutting it could merge distinct findings.
// Prose and labels are only shown, so they are truncated (on a UTF-8 boundary) instead.
const (
	MaxIdentifierLength  = 256
	MaxLabelLength       = 256 // fixed version, target, type
	MaxTitleLength       = 1 << 10
	MaxDescriptionLength = 8 << 10
)

// normalize trims, bounds and checks one finding; location says where it was in the report.
func normalize(v Vulnerability, location string) (Vulnerability, error) {
	v.CVEID = strings.TrimSpace(v.CVEID)
	v.PackageName = strings.TrimSpace(v.PackageName)
	v.InstalledVersion = strings.TrimSpace(v.InstalledVersion)
	if err := checkIdentity(v, location); err != nil {
		return Vulnerability{}, err
	}
	v.Severity = NormalizeSeverity(v.Severity)
	v.FixedVersion = clip(strings.TrimSpace(v.FixedVersion), MaxLabelLength)
	v.Target = clip(strings.TrimSpace(v.Target), MaxLabelLength)
	v.Type = clip(strings.TrimSpace(v.Type), MaxLabelLength)
	v.Title = clip(strings.TrimSpace(v.Title), MaxTitleLength)
	v.Description = clip(strings.TrimSpace(v.Description), MaxDescriptionLength)
	return v, nil
}

func checkIdentity(v Vulnerability, location string) error {
	if v.CVEID == "" {
		return appliance.Invalid(scanField, "required", "%s: vulnerability ID is empty", location)
	}
	if v.PackageName == "" {
		return appliance.Invalid(scanField, "required", "%s: package name is empty", location)
	}
	for _, value := range []string{v.CVEID, v.PackageName, v.InstalledVersion} {
		if len(value) > MaxIdentifierLength {
			return appliance.Invalid(scanField, "max_length",
				"%s: vulnerability ID, package name and installed version are limited to %d bytes",
				location, MaxIdentifierLength)
		}
	}
	return nil
}

// clip shortens s to at most limit bytes without splitting a UTF-8 sequence.
func clip(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

type findingKey struct {
	id, pkg, version string
}

// deduplicate keeps one finding per (ID, package, installed version), in first-seen order.
// Scanners repeat a finding for every place a package was found (Trivy: several go.mod
// files; Grype: several paths), and the most informative copy is kept.
func deduplicate(vs []Vulnerability) []Vulnerability {
	seen := make(map[findingKey]int, len(vs))
	out := vs[:0]
	for _, v := range vs {
		key := findingKey{v.CVEID, v.PackageName, v.InstalledVersion}
		if i, dup := seen[key]; dup {
			if moreInformative(v, out[i]) {
				out[i] = v
			}
			continue
		}
		seen[key] = len(out)
		out = append(out, v)
	}
	return out
}

// moreInformative prefers more filled fields, then the longer description; ties keep the first.
func moreInformative(a, b Vulnerability) bool {
	if fa, fb := filledFields(a), filledFields(b); fa != fb {
		return fa > fb
	}
	return len(a.Description) > len(b.Description)
}

func filledFields(v Vulnerability) int {
	n := 0
	for _, filled := range []bool{
		v.Severity != SeverityUnknown, v.FixedVersion != "", v.Title != "", v.Description != "",
	} {
		if filled {
			n++
		}
	}
	return n
}

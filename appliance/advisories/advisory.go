// Package advisories reads distribution and ecosystem security advisories (OSV records, the
// Debian Security Tracker, Debian DSA/DLA/CVE lists, Alpine secdb) into one normalized Advisory
// type, compares versions by each package system's own rules, and matches a host's installed
// packages against the advisories of its release.
//
// The package decides; it neither stores nor serves. Decoders stream their input and hand each
// Advisory to a callback, so a caller can store records as they come.
package advisories

import (
	"strings"
	"time"
)

// Source names who published an advisory: a distribution ("ubuntu", "debian", "almalinux",
// "rocky", "redhat", "alpine", "wolfi", "chainguard") or "osv:<ecosystem>" for a language
// ecosystem of OSV ("osv:npm", "osv:Maven").
type Source string

// Distribution sources.
const (
	SourceUbuntu     Source = "ubuntu"
	SourceDebian     Source = "debian"
	SourceAlmaLinux  Source = "almalinux"
	SourceRocky      Source = "rocky"
	SourceRedHat     Source = "redhat"
	SourceAlpine     Source = "alpine"
	SourceWolfi      Source = "wolfi"
	SourceChainguard Source = "chainguard"
)

// OSVSource is the Source of an OSV language-ecosystem record.
func OSVSource(ecosystem string) Source { return Source("osv:" + ecosystem) }

// FixState says what the publisher states about a package in a release.
type FixState string

// Fix states, as the distribution states them.
const (
	Fixed       FixState = "fixed"        // a fixed version exists
	NotFixed    FixState = "not_fixed"    // affected, no fix yet
	WontFix     FixState = "wont_fix"     // affected, the publisher will not fix (ignored, end of life)
	NotAffected FixState = "not_affected" // the publisher says the release was never affected
)

// Advisory is one published record, normalized. ID is the publisher's id (USN-6719-1,
// ALSA-2024:3214, DSA-5343-1, GHSA-…, or the CVE id for per-CVE sources). The Debian tracker
// and Alpine secdb publish per CVE and package, so their ID (the CVE) repeats across packages:
// (Source, ID, Affected[].Package) is the unique key.
type Advisory struct {
	ID        string
	Source    Source
	Aliases   []string // other ids of the same record (USN, UBUNTU-CVE, DLA …), CVEs excluded
	CVEs      []string // the CVE ids the record is about, sorted, unique
	Summary   string
	Severity  string // the publisher's word (low, moderate, high, critical …) when it gives one
	Published time.Time
	Modified  time.Time
	Withdrawn bool
	Affected  []AffectedPackage
}

// AffectedPackage is one (release, package) entry of an advisory.
type AffectedPackage struct {
	// Ecosystem is the publisher's name for the package universe, as in OSV
	// ("Ubuntu:22.04:LTS", "Ubuntu:Pro:18.04:LTS", "Debian:11", "AlmaLinux:9", "Alpine:v3.16",
	// "npm"); decoders of non-OSV formats fill it in the same style.
	Ecosystem string
	// Distro and Release name the distribution release the entry is about ("ubuntu"/"22.04",
	// "debian"/"11" or "sid", "almalinux"/"9", "rhel"/"9", "alpine"/"3.16"); both are empty for
	// a language ecosystem.
	Distro  string
	Release string
	Scheme  Scheme // how versions of this entry compare
	// Package is the name the entry is keyed by. IsSource says it is a source package
	// (Debian/Ubuntu source, Alpine origin); otherwise it is a binary RPM or an ecosystem package.
	Package  string
	IsSource bool
	// Binaries maps each binary package built from the source to its own fixed version
	// (Ubuntu's ecosystem_specific.binaries), which can differ from the source's (an epoch).
	Binaries map[string]string
	Ranges   []Range  // affected ranges; a package is affected when any range holds it
	Versions []string // explicitly listed affected versions (used when Ranges is empty)
	Fixed    string   // the fixed version of a distribution entry ("" when none)
	FixState FixState
	ProOnly  bool     // the fix is only available with Ubuntu Pro (an Ubuntu:Pro:… ecosystem)
	CVEs     []string // the CVEs that apply to this release when the publisher says (cves_map); nil: all of the advisory's
	Note     string   // the publisher's reason or urgency when it gives one (no-dsa, end-of-life …)
}

// Range is one affected interval: Introduced ≤ v < Fixed, or Introduced ≤ v ≤ LastAffected,
// or Introduced ≤ v when both are empty. Introduced "" or "0" means from the start.
type Range struct {
	Introduced   string
	Fixed        string
	LastAffected string
}

// AppliesCVEs returns the CVEs of adv that apply to entry a.
func (adv *Advisory) AppliesCVEs(a *AffectedPackage) []string {
	if len(a.CVEs) > 0 {
		return a.CVEs
	}
	return adv.CVEs
}

// isCVE tells a CVE id.
func isCVE(id string) bool { return strings.HasPrefix(id, "CVE-") }

// splitIDs sorts ids into CVEs and other aliases; UBUNTU-CVE-… counts as its CVE and as an alias.
func splitIDs(self string, ids []string) (cves, aliases []string) {
	seenC, seenA := map[string]bool{}, map[string]bool{self: true}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		c := strings.TrimPrefix(id, "UBUNTU-")
		if isCVE(c) && !seenC[c] {
			seenC[c] = true
			cves = append(cves, c)
		}
		if !isCVE(id) && !seenA[id] {
			seenA[id] = true
			aliases = append(aliases, id)
		}
	}
	sortStrings(cves)
	return cves, aliases
}

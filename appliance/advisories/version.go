package advisories

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	pep440 "github.com/aquasecurity/go-pep440-version"
	apk "github.com/knqyf263/go-apk-version"
	deb "github.com/knqyf263/go-deb-version"
	rpm "github.com/knqyf263/go-rpm-version"
	mvn "github.com/masahiro331/go-mvn-version"
	"golang.org/x/mod/semver"
)

// Scheme is a version ordering: the package system's own rules.
type Scheme string

// Version schemes.
const (
	SchemeDpkg   Scheme = "dpkg"   // Debian/Ubuntu: epoch, upstream, revision, '~' first
	SchemeRPM    Scheme = "rpm"    // RHEL family: epoch, then rpmvercmp on version and release
	SchemeAPK    Scheme = "apk"    // Alpine, Wolfi
	SchemeSemver Scheme = "semver" // npm, Go, crates.io, Packagist, NuGet, RubyGems (approximately)
	SchemePEP440 Scheme = "pep440" // PyPI
	SchemeMaven  Scheme = "maven"  // Maven ComparableVersion
)

// SchemeOf returns the scheme for an OSV ecosystem name ("Ubuntu:22.04:LTS", "npm", "PyPI" …).
func SchemeOf(ecosystem string) Scheme {
	base, _, _ := strings.Cut(ecosystem, ":")
	switch base {
	case "Ubuntu", "Debian":
		return SchemeDpkg
	case "AlmaLinux", "Rocky Linux", "Red Hat", "openSUSE", "SUSE", "Mageia", "openEuler":
		return SchemeRPM
	case "Alpine", "Wolfi", "Chainguard":
		return SchemeAPK
	case "PyPI":
		return SchemePEP440
	case "Maven":
		return SchemeMaven
	}
	return SchemeSemver
}

// Compare orders a and b by scheme s: -1, 0 or +1. A version the scheme cannot parse is an error.
func Compare(s Scheme, a, b string) (int, error) {
	c, err := compare(s, a, b)
	switch {
	case c < 0:
		c = -1
	case c > 0:
		c = 1
	}
	return c, err
}

func compare(s Scheme, a, b string) (int, error) {
	switch s {
	case SchemeDpkg:
		return both("dpkg", deb.NewVersion, a, b, func(x, y deb.Version) int { return x.Compare(y) })
	case SchemeRPM:
		return rpm.NewVersion(a).Compare(rpm.NewVersion(b)), nil
	case SchemeAPK:
		return both("apk", apk.NewVersion, a, b, apk.Version.Compare)
	case SchemePEP440:
		return both("pep440", pep440.Parse, a, b, pep440.Version.Compare)
	case SchemeMaven:
		return both("maven", mvn.NewVersion, a, b, mvn.Version.Compare)
	}
	return compareSemver(a, b)
}

// both parses a and b with parse and compares them with cmp.
func both[V any](scheme string, parse func(string) (V, error), a, b string, cmp func(V, V) int) (int, error) {
	va, err := parse(a)
	if err != nil {
		return 0, fmt.Errorf("%s version %q: %w", scheme, a, err)
	}
	vb, err := parse(b)
	if err != nil {
		return 0, fmt.Errorf("%s version %q: %w", scheme, b, err)
	}
	return cmp(va, vb), nil
}

// compareSemver orders semantic versions with or without a leading "v" (Go, Composer purls).
func compareSemver(a, b string) (int, error) {
	va, vb := "v"+strings.TrimPrefix(a, "v"), "v"+strings.TrimPrefix(b, "v")
	if !semver.IsValid(va) {
		return 0, fmt.Errorf("semver version %q: invalid", a)
	}
	if !semver.IsValid(vb) {
		return 0, fmt.Errorf("semver version %q: invalid", b)
	}
	return semver.Compare(va, vb), nil
}

// rebuildTag is the vendor suffix a RHEL rebuild adds to a release (".alma.1", ".rocky.0").
var rebuildTag = regexp.MustCompile(`\.(alma|rocky)(\.[0-9]+)*$`)

// StripRebuildTag removes a RHEL rebuild's vendor suffix: 3.6.8-62.el8_10.alma.1 and
// 3.6.8-62.el8_10.rocky.0 both name the RHEL fix 3.6.8-62.el8_10.
func StripRebuildTag(evr string) string { return rebuildTag.ReplaceAllString(evr, "") }

// rpmEpoch splits "E:V-R" into its epoch ("" when absent) and the rest.
func rpmEpoch(evr string) (epoch, rest string) {
	if i := strings.IndexByte(evr, ':'); i > 0 && isDigits(evr[:i]) {
		return evr[:i], evr[i+1:]
	}
	return "", evr
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func sortStrings(s []string) { sort.Strings(s) }

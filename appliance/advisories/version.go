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
		va, err := deb.NewVersion(a)
		if err != nil {
			return 0, fmt.Errorf("dpkg version %q: %w", a, err)
		}
		vb, err := deb.NewVersion(b)
		if err != nil {
			return 0, fmt.Errorf("dpkg version %q: %w", b, err)
		}
		return va.Compare(vb), nil
	case SchemeRPM:
		return rpm.NewVersion(a).Compare(rpm.NewVersion(b)), nil
	case SchemeAPK:
		va, err := apk.NewVersion(a)
		if err != nil {
			return 0, fmt.Errorf("apk version %q: %w", a, err)
		}
		vb, err := apk.NewVersion(b)
		if err != nil {
			return 0, fmt.Errorf("apk version %q: %w", b, err)
		}
		return va.Compare(vb), nil
	case SchemePEP440:
		va, err := pep440.Parse(a)
		if err != nil {
			return 0, fmt.Errorf("pep440 version %q: %w", a, err)
		}
		vb, err := pep440.Parse(b)
		if err != nil {
			return 0, fmt.Errorf("pep440 version %q: %w", b, err)
		}
		return va.Compare(vb), nil
	case SchemeMaven:
		va, err := mvn.NewVersion(a)
		if err != nil {
			return 0, fmt.Errorf("maven version %q: %w", a, err)
		}
		vb, err := mvn.NewVersion(b)
		if err != nil {
			return 0, fmt.Errorf("maven version %q: %w", b, err)
		}
		return va.Compare(vb), nil
	}
	return compareSemver(a, b)
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

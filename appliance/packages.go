package appliance

import (
	"context"
	"time"
)

// HostOS is what a host says of its operating system beyond name and version: the os-release
// ID and VERSION_ID ("ubuntu"/"22.04", "rocky"/"9.4"), codename, build (Windows
// CurrentBuild.UBR, macOS build), architecture. Inferred lists the fields the server derived
// from the name and version because the host did not report them.
type HostOS struct {
	ID, VersionID, Codename, Build, Arch string
	Inferred                             string // comma-separated field names, "" when all reported
}

// PackageInfo is what a reported item says of itself as a package. Source is the package
// system or ecosystem (deb, rpm, apk, windows, macos, brew, npm …); Release is the
// distribution release a deb/rpm/apk package belongs to ("ubuntu:22.04", "rocky:9",
// "alpine:3.19"), which keys the product apart from the same package of another release.
// Inferred lists the fields the server derived rather than read from the report.
type PackageInfo struct {
	Source, Release, SourcePackage, SourceVersion, PURL, Arch, BundleID string
	Inferred                                                            string
}

// Finding bases.
const (
	BasisAdvisory        = "advisory"         // the distribution's own advisory decided
	BasisCPERange        = "cpe_range"        // NVD configuration ranges on the CPE identity
	BasisUpstreamVersion = "upstream_version" // NVD ranges on the upstream part of a package version (backports not considered)
)

// Finding is where a match came from and what fixes it.
type Finding struct {
	Source       string // nvd, ubuntu, debian, alpine, almalinux, osv:<ecosystem> …
	Basis        string // advisory, cpe_range, upstream_version
	FixedVersion string // "" when unknown or none
	FixState     string // fixed, not_fixed, wont_fix, not_affected ("" when the source says nothing)
	ProOnly      bool   // the fix is available with Ubuntu Pro only
	Advisories   string // the advisory ids that report it, comma-separated
}

// AdvisoryEntry is one stored (source, advisory id, ecosystem, package) of an imported
// advisory. Detail is the decoder's full entry (ranges, versions, scheme …) as JSON, which
// only the advisories layer reads.
type AdvisoryEntry struct {
	Source, ID, Ecosystem, Package string
	Distro, Release                string
	Fixed, FixState                string
	ProOnly, Withdrawn             bool
	Binaries                       map[string]string
	CVEs                           []string
	Detail                         []byte
}

// AdvisoryReader reads the imported advisories.
type AdvisoryReader interface {
	EachAdvisoryEntry(ctx context.Context, fn func(AdvisoryEntry) error) error
}

// AdvisoryWriter imports advisories.
type AdvisoryWriter interface {
	// UpsertAdvisoryEntry stores e and tells whether anything changed (an identical entry is
	// left alone).
	UpsertAdvisoryEntry(ctx context.Context, e AdvisoryEntry, at time.Time) (bool, error)
}

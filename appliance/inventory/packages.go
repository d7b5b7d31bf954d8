package inventory

import (
	"context"
	"regexp"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/advisories"
	"github.com/vulnkeeper/vulnkeeper/appliance/resolve"
)

// Package systems a distribution package comes from.
const (
	sourceDeb = "deb"
	sourceRPM = "rpm"
	sourceAPK = "apk"
)

// osNames maps words of an os.name to os-release IDs, for hosts that report only a name.
var osNames = []struct{ word, id string }{
	{"ubuntu", "ubuntu"}, {"debian", "debian"}, {"rocky", "rocky"}, {"almalinux", "almalinux"},
	{"alma linux", "almalinux"}, {"red hat", "rhel"}, {"rhel", "rhel"}, {"centos", "centos"},
	{"alpine", "alpine"}, {"wolfi", "wolfi"}, {"windows", "windows"}, {"macos", "macos"}, {"mac os", "macos"},
	{"fedora", "fedora"}, {"opensuse", "opensuse"}, {"suse", "sles"},
}

var leadingVersion = regexp.MustCompile(`\d+(\.\d+)*`)

// packageSystemOf is the package system of a Linux distribution's os-release ID.
var packageSystemOf = map[string]string{
	"ubuntu": sourceDeb, "debian": sourceDeb, "rocky": sourceRPM, "almalinux": sourceRPM, "rhel": sourceRPM,
	"centos": sourceRPM, "fedora": sourceRPM, "opensuse": sourceRPM, "sles": sourceRPM, "alpine": sourceAPK,
	"wolfi": sourceAPK, "chainguard": sourceAPK,
}

// classify completes what a report says of its host and packages: os-release facts inferred
// from the OS name and version when absent, each item's package system (inferred from its
// vendor, version or name when absent) and, for a package of the host's distribution, the
// release that keys its product and decides which advisories apply.
func (e *Engine) classify(rep *Report) {
	clip := func(s string) string {
		s = cleanText(s)
		if len(s) <= maxShort { // no more runes than bytes
			return s
		}
		if r := []rune(s); len(r) > maxShort {
			s = string(r[:maxShort])
		}
		return s
	}
	os := &rep.OS
	for _, f := range []*string{&os.ID, &os.VersionID, &os.Codename, &os.Build, &os.Arch} {
		*f = clip(*f)
	}
	os.ID = strings.ToLower(os.ID)
	os.Inferred = ""
	var inferred []string
	if os.ID == "" {
		name := strings.ToLower(rep.OSName)
		for _, n := range osNames {
			if strings.Contains(name, n.word) {
				os.ID = n.id
				inferred = append(inferred, "id")
				break
			}
		}
	}
	if os.VersionID == "" && os.ID != "" && os.ID != "windows" {
		if v := leadingVersion.FindString(rep.OSVersion); v != "" {
			os.VersionID = v
			inferred = append(inferred, "version_id")
		}
	}
	os.Inferred = strings.Join(inferred, ",")
	release := releaseKey(*os)
	system := packageSystemOf[os.ID]
	for i := range rep.Items {
		it := &rep.Items[i]
		k := &it.Package
		for _, f := range []*string{&k.Source, &k.SourcePackage, &k.SourceVersion, &k.PURL, &k.Arch, &k.BundleID} {
			*f = clip(*f)
		}
		k.Source = strings.ToLower(k.Source)
		k.Release, k.Inferred = "", ""
		if k.Source == "" {
			if k.Source = inferSource(*it, system); k.Source != "" {
				k.Inferred = "source"
			}
		}
		if k.Source != "" && k.Source == system && release != "" {
			k.Release = release
		}
	}
}

// releaseKey names the release whose advisories apply to a host's packages, at the grain the
// distributions publish them: Ubuntu YY.MM, Debian and the RHEL family by major release,
// Alpine by major.minor.
func releaseKey(os appliance.HostOS) string {
	v := os.VersionID
	switch os.ID {
	case "debian":
		if v == "" {
			v = advisories.DebianRelease(os.Codename)
		}
		v, _, _ = strings.Cut(v, ".")
	case "rocky", "almalinux", "rhel", "centos":
		v, _, _ = strings.Cut(v, ".")
	case "alpine", "ubuntu": // 3.19.1 → 3.19, 22.04.4 → 22.04
		if parts := strings.Split(v, "."); len(parts) > 2 {
			v = parts[0] + "." + parts[1]
		}
	case "wolfi", "chainguard":
		v = "rolling"
	default:
		return ""
	}
	if v == "" {
		return ""
	}
	return os.ID + ":" + v
}

var (
	debVersion = regexp.MustCompile(`(\+deb\d+u\d+|ubuntu\d|\+b\d+$|~deb\d+)`)
	rpmVersion = regexp.MustCompile(`\.el\d+(_\d+)?`)
	apkVersion = regexp.MustCompile(`-r\d+$`)
)

// inferSource guesses the package system of an item without one, from its purl's type, its vendor (Debian's
// and Ubuntu's maintainers, Red Hat), its version (+deb11u5, ubuntu0.1, .el8_7, -r3 on an
// Alpine host), a macOS application name or Homebrew.
func inferSource(it Item, hostSystem string) string {
	if t := resolve.PURLType(it.Package.PURL); osvEcosystem(t) != "" || t == "deb" || t == "rpm" || t == "apk" {
		return t
	}
	vendor := strings.ToLower(it.Vendor)
	switch {
	case strings.HasPrefix(vendor, "debian") || strings.HasPrefix(vendor, "ubuntu developers"):
		return sourceDeb
	case strings.HasPrefix(vendor, "red hat") || strings.Contains(vendor, "rocky enterprise") || strings.Contains(vendor, "almalinux"):
		return sourceRPM
	case vendor == "homebrew":
		return "brew"
	case strings.HasSuffix(strings.ToLower(it.Product), ".app"):
		return "macos"
	case debVersion.MatchString(it.Version):
		return sourceDeb
	case rpmVersion.MatchString(it.Version):
		return sourceRPM
	case hostSystem == sourceAPK && apkVersion.MatchString(it.Version):
		return sourceAPK
	}
	return ""
}

// upstreamVersion is the upstream part of a package version: epoch and distribution
// revision removed (1.1.1n-0+deb11u5 → 1.1.1n, 1:2.44-1build3 → 2.44, 1.1.1k-12.el8_9 →
// 1.1.1k, 1.2.3-r3 → 1.2.3), and Debian repack suffixes (+dfsg, +ds, ~) dropped.
func upstreamVersion(v string) string {
	if i := strings.IndexByte(v, ':'); i > 0 && isDigits(v[:i]) {
		v = v[i+1:]
	}
	if i := strings.LastIndexByte(v, '-'); i > 0 {
		v = v[:i]
	}
	for _, cut := range []string{"+dfsg", ".dfsg", "+ds", ".ds", "+really", "~"} {
		if i := strings.Index(v, cut); i > 0 {
			v = v[:i]
		}
	}
	return v
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// hostOf is the advisories' view of a package release ("ubuntu:22.04").
func hostOf(release string) advisories.Host {
	id, v, _ := strings.Cut(release, ":")
	return advisories.Host{OSID: id, VersionID: v}
}

// resolvePackage gives a distribution package its identity. A package of a release the
// imported advisories cover is identified as the package (method "package"); its upstream
// CPE identity, resolved from its source package name, is kept for display and search. A
// package of an uncovered release is resolved by its source package name (the binary name
// when none is known) and later matched by the upstream part of its version. ok is false
// for an item that is not a distribution package.
func (e *Engine) resolvePackage(ctx context.Context, it Item) (resolution, bool, error) {
	if eco, _ := ecosystemPackage(it.Product, it.Package); eco != "" && e.advisoryIndex().Covers("", eco) {
		// A language package of an ecosystem whose advisories are imported is its own identity.
		return resolution{method: appliance.ResolutionPackage, confidence: 1}, true, nil
	}
	if it.Package.Release == "" {
		return resolution{}, false, nil
	}
	name := it.Package.SourcePackage
	ix := e.advisoryIndex()
	h := hostOf(it.Package.Release)
	if name == "" {
		name = ix.SourceOf(h.OSID, h.VersionID, it.Product)
	}
	if name == "" {
		name = it.Product
	}
	var res resolution
	if id, ok := upstreamIdentity(name, it.Product); ok {
		res = resolution{identity: id, method: appliance.ResolutionExact, confidence: 1}
	} else {
		r, err := e.resolveShared(ctx, "", name)
		if err != nil {
			return resolution{}, true, err
		}
		res = e.withoutRefused(r, "", it.Package)
	}
	if e.covered(h) {
		res.method, res.confidence = appliance.ResolutionPackage, 1
	}
	return res, true, nil
}

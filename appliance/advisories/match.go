package advisories

import (
	"fmt"
	"strings"
)

// Host is what matching needs to know of a host: its os-release ID, VERSION_ID and
// VERSION_CODENAME (the codename is used when VERSION_ID is absent, as on Debian sid).
type Host struct {
	OSID      string
	VersionID string
	Codename  string
}

// Installed is one installed package as the host reports it. Version may lack the rpm epoch
// (rpm -qa). SourcePackage/SourceVersion are dpkg's Source: or the source RPM when known.
type Installed struct {
	Name          string
	Version       string
	Arch          string
	SourcePackage string
	SourceVersion string
}

// Basis says how a finding was reached.
type Basis string

// BasisAdvisory: the distribution's (or ecosystem's) own advisory decided.
const BasisAdvisory Basis = "advisory"

// Finding is one installed package affected by one advisory.
type Finding struct {
	Package       string // installed name, as reported
	Version       string // installed version, as reported
	SourcePackage string // the source package the advisory names, when it names a source
	AdvisoryID    string
	CVEs          []string // the advisory's CVEs that apply to this release
	Source        Source
	DataRelease   string // the advisory data the package was matched against ("almalinux:9")
	FixedVersion  string // "" when no fix exists
	FixState      FixState
	ProOnly       bool // the fix is available with Ubuntu Pro only
	Basis         Basis
}

// Coverage says whether the loaded advisories speak for a host's release.
type Coverage string

// Coverage values. NotCovered ("no data", e.g. an EOL release no record names) differs from
// "not affected": the host's packages must then be judged some other way.
const (
	Covered     Coverage = "covered"
	NotCovered  Coverage = "not_covered"
	Unsupported Coverage = "unsupported" // not a distribution whose advisories we read
)

// Result is the outcome of matching one host.
type Result struct {
	Coverage    Coverage
	DataRelease string // "ubuntu:22.04", "almalinux:9" for a Rocky 9 host; "" when not covered
	Findings    []Finding
	Problems    []error // versions that could not be compared (the pair is skipped)
}

// candidates lists the advisory releases that may speak for a host, best first: its own,
// then for the RHEL family another rebuild of the same major release.
func (h Host) candidates() []relKey {
	id := strings.ToLower(h.OSID)
	switch id {
	case "ubuntu":
		return []relKey{{"ubuntu", h.VersionID}}
	case "debian":
		rel := h.VersionID
		if rel == "" {
			rel = DebianRelease(h.Codename)
		}
		return []relKey{{"debian", debianRelease(rel)}}
	case "alpine":
		return []relKey{{"alpine", alpineRelease(h.VersionID)}}
	case "wolfi", "chainguard":
		return []relKey{{id, "rolling"}}
	case "rocky", "almalinux", "rhel", "centos":
		m := majorOf(h.VersionID)
		fam := []string{"rocky", "almalinux", "rhel"}
		switch id {
		case "almalinux":
			fam = []string{"almalinux", "rocky", "rhel"}
		case "rhel", "centos":
			fam = []string{"rhel", "almalinux", "rocky"}
		}
		out := make([]relKey, len(fam))
		for i, d := range fam {
			out[i] = relKey{d, m}
		}
		return out
	}
	return nil
}

// Match matches a host's installed packages against the advisories of its release. For the
// RHEL family each package is matched against the first rebuild (own distribution first) whose
// advisories name it, so partial data of one rebuild does not hide another's.
func (ix *Index) Match(h Host, pkgs []Installed) Result {
	cands := h.candidates()
	if len(cands) == 0 {
		return Result{Coverage: Unsupported}
	}
	var runs []*matchRun
	for _, k := range cands {
		if ri := ix.releases[k]; ri != nil {
			runs = append(runs, &matchRun{ri: ri, data: k.distro + ":" + k.release})
		}
	}
	if len(runs) == 0 {
		return Result{Coverage: NotCovered}
	}
	res := Result{Coverage: Covered, DataRelease: runs[0].data}
	for _, p := range pkgs {
		for _, m := range runs {
			if m.pkg(p) {
				break
			}
		}
	}
	for _, m := range runs {
		res.Findings = append(res.Findings, m.found...)
		res.Problems = append(res.Problems, m.problems...)
	}
	return res
}

// MatchEcosystem matches language packages (npm, PyPI, Maven, Go …: OSV ecosystem names)
// against the loaded OSV records of that ecosystem, by exact package name.
func (ix *Index) MatchEcosystem(ecosystem string, pkgs []Installed) Result {
	ri := ix.releases[relKey{release: ecosystem}]
	if ri == nil {
		return Result{Coverage: NotCovered}
	}
	m := matchRun{ri: ri, data: ecosystem}
	for _, p := range pkgs {
		m.pkg(p)
	}
	return Result{Coverage: Covered, DataRelease: ecosystem, Findings: m.found, Problems: m.problems}
}

// matchRun is the matching of one host against one release's advisories.
type matchRun struct {
	ri       *releaseIndex
	data     string
	found    []Finding
	problems []error
	byKey    map[findingKey]int
}

type findingKey struct {
	pkg, adv, src string
	source        Source
}

// pkg matches one installed package: by its binary name where an advisory lists the binary
// with its own fixed version, else by its own name or its source package. It tells whether
// any advisory entry names the package.
func (m *matchRun) pkg(p Installed) bool {
	name := trimArch(p.Name)
	done := map[entryRef]bool{}
	for _, ref := range m.ri.byBinary[name] {
		done[ref] = true
		e := ref.entry()
		m.check(p, ref, p.Version, []Range{{Introduced: "0", Fixed: e.Binaries[name]}}, e.Binaries[name])
	}
	src := p.SourcePackage
	if src == "" {
		src = m.ri.sourceOf[name]
	}
	for _, key := range [2]string{name, src} {
		if key == "" {
			continue
		}
		for _, ref := range m.ri.byName[key] {
			if done[ref] {
				continue
			}
			done[ref] = true
			v := p.Version
			if key != name && p.SourceVersion != "" {
				v = p.SourceVersion
			}
			e := ref.entry()
			m.check(p, ref, v, e.Ranges, e.Fixed)
		}
	}
	return len(done) > 0
}

// check records a finding when version v lies in one of ranges of the entry.
func (m *matchRun) check(p Installed, ref entryRef, v string, ranges []Range, fixed string) {
	e := ref.entry()
	if e.FixState == NotAffected {
		return
	}
	v = m.installedVersion(e, trimArch(p.Name), v)
	hit, err := affected(e, v, ranges)
	if err != nil {
		m.problems = append(m.problems, fmt.Errorf("%s %s vs %s: %w", p.Name, p.Version, ref.adv.ID, err))
		return
	}
	if !hit {
		return
	}
	f := Finding{
		Package: p.Name, Version: p.Version, AdvisoryID: ref.adv.ID, CVEs: ref.adv.AppliesCVEs(e),
		Source: ref.adv.Source, DataRelease: m.data, FixedVersion: fixed, FixState: e.FixState,
		ProOnly: e.ProOnly, Basis: BasisAdvisory,
	}
	if fixed == "" && e.FixState == Fixed {
		f.FixState = NotFixed
	}
	if e.IsSource {
		f.SourcePackage = e.Package
	}
	m.add(f)
}

// add keeps one finding per (package, advisory, source package): a fix without Ubuntu Pro
// wins over a Pro-only one.
func (m *matchRun) add(f Finding) {
	if m.byKey == nil {
		m.byKey = map[findingKey]int{}
	}
	k := findingKey{f.Package, f.AdvisoryID, f.SourcePackage, f.Source}
	if i, ok := m.byKey[k]; ok {
		if m.found[i].ProOnly && !f.ProOnly {
			m.found[i] = f
		}
		return
	}
	m.byKey[k] = len(m.found)
	m.found = append(m.found, f)
}

// installedVersion prepares an installed rpm version: the rebuild tag goes, and a missing
// epoch (rpm -qa omits it) is the one the advisories give for the package.
func (m *matchRun) installedVersion(e *AffectedPackage, name, v string) string {
	if e.Scheme != SchemeRPM {
		return v
	}
	if ep, _ := rpmEpoch(v); ep == "" {
		if ep = m.ri.epochOf[name]; ep == "" {
			ep = m.ri.epochOf[e.Package]
		}
		if ep != "" {
			v = ep + ":" + v
		}
	}
	return v
}

// affected tells whether v lies in any of ranges (or, with no ranges, in e.Versions; with
// neither, an unfixed entry affects every version).
func affected(e *AffectedPackage, v string, ranges []Range) (bool, error) {
	if len(ranges) == 0 {
		if len(e.Versions) == 0 {
			return e.FixState == NotFixed || e.FixState == WontFix, nil
		}
		for _, x := range e.Versions {
			if c, err := cmp(e.Scheme, v, x); err == nil && c == 0 {
				return true, nil
			}
		}
		return false, nil
	}
	for _, r := range ranges {
		hit, err := inRange(e.Scheme, v, r)
		if err != nil || hit {
			return hit, err
		}
	}
	return false, nil
}

func inRange(s Scheme, v string, r Range) (bool, error) {
	if r.Introduced != "" && r.Introduced != "0" {
		c, err := cmp(s, v, r.Introduced)
		if err != nil || c < 0 {
			return false, err
		}
	}
	switch {
	case r.Fixed != "":
		c, err := cmp(s, v, r.Fixed)
		return c < 0, err
	case r.LastAffected != "":
		c, err := cmp(s, v, r.LastAffected)
		return c <= 0, err
	}
	return true, nil
}

// cmp compares with the rpm rebuild tags removed on both sides.
func cmp(s Scheme, a, b string) (int, error) {
	if s == SchemeRPM {
		a, b = StripRebuildTag(a), StripRebuildTag(b)
	}
	return Compare(s, a, b)
}

package inventory

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/package-url/packageurl-go"
	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/advisories"
)

// advisoryDetail is what an advisory entry stores beyond its columns (appliance.AdvisoryEntry.Detail).
type advisoryDetail struct {
	Entry     advisories.AffectedPackage `json:"entry"`
	Summary   string                     `json:"summary,omitempty"`
	Severity  string                     `json:"severity,omitempty"`
	Aliases   []string                   `json:"aliases,omitempty"`
	Published time.Time                  `json:"published,omitzero"`
	Modified  time.Time                  `json:"modified,omitzero"`
}

// nvdRange is the finding of an NVD configuration match on a product's CPE identity.
var nvdRange = appliance.Finding{Source: "nvd", Basis: appliance.BasisCPERange}

// advisoryIndex is the loaded advisories (an empty index before the first load).
func (e *Engine) advisoryIndex() *advisories.Index {
	if ix := e.advisories.Load(); ix != nil {
		return ix
	}
	return advisories.NewIndex()
}

// covered tells whether the loaded advisories speak for a release (for the RHEL family,
// those of another rebuild of the same major release count).
func (e *Engine) covered(h advisories.Host) bool {
	return e.advisoryIndex().Match(h, nil).Coverage == advisories.Covered
}

// loadAdvisories rebuilds the advisories index from the store.
func (e *Engine) loadAdvisories(ctx context.Context) error {
	start := time.Now()
	ix := advisories.NewIndex()
	err := e.store.EachAdvisoryEntry(ctx, func(row appliance.AdvisoryEntry) error {
		if row.Withdrawn {
			return nil
		}
		var d advisoryDetail
		if err := json.Unmarshal(row.Detail, &d); err != nil {
			return fmt.Errorf("advisory %s %s: %w", row.ID, row.Package, err)
		}
		d.Entry.CVEs = nil // the row's CVEs are those that apply to this entry
		ix.Add(advisories.Advisory{ID: row.ID, Source: advisories.Source(row.Source), CVEs: row.CVEs, Aliases: d.Aliases,
			Summary: d.Summary, Severity: d.Severity, Published: d.Published, Modified: d.Modified,
			Affected: []advisories.AffectedPackage{d.Entry}})
		return nil
	})
	if err != nil {
		return fmt.Errorf("load advisories: %w", err)
	}
	e.advisories.Store(ix)
	e.log.Info("advisories loaded", slog.Int("entries", ix.Len()), slog.Duration("took", time.Since(start)))
	return nil
}

// matchPackage matches a distribution package. A package of a release the advisories cover
// is matched by them only (ok, even with no findings); one of an uncovered release falls back
// to NVD ranges on its CPE identity at the upstream part of its version, and says so. ok is
// false for a product that is not a distribution package.
func (e *Engine) matchPackage(p appliance.Product) ([]appliance.MatchInput, bool) {
	if eco, name := ecosystemPackage(p.Name, p.Package); eco != "" {
		version := p.Version
		if eco == "Go" { // Go modules write v1.2.3; OSV's Go ranges 1.2.3
			version = strings.TrimPrefix(version, "v")
		}
		res := e.advisoryIndex().MatchEcosystem(eco, []advisories.Installed{{Name: name, Version: version}})
		if res.Coverage != advisories.Covered {
			return nil, false // no advisories of the ecosystem imported: the CPE path decides
		}
		return advisoryMatches(res.Findings, advisories.SchemeOf(eco)), true
	}
	if p.Package.Release == "" {
		return nil, false
	}
	res := e.advisoryIndex().Match(hostOf(p.Package.Release), []advisories.Installed{{Name: p.Name, Version: p.Version,
		Arch: p.Package.Arch, SourcePackage: p.Package.SourcePackage, SourceVersion: p.Package.SourceVersion}})
	if res.Coverage != advisories.Covered {
		q := p
		q.Package, q.Version = appliance.PackageInfo{}, upstreamVersion(p.Version)
		out := e.match(q)
		for i := range out {
			out[i].Basis = appliance.BasisUpstreamVersion
		}
		return out, true
	}
	for _, err := range res.Problems {
		e.log.Debug("advisory comparison skipped", slog.Any("error", err))
	}
	return advisoryMatches(res.Findings, schemeOf(p.Package.Source)), true
}

func schemeOf(source string) advisories.Scheme {
	switch source {
	case sourceRPM:
		return advisories.SchemeRPM
	case sourceAPK:
		return advisories.SchemeAPK
	}
	return advisories.SchemeDpkg
}

// advisoryMatches turns advisory findings into one match per CVE. Where several advisories
// name a CVE, a fix without Ubuntu Pro beats a Pro-only one, which beats none, and of two
// fixes the higher version (the one that fixes all) is shown.
func advisoryMatches(found []advisories.Finding, scheme advisories.Scheme) []appliance.MatchInput {
	byCVE := map[string]*appliance.MatchInput{}
	ids := map[string][]string{}
	var order []string
	for _, f := range found {
		cves := f.CVEs
		if len(cves) == 0 {
			cves = []string{f.AdvisoryID}
		}
		m := appliance.MatchInput{Platform: f.DataRelease, Finding: appliance.Finding{
			Source: string(f.Source), Basis: appliance.BasisAdvisory, FixedVersion: f.FixedVersion,
			FixState: string(f.FixState), ProOnly: f.ProOnly}}
		for _, c := range cves {
			m.CVEID = c
			ids[c] = append(ids[c], f.AdvisoryID)
			cur := byCVE[c]
			if cur == nil {
				order = append(order, c)
				mm := m
				byCVE[c] = &mm
				continue
			}
			if better(m.Finding, cur.Finding, scheme) {
				*cur = m
			}
		}
	}
	out := make([]appliance.MatchInput, 0, len(order))
	for _, c := range order {
		m := *byCVE[c]
		m.Advisories = strings.Join(uniqueSorted(ids[c]), ",")
		out = append(out, m)
	}
	return out
}

func fixRank(f appliance.Finding) int {
	switch {
	case f.FixState == string(advisories.Fixed) && !f.ProOnly:
		return 3
	case f.FixState == string(advisories.Fixed):
		return 2
	}
	return 1
}

func better(a, b appliance.Finding, scheme advisories.Scheme) bool {
	if ra, rb := fixRank(a), fixRank(b); ra != rb {
		return ra > rb
	}
	c, err := advisories.Compare(scheme, a.FixedVersion, b.FixedVersion)
	return err == nil && c > 0
}

// uniqueSorted returns the distinct values of s in order.
func uniqueSorted(s []string) []string { return slices.Compact(slices.Sorted(slices.Values(s))) }

// ecosystemPackage is the OSV ecosystem and package name of a language package ("" for
// anything else). Its purl says both, in the ecosystem's own spelling of the name
// (pkg:maven/org.yaml/snakeyaml is Maven's org.yaml:snakeyaml, pkg:npm/%40babel/core npm's
// @babel/core); without one, its source and name do.
func ecosystemPackage(name string, k appliance.PackageInfo) (eco, pkg string) {
	if u, err := packageurl.FromString(k.PURL); err == nil {
		if eco = osvEcosystem(u.Type); eco != "" {
			switch {
			case u.Namespace == "":
				return eco, u.Name
			case eco == "Maven":
				return eco, u.Namespace + ":" + u.Name
			}
			return eco, u.Namespace + "/" + u.Name
		}
	}
	if eco = osvEcosystem(k.Source); eco != "" {
		return eco, name
	}
	return "", ""
}

// osvEcosystem is the OSV ecosystem of a language package's source or purl type ("" for
// anything else).
func osvEcosystem(source string) string {
	switch strings.ToLower(source) {
	case "npm":
		return "npm"
	case "pypi", "pip", "python":
		return "PyPI"
	case "maven":
		return "Maven"
	case "go", "golang", "gomod":
		return "Go"
	case "nuget":
		return "NuGet"
	case "gem", "rubygems":
		return "RubyGems"
	case "composer", "packagist":
		return "Packagist"
	case "cargo", "crates", "crates.io":
		return "crates.io"
	}
	return ""
}

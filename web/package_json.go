package web

import (
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// osFactsJSON is the os-release part of an inventory's "os" (all optional).
type osFactsJSON struct {
	ID        string `json:"id"`
	VersionID string `json:"version_id"`
	Codename  string `json:"codename"`
	Build     string `json:"build"`
	Arch      string `json:"arch"`
}

func (o osFactsJSON) hostOS() appliance.HostOS {
	return appliance.HostOS{ID: o.ID, VersionID: o.VersionID, Codename: o.Codename, Build: o.Build, Arch: o.Arch}
}

// packageItemJSON is the package part of an inventory item (all optional).
type packageItemJSON struct {
	Source        string `json:"source"`
	PURL          string `json:"purl"`
	SourcePackage string `json:"source_package"`
	SourceVersion string `json:"source_version"`
	Arch          string `json:"arch"`
	BundleID      string `json:"bundle_id"`
}

func (p packageItemJSON) info() appliance.PackageInfo {
	return appliance.PackageInfo{Source: p.Source, PURL: p.PURL, SourcePackage: p.SourcePackage,
		SourceVersion: p.SourceVersion, Arch: p.Arch, BundleID: p.BundleID}
}

// productPackageJSON is what a product shows of itself as a package.
type productPackageJSON struct {
	Source        string `json:"source,omitempty"`
	Release       string `json:"release,omitempty"`
	SourcePackage string `json:"source_package,omitempty"`
	SourceVersion string `json:"source_version,omitempty"`
	PURL          string `json:"purl,omitempty"`
	Arch          string `json:"arch,omitempty"`
	BundleID      string `json:"bundle_id,omitempty"`
	Inferred      string `json:"inferred,omitempty"`
	FixAvailable  bool   `json:"fix_available"`
}

func toProductPackageJSON(p appliance.Product) productPackageJSON {
	k := p.Package
	return productPackageJSON{Source: k.Source, Release: k.Release, SourcePackage: k.SourcePackage,
		SourceVersion: k.SourceVersion, PURL: k.PURL, Arch: k.Arch, BundleID: k.BundleID, Inferred: k.Inferred,
		FixAvailable: p.FixAvailable}
}

// epssJSON is FIRST's exploit prediction for a finding's CVE: null when EPSS has no score.
type epssJSON struct {
	Score      float64 `json:"score"`
	Percentile float64 `json:"percentile"`
	Date       string  `json:"date"` // YYYY-MM-DD of the model run
}

func toEPSSJSON(e *appliance.EPSSScore) *epssJSON {
	if e == nil {
		return nil
	}
	return &epssJSON{Score: e.Score, Percentile: e.Percentile, Date: e.Date.Format(time.DateOnly)}
}

// findingJSON is where a finding came from and what fixes it.
type findingJSON struct {
	Source       string  `json:"source"`
	Basis        string  `json:"basis"`
	FixedVersion *string `json:"fixed_version"`
	FixState     string  `json:"fix_state,omitempty"`
	ProOnly      bool    `json:"pro_only"`
	Fix          string  `json:"fix,omitempty"` // in words: "fix available", "fix available with Ubuntu Pro" …
	Advisories   string  `json:"advisories,omitempty"`
}

func toFindingJSON(f appliance.Finding) findingJSON {
	j := findingJSON{Source: f.Source, Basis: f.Basis, FixState: f.FixState, ProOnly: f.ProOnly, Advisories: f.Advisories}
	if f.FixedVersion != "" {
		v := f.FixedVersion
		j.FixedVersion = &v
	}
	switch {
	case f.FixState == "fixed" && f.ProOnly:
		j.Fix = "fix available with Ubuntu Pro"
	case f.FixState == "fixed":
		j.Fix = "fix available"
	case f.FixState == "not_fixed":
		j.Fix = "no fix yet"
	case f.FixState == "wont_fix":
		j.Fix = "will not be fixed"
	}
	return j
}

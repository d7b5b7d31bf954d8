package feeds

import (
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Wire forms of the bundle's records. A bundle body is the gzip of JSON values, one a line:
// the preamble, then one bundleLine per record — catalogue entries, CVE removals, CVEs, KEV
// entries, EPSS scores and advisory entries, in that order, so an import applies a removal
// before a later re-publication of the same CVE.

type bundlePreamble struct {
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	Serial    int64     `json:"serial"`
	Since     int64     `json:"since"`
	CreatedAt time.Time `json:"created_at"`
}

type bundleLine struct {
	Catalog  *wireCatalog  `json:"catalog,omitempty"`
	Removed  string        `json:"removed,omitempty"`
	CVE      *wireCVE      `json:"cve,omitempty"`
	KEV      *wireKEV      `json:"kev,omitempty"`
	EPSS     *wireEPSS     `json:"epss,omitempty"`
	Advisory *wireAdvisory `json:"advisory,omitempty"`
}

type wireCatalog struct {
	Part       string `json:"part"`
	Vendor     string `json:"vendor"`
	Product    string `json:"product"`
	Title      string `json:"title,omitempty"`
	Deprecated bool   `json:"deprecated,omitempty"`
	Source     string `json:"source"`
	CVEUsed    bool   `json:"cve_used,omitempty"`
	Platform   string `json:"platform,omitempty"`
}

type wireCVE struct {
	ID             string    `json:"id"`
	Description    string    `json:"description"`
	Status         string    `json:"status"`
	Published      time.Time `json:"published"`
	Modified       time.Time `json:"modified"`
	Score          *float64  `json:"score,omitempty"`
	Vector         string    `json:"vector,omitempty"`
	Severity       string    `json:"severity,omitempty"`
	ScoreVersion   string    `json:"score_version,omitempty"`
	Configurations []byte    `json:"configurations,omitempty"`
}

type wireKEV struct {
	CVEID      string    `json:"cve_id"`
	Name       string    `json:"name"`
	DateAdded  time.Time `json:"date_added"`
	DueDate    time.Time `json:"due_date"`
	Ransomware string    `json:"ransomware"`
}

type wireEPSS struct {
	CVEID      string    `json:"cve_id"`
	Score      float64   `json:"score"`
	Percentile float64   `json:"percentile"`
	Date       time.Time `json:"date"`
}

type wireAdvisory struct {
	Source    string            `json:"source"`
	ID        string            `json:"id"`
	Ecosystem string            `json:"ecosystem"`
	Package   string            `json:"package"`
	Distro    string            `json:"distro,omitempty"`
	Release   string            `json:"release,omitempty"`
	Fixed     string            `json:"fixed,omitempty"`
	FixState  string            `json:"fix_state,omitempty"`
	ProOnly   bool              `json:"pro_only,omitempty"`
	Withdrawn bool              `json:"withdrawn,omitempty"`
	Binaries  map[string]string `json:"binaries,omitempty"`
	CVEs      []string          `json:"cves,omitempty"`
	Detail    []byte            `json:"detail"`
}

func catalogLine(e appliance.CatalogEntry) bundleLine {
	return bundleLine{Catalog: &wireCatalog{e.Part, e.Vendor, e.Product, e.Title, e.Deprecated, e.Source, e.CVEUsed, e.Platform}}
}

func (w wireCatalog) entry() appliance.CatalogEntry {
	return appliance.CatalogEntry{Identity: appliance.Identity{Part: w.Part, Vendor: w.Vendor, Product: w.Product},
		Title: w.Title, Deprecated: w.Deprecated, Source: w.Source, CVEUsed: w.CVEUsed, Platform: w.Platform}
}

func cveLine(c appliance.CVERecord) bundleLine {
	w := wireCVE{c.ID, c.Description, c.Status, c.Published.UTC(), c.Modified.UTC(), nil, c.Vector, c.Severity, c.ScoreVersion, c.Configurations}
	if c.HasScore {
		w.Score = &c.Score
	}
	return bundleLine{CVE: &w}
}

func (w wireCVE) record() appliance.CVERecord {
	c := appliance.CVERecord{ID: w.ID, Description: w.Description, Status: w.Status, Published: w.Published, Modified: w.Modified,
		Vector: w.Vector, Severity: w.Severity, ScoreVersion: w.ScoreVersion, Configurations: w.Configurations}
	if w.Score != nil {
		c.Score, c.HasScore = *w.Score, true
	}
	return c
}

func kevLine(k appliance.KEVRecord) bundleLine {
	return bundleLine{KEV: &wireKEV{k.CVEID, k.Name, k.DateAdded.UTC(), k.DueDate.UTC(), k.Ransomware}}
}

func (w wireKEV) record() appliance.KEVRecord {
	return appliance.KEVRecord{CVEID: w.CVEID, Name: w.Name, DateAdded: w.DateAdded, DueDate: w.DueDate, Ransomware: w.Ransomware}
}

func epssLine(s appliance.EPSSScore) bundleLine {
	return bundleLine{EPSS: &wireEPSS{s.CVEID, s.Score, s.Percentile, s.Date.UTC()}}
}

func (w wireEPSS) score() appliance.EPSSScore {
	return appliance.EPSSScore{CVEID: w.CVEID, Score: w.Score, Percentile: w.Percentile, Date: w.Date}
}

func advisoryLine(e appliance.AdvisoryEntry) bundleLine {
	return bundleLine{Advisory: &wireAdvisory{e.Source, e.ID, e.Ecosystem, e.Package, e.Distro, e.Release, e.Fixed, e.FixState,
		e.ProOnly, e.Withdrawn, e.Binaries, e.CVEs, e.Detail}}
}

func (w wireAdvisory) entry() appliance.AdvisoryEntry {
	return appliance.AdvisoryEntry{Source: w.Source, ID: w.ID, Ecosystem: w.Ecosystem, Package: w.Package, Distro: w.Distro,
		Release: w.Release, Fixed: w.Fixed, FixState: w.FixState, ProOnly: w.ProOnly, Withdrawn: w.Withdrawn,
		Binaries: w.Binaries, CVEs: w.CVEs, Detail: w.Detail}
}

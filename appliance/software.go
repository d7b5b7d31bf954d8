package appliance

import (
	"strings"
	"time"
)

// ResolutionMethod is how a product's identity was found, in the order resolution tries them
// (package identities come from distribution advisories instead).
type ResolutionMethod string

// The resolution methods.
const (
	ResolutionOverride   ResolutionMethod = "override"
	ResolutionKB         ResolutionMethod = "kb"
	ResolutionExact      ResolutionMethod = "exact"
	ResolutionFuzzy      ResolutionMethod = "fuzzy"
	ResolutionPackage    ResolutionMethod = "package"
	ResolutionUnresolved ResolutionMethod = "unresolved"
	// ResolutionNotTracked marks a name the organization said it does not track: no
	// identity, never matched, never in the review queue.
	ResolutionNotTracked ResolutionMethod = "not_tracked"
)

// Identity is a CPE software identity with values unescaped ("notepad++"); zero when unresolved.
type Identity struct {
	Part, Vendor, Product string
}

// Resolved reports whether the identity names a product.
func (i Identity) Resolved() bool { return i.Vendor != "" && i.Product != "" }

// Pair is the identity without its part, as lookups by (vendor, product) key it.
func (i Identity) Pair() Identity { return Identity{Vendor: i.Vendor, Product: i.Product} }

// String is "vendor:product".
func (i Identity) String() string { return i.Vendor + ":" + i.Product }

// Asset is a host, identified by its hostname within one organization.
type Asset struct {
	ID              int64
	OrganizationID  int64
	Hostname        string
	Kind            AssetKind // host, or an application an SBOM describes
	FQDN            string
	IPAddress       string
	OSName          string
	OSVersion       string
	OSKernel        string
	OS              HostOS // os-release facts (id, version_id …), reported or inferred
	AgentID         string
	AgentVersion    string
	CreatedAt       time.Time
	LastSeenAt      time.Time
	LastInventoryAt time.Time
	// InventoryHash fingerprints the last reconciled inventory (see inventory.Submit).
	InventoryHash string
	ProductCount  int           // live installations (lists and detail)
	Tags          []string      // sorted labels an admin gave the host (lists and detail)
	Findings      FindingCounts // findings of those installations (lists and detail)
}

// AssetKind tells a host (an agent's or a script's inventory) from an application (an SBOM's).
type AssetKind string

// Asset kinds.
const (
	AssetHost        AssetKind = "host"
	AssetApplication AssetKind = "application"
)

// Or is the kind, a host when unset.
func (k AssetKind) Or() AssetKind {
	if k == "" {
		return AssetHost
	}
	return k
}

// AssetRef names a host in a product's detail.
type AssetRef struct {
	ID       int64
	Hostname string
}

// Product is one (vendor, name, version) of an organization and its resolved identity.
type Product struct {
	ID                   int64
	OrganizationID       int64
	Vendor               string
	Name                 string
	Version              string
	Identity             Identity
	Update               string // CPE update field when the version carries one ("sp1")
	Resolution           ResolutionMethod
	ResolutionConfidence float64
	Criticality          int
	CriticalitySet       bool  // a person chose Criticality: rules leave it alone
	MatchGeneration      int64 // CVE data generation its matches were computed at; -1 never
	CreatedAt            time.Time
	UpdatedAt            time.Time
	DeletedAt            time.Time
	AssetCount           int // live installations (list and detail)
	VulnerabilityCount   int
	Package              PackageInfo   // what a host said (or we inferred) of the item as a package
	FixAvailable         bool          // some finding has a fixed version (list and detail)
	Findings             FindingCounts // VulnerabilityCount by severity, KEV, worst (list and detail)
	// Risk is the largest risk score of the product's findings, nil without findings (list
	// and detail).
	Risk *float64
}

// ProductKey is the natural key of a product within an organization.
type ProductKey struct {
	Vendor, Name, Version string
	Release               string // a distribution package's release ("ubuntu:22.04"), else ""
}

// Key returns the natural key of p.
func (p Product) Key() ProductKey { return ProductKey{p.Vendor, p.Name, p.Version, p.Package.Release} }

// Installation is a product on a host; removed ones stay as history.
type Installation struct {
	ID        int64
	AssetID   int64
	ProductID int64
	Path      string
	CreatedAt time.Time
	UpdatedAt time.Time
	RemovedAt time.Time
}

// InstalledProduct is a live installation with its product.
type InstalledProduct struct {
	Installation
	Product Product
}

// MatchInput is one finding to store for a product.
type MatchInput struct {
	CVEID, Criteria, Platform string
	Finding
}

// ProductVulnerability is a stored match with its CVE facts, for a product's detail.
type ProductVulnerability struct {
	MatchID     int64
	CVEID       string
	Severity    string
	Score       float64
	HasScore    bool
	KEV         bool
	KEVDue      time.Time
	Criteria    string
	Platform    string
	Description string
	EPSS        *EPSSScore // nil when EPSS has no score for the CVE
	Finding
	Triage *TriageState // the decision in force, nil when none
	CVEFacts
	Risk Risk // computed by the risk package from the facts and the product's criticality
}

// CVEFacts are what the CVE data says of a finding's CVE beyond its severity: the CVSS
// metric it is scored by, its CISA KEV entry and the references that fix it.
type CVEFacts struct {
	CVSS       *CVSS      // nil when the CVE data has no score
	KEVEntry   *KEVStatus // nil when CISA KEV does not list the CVE
	References []Reference
}

// CVSS is the one metric a CVE is scored by: v4.0 when present, else v3.1, v3.0, v2.0,
// NVD's own (Primary) metric before the others of the same version.
type CVSS struct {
	Version string // "4.0", "3.1", "3.0" or "2.0"
	Score   float64
	Vector  string
	Source  string // "NVD", "CISA-ADP" or the CNA's name
}

// KEVStatus is what CISA KEV says of a CVE that it lists.
type KEVStatus struct {
	DueDate    time.Time // zero when the catalogue names none
	Ransomware bool      // knownRansomwareCampaignUse is "Known"
}

// Reference is a link of a CVE record that fixes or advises on it, with the tags that say so.
type Reference struct {
	URL  string   `json:"url"`
	Tags []string `json:"tags"`
}

// The reference tags a finding shows (NVD's spelling).
const (
	TagPatch          = "Patch"
	TagVendorAdvisory = "Vendor Advisory"
)

// CVERecord is a CVE as stored; Configurations is the nvd package's compact encoding.
type CVERecord struct {
	ID             string
	Description    string
	Status         string
	Published      time.Time
	Modified       time.Time
	Score          float64
	HasScore       bool
	Vector         string
	Severity       string
	ScoreVersion   string
	ScoreSource    string // who scored it: "NVD", "CISA-ADP" or the CNA's name
	Configurations []byte
	References     []Reference // tagged Patch or Vendor Advisory
	Origin         string      // "nvd", or "cve5" for a CVE JSON 5 record NVD has not enriched
}

// KEVRecord marks a CVE as known exploited (CISA KEV).
type KEVRecord struct {
	CVEID      string
	Name       string
	DateAdded  time.Time
	DueDate    time.Time
	Ransomware string
}

// CatalogEntry is one software identity of the catalogue, as an import reads it and the store
// keeps it. Vendor and Product are lowercase, unescaped CPE 2.3 component values ("notepad++",
// not "notepad\+\+").
type CatalogEntry struct {
	Identity
	Title      string // human name, version stripped where the source allowed it; may be empty
	Deprecated bool   // every entry of the product in the source was deprecated
	Source     string // where it came from: nvd, cpedict, default, kb …
	CVEUsed    bool   // CVE data names it (a feed's criteria, or a catalogue's nvd sources)
	// Platform is the one software platform (CPE target_sw: node.js, rust, wordpress …) every
	// CPE name of the identity that says one is for; PlatformAny when names differ or say none,
	// "" when no source has said. See MergePlatform.
	Platform string
}

// Absorb folds another entry of the same identity into e: used by CVE data when either is,
// deprecated only while both are, the shortest title, the platforms merged (MergePlatform).
func (e *CatalogEntry) Absorb(other CatalogEntry) {
	e.CVEUsed = e.CVEUsed || other.CVEUsed
	e.Deprecated = e.Deprecated && other.Deprecated
	e.Platform = MergePlatform(e.Platform, other.Platform)
	if other.Title != "" && (e.Title == "" || len(other.Title) < len(e.Title)) {
		e.Title = other.Title
	}
}

// PlatformAny marks an identity named for several platforms, or for none in particular.
const PlatformAny = "*"

// PlatformOf is the platform a CPE name's target_sw gives: ANY and NA say none in particular.
func PlatformOf(targetSW string) string {
	if targetSW == "" || targetSW == "*" || targetSW == "-" {
		return PlatformAny
	}
	return strings.ToLower(targetSW)
}

// MergePlatform folds what another CPE name says of an identity's platform into what is
// known: the first word wins, a disagreement makes it PlatformAny, and "" adds nothing. The
// store's upsert applies the same rule.
func MergePlatform(known, seen string) string {
	switch {
	case known == "":
		return seen
	case seen == "" || seen == known:
		return known
	}
	return PlatformAny
}

// Generation names of the change counters.
const (
	GenerationCVE     = "cve"
	GenerationCatalog = "catalog"
	GenerationKB      = "kb"
)

// ProductFilter selects and orders products of one organization.
type ProductFilter struct {
	OrganizationID     int64
	Search             string
	Vendor             string
	Criticality        int
	HasVulnerabilities *bool
	// Installed keeps products a host has now (true) or history: products no host has now,
	// such as one every host uninstalled (false); nil keeps both.
	Installed    *bool
	Resolution   ResolutionMethod
	FixAvailable *bool // some finding has a fixed version (with Ubuntu Pro counts)
	// IncludeSuppressed counts findings a triage rule suppresses (they count nowhere otherwise).
	IncludeSuppressed bool
	Sort              string // name, vendor, created_at, criticality, updated_at, version, vulnerability_count, max_severity, kev, risk
	Desc              bool
	Page, PerPage     int
}

// Override is a person's decision for a normalized reported pair: the identity confirmed,
// or, with NotTracked, that the organization does not track that name (Identity is then
// zero and the override is never contributed to the KB).
type Override struct {
	OrganizationID int64
	VendorKey      string
	ProductKey     string
	ReportedVendor string
	ReportedName   string
	Identity       Identity
	NotTracked     bool
	CreatedBy      int64
	CreatedAt      time.Time
}

// ReviewItem is an unresolved reported pair of an organization, for the review queue.
type ReviewItem struct {
	Vendor, Name string
	ProductIDs   []int64
	HostCount    int
}

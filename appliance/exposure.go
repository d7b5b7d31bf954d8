package appliance

import (
	"context"
	"time"
)

// FindingCounts are the findings of a product (its CVEs) or of a host (the sum over the
// products it has now), kept up to date by the store as installations and matches change.
type FindingCounts struct {
	Total int
	SeverityCounts
	KEV         int     // findings whose CVE is in CISA's KEV catalogue
	MaxSeverity string  // critical, high, medium, low, unknown; "" without findings (products only)
	MaxScore    float64 // highest CVSS base score (products only)
}

// AssetFilter selects and orders one organization's hosts.
type AssetFilter struct {
	OrganizationID     int64
	Search             string    // part of the hostname, FQDN or IP address
	OS                 string    // part of the operating system's name
	Kind               AssetKind // "" for every kind
	HasVulnerabilities *bool
	Tag                string // hosts carrying this tag; "" for all
	Sort               string // hostname, last_seen, findings, risk
	Desc               bool
	Page, PerPage      int
}

// AssetInstallation is an installation of a host (live or removed) with its product; the
// product's counts are filled for live ones.
type AssetInstallation struct {
	Installation
	Product Product
}

// VulnerabilityFilter selects and orders the CVEs affecting one organization's installed products.
type VulnerabilityFilter struct {
	OrganizationID int64
	Search         string // part of the CVE id or of its description
	Severity       string // critical, high, medium, low, unknown
	KEV            *bool
	FixAvailable   *bool  // some affected product has a fixed version
	Sort           string // severity, score, cve_id, hosts, products, published
	Desc           bool
	Page, PerPage  int
}

// VulnerabilitySummary is one CVE affecting an organization: its facts and how many of the
// organization's installed products, and installations of them, it affects.
type VulnerabilitySummary struct {
	CVEID        string
	Description  string
	Severity     string // lowercase; "" when the CVE data gives none
	Score        float64
	HasScore     bool
	Published    time.Time
	Modified     time.Time
	KEV          bool
	KEVDue       time.Time
	ProductCount int
	// HostCount sums the hosts of each affected product: a host with two affected products
	// counts twice here (the detail's host list counts each host once).
	HostCount    int
	FixAvailable bool
}

// VulnerabilityDetail is one CVE as the CVE data has it, with the organization's exposure.
type VulnerabilityDetail struct {
	VulnerabilitySummary
	Vector       string
	ScoreVersion string
	Status       string
	KEVName      string
	KEVAdded     time.Time
	Ransomware   string
	Known        bool // the CVE data has the record (an advisory may name a CVE NVD lacks)
}

// AffectedProduct is an installed product of an organization that a CVE affects.
type AffectedProduct struct {
	Product Product
	Finding
	MatchID  int64
	Criteria string
}

// DashboardFigures are an organization's headline numbers.
type DashboardFigures struct {
	Hosts, ReportingHosts, SilentHosts int
	Findings                           FindingCounts // open findings on hosts, by severity
	OverdueAssignments                 int
	UnresolvedNames                    int       // reported names waiting for review
	NewestCVEModified                  time.Time // zero without CVE data
	NewestCVEImported                  time.Time
}

// ExposureReader answers the host-, CVE- and dashboard-centred questions, always within one
// organization, from counts the store keeps (no list counts rows one by one).
type ExposureReader interface {
	FindingReader
	ListAssets(ctx context.Context, f AssetFilter) ([]Asset, int, error)
	AssetByID(ctx context.Context, orgID, id int64) (Asset, error)
	// AssetProducts pages the host's live installations, worst products first.
	AssetProducts(ctx context.Context, orgID, assetID int64, page, perPage int) ([]AssetInstallation, int, error)
	// AssetHistory pages every installation of the host, live or removed, latest change first.
	AssetHistory(ctx context.Context, orgID, assetID int64, page, perPage int) ([]AssetInstallation, int, error)
	ListVulnerabilities(ctx context.Context, f VulnerabilityFilter) ([]VulnerabilitySummary, int, error)
	// VulnerabilityByID is ErrNotFound when the CVE data lacks it and no product of the organization has it.
	VulnerabilityByID(ctx context.Context, orgID int64, cveID string) (VulnerabilityDetail, error)
	VulnerabilityProducts(ctx context.Context, orgID int64, cveID string, page, perPage int) ([]AffectedProduct, int, error)
	// VulnerabilityHosts pages the hosts having an affected product now, each once, by hostname.
	VulnerabilityHosts(ctx context.Context, orgID int64, cveID string, page, perPage int) ([]Asset, int, error)
	// ProductAssetsPage pages the hosts having the product now, by hostname.
	ProductAssetsPage(ctx context.Context, orgID, productID int64, page, perPage int) ([]AssetRef, int, error)
	// Dashboard counts hosts seen since silentBefore as reporting and assignments due before today as overdue.
	Dashboard(ctx context.Context, orgID int64, silentBefore, today time.Time) (DashboardFigures, error)
}

// ExposureWriter removes hosts.
type ExposureWriter interface {
	// DeleteAsset removes the host and its installations (live and history); products stay.
	DeleteAsset(ctx context.Context, orgID, id int64) error
	// SetAssetTags replaces the host's tags; ErrNotFound when the organization has no such host.
	SetAssetTags(ctx context.Context, orgID, id int64, tags []string) error
}

// Page is one page of a list and the size of the whole list.
type Page[T any] struct {
	Items         []T
	Total         int
	Page, PerPage int
}

// Pages is how many pages of PerPage the list has.
func (p Page[T]) Pages() int {
	if p.Total == 0 || p.PerPage <= 0 {
		return 0
	}
	return (p.Total + p.PerPage - 1) / p.PerPage
}

// FindingFilter selects one organization's findings: each CVE of each installed product.
type FindingFilter struct {
	OrganizationID    int64
	Search            string // part of the CVE id or of the product's name
	Severity          string // critical, high, medium, low, unknown
	KEV               *bool
	FixAvailable      *bool
	IncludeSuppressed bool // findings a triage decision suppresses too
	Page, PerPage     int
}

// FindingRow is one finding of an organization: a CVE of an installed product (its
// identity, version, criticality and host count), with what the CVE data says of it.
type FindingRow struct {
	Product Product
	ProductVulnerability
}

// FindingReader lists findings, a page at a time or all of them as rows are read (exports).
type FindingReader interface {
	ListFindings(ctx context.Context, f FindingFilter) ([]FindingRow, int, error)
	EachFinding(ctx context.Context, f FindingFilter, fn func(FindingRow) error) error
}

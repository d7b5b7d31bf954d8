// Package exposure answers "what is on host X", "which hosts have CVE-Y" and "how are we
// doing": the host-centred and CVE-centred views and the dashboard, for the JSON API and the
// HTML pages alike. It reads counts the store keeps up to date as inventories and CVE data
// change, so every list and detail costs a few indexed queries at any fleet size, and every
// list inside a detail is paged. Removing a host is its one write.
package exposure

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Store is what the service reads, and the transaction removing a host runs in.
type Store interface {
	appliance.ExposureReader
	ListProducts(ctx context.Context, f appliance.ProductFilter) ([]appliance.Product, int, error)
	ListContainerImages(ctx context.Context, f appliance.ContainerFilter) ([]appliance.ContainerImage, int, error)
	appliance.Transactor
}

// Service is the exposure API of the domain.
type Service struct {
	store Store
	agent appliance.AgentConfig
	now   func() time.Time
	// afterChange runs after a host is removed (remediation closes the assignments whose
	// finding went with it).
	afterChange func(context.Context)
}

// NewService builds the service; agent's scan interval decides when a host is silent.
func NewService(store Store, agent appliance.AgentConfig) *Service {
	return &Service{store: store, agent: agent, now: time.Now}
}

// WithClock makes the service read the time from now (tests; nil keeps time.Now).
func (s *Service) WithClock(now func() time.Time) *Service {
	if now != nil {
		s.now = now
	}
	return s
}

// OnFindingsChanged registers fn to run after a change that may have made findings disappear.
func (s *Service) OnFindingsChanged(fn func(context.Context)) { s.afterChange = fn }

// Paging bounds of the lists inside a detail.
const (
	DetailPerPage    = 50  // default page size of a list inside a detail
	MaxDetailPerPage = 500 // largest page size of a list inside a detail
	TopN             = 10  // riskiest hosts and products on the dashboard
	maxSearch        = 200
)

// PageRequest is a validated page number and size (see web's parsePage); zero values take
// page 1 and DetailPerPage.
type PageRequest struct{ Page, PerPage int }

func (p PageRequest) norm() PageRequest {
	if p.Page < 1 {
		p.Page = 1
	}
	if p.PerPage < 1 {
		p.PerPage = DetailPerPage
	}
	p.PerPage = min(p.PerPage, MaxDetailPerPage)
	return p
}

var assetSorts = map[string]bool{"hostname": true, "last_seen": true, "findings": true, "risk": true}

// Assets pages the organization's hosts with their finding counts.
func (s *Service) Assets(ctx context.Context, f appliance.AssetFilter) ([]appliance.Asset, int, error) {
	if f.Sort != "" && !assetSorts[f.Sort] {
		return nil, 0, appliance.Invalid("sort", "enum", "sort must be one of hostname, last_seen, findings, risk")
	}
	if f.Kind != "" && f.Kind != appliance.AssetHost && f.Kind != appliance.AssetApplication {
		return nil, 0, appliance.Invalid("kind", "enum", "kind must be host or application")
	}
	if err := checkSearch("search", f.Search); err != nil {
		return nil, 0, err
	}
	if err := checkSearch("os", f.OS); err != nil {
		return nil, 0, err
	}
	return s.store.ListAssets(ctx, f)
}

func checkSearch(field, v string) error {
	if len(v) > maxSearch {
		return appliance.Invalid(field, "max_length", "%s must be at most %d bytes", field, maxSearch)
	}
	return nil
}

// AssetDetail is a host with the first page of each of its lists.
type AssetDetail struct {
	appliance.Asset
	Products   appliance.Page[appliance.AssetInstallation] // live installations, worst products first
	History    appliance.Page[appliance.AssetInstallation] // every installation, latest change first
	Containers appliance.Page[appliance.ContainerImage]    // images scanned on the host, latest first
}

// AssetPages chooses the page of each list of a host's detail.
type AssetPages struct {
	Products, History, Containers PageRequest
}

// Asset returns one host of the organization; another organization's host is not found.
func (s *Service) Asset(ctx context.Context, orgID, id int64, pg AssetPages) (AssetDetail, error) {
	a, err := s.store.AssetByID(ctx, orgID, id)
	if err != nil {
		return AssetDetail{}, assetErr(err, id)
	}
	d := AssetDetail{Asset: a}
	if d.Products, err = s.AssetProducts(ctx, orgID, id, pg.Products); err != nil {
		return AssetDetail{}, err
	}
	if d.History, err = s.AssetHistory(ctx, orgID, id, pg.History); err != nil {
		return AssetDetail{}, err
	}
	cp := pg.Containers.norm()
	imgs, total, err := s.store.ListContainerImages(ctx, appliance.ContainerFilter{OrganizationID: orgID, Hostname: a.Hostname,
		Page: cp.Page, PerPage: cp.PerPage})
	if err != nil {
		return AssetDetail{}, err
	}
	d.Containers = appliance.Page[appliance.ContainerImage]{Items: imgs, Total: total, Page: cp.Page, PerPage: cp.PerPage}
	return d, nil
}

// AssetProducts pages a host's installed products with their finding counts.
func (s *Service) AssetProducts(ctx context.Context, orgID, id int64, pg PageRequest) (appliance.Page[appliance.AssetInstallation], error) {
	pg = pg.norm()
	items, total, err := s.store.AssetProducts(ctx, orgID, id, pg.Page, pg.PerPage)
	return appliance.Page[appliance.AssetInstallation]{Items: items, Total: total, Page: pg.Page, PerPage: pg.PerPage}, err
}

// AssetHistory pages a host's installations and removals.
func (s *Service) AssetHistory(ctx context.Context, orgID, id int64, pg PageRequest) (appliance.Page[appliance.AssetInstallation], error) {
	pg = pg.norm()
	items, total, err := s.store.AssetHistory(ctx, orgID, id, pg.Page, pg.PerPage)
	return appliance.Page[appliance.AssetInstallation]{Items: items, Total: total, Page: pg.Page, PerPage: pg.PerPage}, err
}

// DeleteAsset removes a host and its installations in one transaction; its products stay
// (with their history on other hosts). Assignments whose finding went with it are resolved
// afterwards, as after any change of findings.
func (s *Service) DeleteAsset(ctx context.Context, orgID, id int64) error {
	err := s.store.InTx(ctx, func(tx appliance.Tx) error { return tx.DeleteAsset(ctx, orgID, id) })
	if err != nil {
		return assetErr(err, id)
	}
	if s.afterChange != nil {
		s.afterChange(context.WithoutCancel(ctx))
	}
	return nil
}

// SetAssetTags replaces a host's tags (organization admins only) and returns them as kept:
// lowercased, sorted, each once. Triage rules scoped to a tag are applied again afterwards,
// as after any change of findings.
func (s *Service) SetAssetTags(ctx context.Context, actor appliance.User, id int64, tags []string) ([]string, error) {
	if actor.Role != appliance.RoleOrgAdmin {
		return nil, appliance.Forbidden("only an organization admin may tag hosts")
	}
	clean, err := appliance.NormalizeTags(tags)
	if err != nil {
		return nil, err
	}
	err = s.store.InTx(ctx, func(tx appliance.Tx) error { return tx.SetAssetTags(ctx, actor.OrganizationID, id, clean) })
	if err != nil {
		return nil, assetErr(err, id)
	}
	if s.afterChange != nil {
		s.afterChange(context.WithoutCancel(ctx))
	}
	return clean, nil
}

func assetErr(err error, id int64) error {
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.NotFound("asset %d does not exist", id)
	}
	return err
}

var (
	vulnSorts  = map[string]bool{"severity": true, "score": true, "cve_id": true, "hosts": true, "products": true, "published": true}
	severities = map[string]bool{"critical": true, "high": true, "medium": true, "low": true, "unknown": true}
	cveID      = regexp.MustCompile(`^CVE-\d{4}-\d{4,}$`)
)

// Vulnerabilities pages the CVEs affecting the organization's installed products.
func (s *Service) Vulnerabilities(ctx context.Context, f appliance.VulnerabilityFilter) ([]appliance.VulnerabilitySummary, int, error) {
	if f.Sort != "" && !vulnSorts[f.Sort] {
		return nil, 0, appliance.Invalid("sort", "enum", "sort must be one of severity, score, cve_id, hosts, products, published")
	}
	if f.Severity != "" && !severities[f.Severity] {
		return nil, 0, appliance.Invalid("severity", "enum", "severity must be one of critical, high, medium, low, unknown")
	}
	if err := checkSearch("search", f.Search); err != nil {
		return nil, 0, err
	}
	return s.store.ListVulnerabilities(ctx, f)
}

// VulnerabilityDetail is a CVE with the first page of the organization's affected products and hosts.
type VulnerabilityDetail struct {
	appliance.VulnerabilityDetail
	Products appliance.Page[appliance.AffectedProduct]
	Hosts    appliance.Page[appliance.Asset]
}

// VulnerabilityPages chooses the page of each list of a CVE's detail.
type VulnerabilityPages struct {
	Products, Hosts PageRequest
}

// Vulnerability returns one CVE (id in any letter case) and the organization's exposure to
// it; a CVE neither in the CVE data nor affecting the organization is not found.
func (s *Service) Vulnerability(ctx context.Context, orgID int64, id string, pg VulnerabilityPages) (VulnerabilityDetail, error) {
	id = strings.ToUpper(strings.TrimSpace(id))
	if !cveID.MatchString(id) {
		return VulnerabilityDetail{}, appliance.Invalid("cve_id", "format", "cve_id must look like CVE-2024-12345")
	}
	v, err := s.store.VulnerabilityByID(ctx, orgID, id)
	if errors.Is(err, appliance.ErrNotFound) {
		return VulnerabilityDetail{}, appliance.NotFound("vulnerability %s is not known", id)
	}
	if err != nil {
		return VulnerabilityDetail{}, err
	}
	d := VulnerabilityDetail{VulnerabilityDetail: v}
	pp, hp := pg.Products.norm(), pg.Hosts.norm()
	products, total, err := s.store.VulnerabilityProducts(ctx, orgID, id, pp.Page, pp.PerPage)
	if err != nil {
		return VulnerabilityDetail{}, err
	}
	d.Products = appliance.Page[appliance.AffectedProduct]{Items: products, Total: total, Page: pp.Page, PerPage: pp.PerPage}
	hosts, total, err := s.store.VulnerabilityHosts(ctx, orgID, id, hp.Page, hp.PerPage)
	if err != nil {
		return VulnerabilityDetail{}, err
	}
	d.Hosts = appliance.Page[appliance.Asset]{Items: hosts, Total: total, Page: hp.Page, PerPage: hp.PerPage}
	return d, nil
}

// Dashboard is an organization's figures in one value.
type Dashboard struct {
	appliance.DashboardFigures
	SilentAfter      time.Duration // a host not seen for longer is silent (2 agent intervals)
	CVEDataAge       time.Duration // since the newest modification in the CVE data; 0 without data
	RiskiestHosts    []appliance.Asset
	RiskiestProducts []appliance.Product
}

// SilentAfter is how long a host may go unseen before it counts as silent: two agent intervals.
func (s *Service) SilentAfter() time.Duration {
	return 2 * time.Duration(s.agent.ScanIntervalSeconds) * time.Second
}

// Silent reports whether a host has not been seen for longer than SilentAfter.
func (s *Service) Silent(a appliance.Asset) bool {
	return a.LastSeenAt.Before(s.now().Add(-s.SilentAfter()))
}

// Dashboard computes the organization's figures: hosts reporting or silent for more than two
// agent intervals, open findings by severity, KEV findings, overdue assignments, names
// waiting for review, the age of the CVE data, and the riskiest hosts and products.
func (s *Service) Dashboard(ctx context.Context, orgID int64) (Dashboard, error) {
	now := s.now().UTC()
	silent := s.SilentAfter()
	fig, err := s.store.Dashboard(ctx, orgID, now.Add(-silent), now)
	if err != nil {
		return Dashboard{}, err
	}
	d := Dashboard{DashboardFigures: fig, SilentAfter: silent}
	if !fig.NewestCVEModified.IsZero() {
		d.CVEDataAge = max(now.Sub(fig.NewestCVEModified), 0)
	}
	yes := true
	if d.RiskiestHosts, _, err = s.store.ListAssets(ctx, appliance.AssetFilter{OrganizationID: orgID, HasVulnerabilities: &yes,
		Sort: "risk", Desc: true, Page: 1, PerPage: TopN}); err != nil {
		return Dashboard{}, err
	}
	if d.RiskiestProducts, _, err = s.store.ListProducts(ctx, appliance.ProductFilter{OrganizationID: orgID, HasVulnerabilities: &yes,
		Installed: &yes, Sort: "risk", Desc: true, Page: 1, PerPage: TopN}); err != nil {
		return Dashboard{}, err
	}
	return d, nil
}

var findingSeverities = map[string]bool{"": true, "critical": true, "high": true, "medium": true, "low": true, "unknown": true}

// ValidateFindingFilter checks a findings query (an export checks it before it starts).
func ValidateFindingFilter(f appliance.FindingFilter) error {
	if !findingSeverities[f.Severity] {
		return appliance.Invalid("severity", "enum", "severity must be one of critical, high, medium, low, unknown")
	}
	return checkSearch("search", f.Search)
}

// Findings pages the organization's findings (a CVE of an installed product), in a stable order.
func (s *Service) Findings(ctx context.Context, f appliance.FindingFilter) ([]appliance.FindingRow, int, error) {
	if err := ValidateFindingFilter(f); err != nil {
		return nil, 0, err
	}
	return s.store.ListFindings(ctx, f)
}

// EachFinding streams every finding the filter selects (pages ignored), for exports.
func (s *Service) EachFinding(ctx context.Context, f appliance.FindingFilter, fn func(appliance.FindingRow) error) error {
	if err := ValidateFindingFilter(f); err != nil {
		return err
	}
	return s.store.EachFinding(ctx, f, fn)
}

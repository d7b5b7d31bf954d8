package web

import (
	"math"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

type productJSON struct {
	ID                   int64     `json:"id"`
	Name                 string    `json:"name"`
	Version              string    `json:"version"`
	Vendor               string    `json:"vendor"`
	CPE                  *string   `json:"cpe"`
	Criticality          int       `json:"criticality"`
	AssetCount           int       `json:"asset_count"`
	VulnerabilityCount   int       `json:"vulnerability_count"`
	OrganizationID       int64     `json:"organization_id"`
	Resolution           string    `json:"resolution"`
	ResolutionConfidence float64   `json:"resolution_confidence"`
	CreatedAt            time.Time `json:"created_at"`
	UpdatedAt            time.Time `json:"updated_at"`
	Risk                 *int      `json:"risk"`               // the largest risk score of its findings; null without findings
	CriticalitySource    string    `json:"criticality_source"` // person or rule
	productPackageJSON
}

// productRowJSON is a product in a list: with its findings by severity, KEV and worst severity.
type productRowJSON struct {
	productJSON
	Findings findingCountsJSON `json:"findings"`
}

func toProductRowJSON(p appliance.Product) productRowJSON {
	return productRowJSON{productJSON: toProductJSON(p), Findings: toProductFindingsJSON(p.Findings)}
}

type assetRefJSON struct {
	ID       int64  `json:"id"`
	Hostname string `json:"hostname"`
}

type productVulnJSON struct {
	MatchID     int64     `json:"match_id"`
	CVEID       string    `json:"cve_id"`
	Severity    string    `json:"severity"`
	Score       *float64  `json:"score"`
	KEVDueDate  *string   `json:"kev_due_date"`
	Criteria    string    `json:"criteria"`
	Platform    string    `json:"platform,omitempty"`
	Description string    `json:"description"`
	EPSS        *epssJSON `json:"epss"`
	findingJSON
	Triage *triageJSON `json:"triage"`
	cveFactsJSON
}

// productDetailJSON always carries the two arrays, even when empty.
type productDetailJSON struct {
	productJSON
	Aliases         []string          `json:"aliases"`       // other vendor:product spellings of the identity in CVE data
	Assets          []assetRefJSON    `json:"assets"`        // one page of the hosts having it, by hostname
	AssetsPaging    pagingJSON        `json:"assets_paging"` // hosts_page, hosts_per_page choose the page
	Vulnerabilities []productVulnJSON `json:"vulnerabilities"`
}

// pagingJSON are the figures of a page of a list inside a detail.
type pagingJSON struct {
	Total   int `json:"total"`
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
	Pages   int `json:"pages"`
}

func toProductJSON(p appliance.Product) productJSON {
	j := productJSON{ID: p.ID, Name: p.Name, Version: p.Version, Vendor: p.Vendor, Criticality: p.Criticality,
		AssetCount: p.AssetCount, VulnerabilityCount: p.VulnerabilityCount, OrganizationID: p.OrganizationID,
		Resolution: string(p.Resolution), ResolutionConfidence: p.ResolutionConfidence, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		productPackageJSON: toProductPackageJSON(p)}
	if c := inventory.CPE(p); c != "" {
		j.CPE = &c
	}
	j.CriticalitySource = "rule"
	if p.CriticalitySet {
		j.CriticalitySource = "person"
	}
	if p.Risk != nil {
		r := int(math.Round(*p.Risk))
		j.Risk = &r
	}
	return j
}

func toProductDetailJSON(d inventory.ProductDetail, now time.Time) productDetailJSON {
	out := productDetailJSON{productJSON: toProductJSON(d.Product), Aliases: []string{}, Assets: []assetRefJSON{}, Vulnerabilities: []productVulnJSON{}}
	for _, a := range d.Aliases {
		out.Aliases = append(out.Aliases, a.String())
	}
	for _, a := range d.Assets {
		out.Assets = append(out.Assets, assetRefJSON{ID: a.ID, Hostname: a.Hostname})
	}
	ap := d.AssetsPage
	out.AssetsPaging = pagingJSON{Total: ap.Total, Page: ap.Page, PerPage: ap.PerPage, Pages: ap.Pages()}
	for _, v := range d.Vulnerabilities {
		out.Vulnerabilities = append(out.Vulnerabilities, toProductVulnJSON(v, now))
	}
	out.VulnerabilityCount = len(out.Vulnerabilities)
	return out
}

// toProductVulnJSON is one finding of a product as the API (and its CSV export) shows it.
func toProductVulnJSON(v appliance.ProductVulnerability, now time.Time) productVulnJSON {
	vj := productVulnJSON{MatchID: v.MatchID, CVEID: v.CVEID, Severity: v.Severity, Criteria: v.Criteria,
		Platform: v.Platform, Description: v.Description, EPSS: toEPSSJSON(v.EPSS), findingJSON: toFindingJSON(v.Finding),
		Triage: toTriageJSON(v.Triage, now), cveFactsJSON: toCVEFactsJSON(v.CVEFacts, v.Risk)}
	if v.HasScore {
		score := v.Score
		vj.Score = &score
	}
	if !v.KEVDue.IsZero() {
		d := v.KEVDue.Format(time.DateOnly)
		vj.KEVDueDate = &d
	}
	return vj
}

type listResponse[T any] struct {
	Items   []T `json:"items"`
	Total   int `json:"total"`
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
	Pages   int `json:"pages"`
}

func (s *Server) listProducts(w http.ResponseWriter, r *http.Request) {
	f, err := productFilter(r, currentUser(r).OrganizationID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	format, err := listFormat(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if format == "csv" {
		s.exportProducts(w, r, f)
		return
	}
	items, total, err := s.inventory.Products(r.Context(), f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pageOf(appliance.Page[appliance.Product]{Items: items, Total: total, Page: f.Page, PerPage: f.PerPage},
		toProductRowJSON))
}

// productFilter reads the list query; organization_id never widens the caller's scope.
func productFilter(r *http.Request, orgID int64) (appliance.ProductFilter, error) {
	pg, err := listQuery(r, "search", "vendor", "criticality", "has_vulnerabilities", "installed", "fix_available",
		"resolution", "organization_id", "sort", "order", "format", "include_suppressed")
	if err != nil {
		return appliance.ProductFilter{}, err
	}
	q := r.URL.Query()
	f := appliance.ProductFilter{OrganizationID: orgID, Search: q.Get("search"), Vendor: q.Get("vendor"),
		Resolution: appliance.ResolutionMethod(q.Get("resolution")), Sort: q.Get("sort"), Page: pg.Page, PerPage: pg.PerPage}
	if f.Criticality, err = queryInt(r, "criticality"); err != nil {
		return f, err
	}
	if f.HasVulnerabilities, err = queryBool(r, "has_vulnerabilities"); err != nil {
		return f, err
	}
	if f.Installed, err = queryInstalled(r, f.HasVulnerabilities != nil); err != nil {
		return f, err
	}
	if f.FixAvailable, err = queryBool(r, "fix_available"); err != nil {
		return f, err
	}
	if f.IncludeSuppressed, err = includeSuppressed(r); err != nil {
		return f, err
	}
	if f.Desc, err = queryOrder(r, f.Sort == "risk"); err != nil { // riskiest first unless asked otherwise
		return f, err
	}
	if _, err := queryInt(r, "organization_id"); err != nil {
		return f, err
	}
	return f, inventory.ValidateFilter(f)
}

func (s *Server) getProduct(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "product")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := allowQuery(r, "hosts_page", "hosts_per_page", "include_suppressed", "format"); err != nil {
		s.writeError(w, r, err)
		return
	}
	format, err := listFormat(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	include, err := includeSuppressed(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	pg, err := parseNamedPage(r, "hosts_page", "hosts_per_page", inventory.ProductAssetsPerPage, inventory.MaxProductAssetsPerPage)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	d, err := s.inventory.ProductPage(r.Context(), currentUser(r).OrganizationID, id, pg.Page, pg.PerPage)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if format == "csv" {
		s.exportProductFindings(w, r, d, include)
		return
	}
	writeJSON(w, http.StatusOK, s.visibleDetail(d, include))
}

type productRequest struct {
	Name           *string `json:"name"`
	Version        *string `json:"version"`
	Vendor         *string `json:"vendor"`
	CPE            *string `json:"cpe"`
	Criticality    *int    `json:"criticality"`
	NotTracked     *bool   `json:"not_tracked"`     // updates only
	OrganizationID *int64  `json:"organization_id"` // ignored: the session fixes the organization
}

func (req productRequest) input() inventory.ProductInput {
	return inventory.ProductInput{Name: req.Name, Version: req.Version, Vendor: req.Vendor, CPE: req.CPE, Criticality: req.Criticality,
		NotTracked: req.NotTracked}
}

func (s *Server) createProduct(w http.ResponseWriter, r *http.Request) {
	var req productRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.inventory.CreateProduct(r.Context(), currentUser(r).OrganizationID, req.input())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toProductJSON(p))
}

func (s *Server) updateProduct(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "product")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req productRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	u := currentUser(r)
	// a cpe becomes the organization's override and a KB contribution; not_tracked an override too
	if (req.CPE != nil || req.NotTracked != nil) && u.Role != appliance.RoleOrgAdmin {
		s.writeError(w, r, errAdminOnly)
		return
	}
	d, err := s.inventory.UpdateProduct(r.Context(), u.OrganizationID, u.ID, id, req.input())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.visibleDetail(d, false))
}

func (s *Server) deleteProduct(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "product")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.inventory.DeleteProduct(r.Context(), currentUser(r).OrganizationID, id); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type reviewCandidateJSON struct {
	Part    string  `json:"part"`
	Vendor  string  `json:"cpe_vendor"`
	Product string  `json:"cpe_product"`
	Title   string  `json:"title,omitempty"`
	Score   float64 `json:"score"`
}

type reviewItemJSON struct {
	Vendor     string                `json:"vendor"`
	Name       string                `json:"name"`
	ProductIDs []int64               `json:"product_ids"`
	HostCount  int                   `json:"host_count"`
	Candidates []reviewCandidateJSON `json:"candidates"`
}

func (s *Server) resolutionReview(w http.ResponseWriter, r *http.Request) {
	pg, err := reviewPage(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	items, total, err := s.inventory.Review(r.Context(), currentUser(r).OrganizationID, pg.Page, pg.PerPage)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pageOf(appliance.Page[inventory.ReviewEntry]{Items: items, Total: total, Page: pg.Page,
		PerPage: pg.PerPage}, toReviewItemJSON))
}

func toReviewItemJSON(it inventory.ReviewEntry) reviewItemJSON {
	j := reviewItemJSON{Vendor: it.Vendor, Name: it.Name, ProductIDs: it.ProductIDs, HostCount: it.HostCount,
		Candidates: []reviewCandidateJSON{}}
	for _, c := range it.Candidates {
		j.Candidates = append(j.Candidates, reviewCandidateJSON{Part: c.Part, Vendor: c.Vendor, Product: c.Product, Title: c.Title, Score: c.Score})
	}
	return j
}

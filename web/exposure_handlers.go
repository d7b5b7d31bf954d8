package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/exposure"
)

// Host-, CVE- and dashboard-centred routes (issue 11), over the exposure service.

type findingCountsJSON struct {
	Total       int      `json:"total"`
	Critical    int      `json:"critical"`
	High        int      `json:"high"`
	Medium      int      `json:"medium"`
	Low         int      `json:"low"`
	Unknown     int      `json:"unknown"`
	KEV         int      `json:"kev"`
	MaxSeverity *string  `json:"max_severity,omitempty"`
	MaxScore    *float64 `json:"max_score,omitempty"`
}

func toFindingCountsJSON(c appliance.FindingCounts) findingCountsJSON {
	return findingCountsJSON{Total: c.Total, Critical: c.Critical, High: c.High, Medium: c.Medium, Low: c.Low,
		Unknown: c.Unknown, KEV: c.KEV}
}

// toProductFindingsJSON adds a product's worst severity and score (null without findings).
func toProductFindingsJSON(c appliance.FindingCounts) findingCountsJSON {
	j := toFindingCountsJSON(c)
	if c.Total > 0 {
		j.MaxSeverity, j.MaxScore = optional(c.MaxSeverity), optional(c.MaxScore)
	}
	return j
}

type hostOSJSON struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Kernel    string `json:"kernel,omitempty"`
	ID        string `json:"id,omitempty"`
	VersionID string `json:"version_id,omitempty"`
	Codename  string `json:"codename,omitempty"`
	Build     string `json:"build,omitempty"`
	Arch      string `json:"arch,omitempty"`
	Inferred  string `json:"inferred,omitempty"`
}

type agentFactsJSON struct {
	ID      string `json:"id"`
	Version string `json:"version"`
}

type assetJSON struct {
	ID              int64             `json:"id"`
	OrganizationID  int64             `json:"organization_id"`
	Hostname        string            `json:"hostname"`
	Kind            string            `json:"kind"`
	FQDN            string            `json:"fqdn"`
	IPAddress       string            `json:"ip_address"`
	OS              hostOSJSON        `json:"os"`
	Agent           agentFactsJSON    `json:"agent"`
	CreatedAt       time.Time         `json:"created_at"`
	LastSeenAt      time.Time         `json:"last_seen_at"`
	LastInventoryAt *time.Time        `json:"last_inventory_at"`
	ProductCount    int               `json:"product_count"`
	Findings        findingCountsJSON `json:"findings"`
	Tags            []string          `json:"tags"`
}

func toAssetJSON(a appliance.Asset) assetJSON {
	j := assetJSON{ID: a.ID, OrganizationID: a.OrganizationID, Hostname: a.Hostname, Kind: string(a.Kind.Or()), FQDN: a.FQDN, IPAddress: a.IPAddress,
		OS: hostOSJSON{Name: a.OSName, Version: a.OSVersion, Kernel: a.OSKernel, ID: a.OS.ID, VersionID: a.OS.VersionID,
			Codename: a.OS.Codename, Build: a.OS.Build, Arch: a.OS.Arch, Inferred: a.OS.Inferred},
		Agent:     agentFactsJSON{ID: a.AgentID, Version: a.AgentVersion},
		CreatedAt: a.CreatedAt, LastSeenAt: a.LastSeenAt, ProductCount: a.ProductCount, Findings: toFindingCountsJSON(a.Findings),
		Tags: a.Tags}
	if j.Tags == nil {
		j.Tags = []string{}
	}
	if !a.LastInventoryAt.IsZero() {
		j.LastInventoryAt = &a.LastInventoryAt
	}
	return j
}

// installedProductJSON is a product on a host: the product with its finding counts, and the
// installation (path, when it came and, in the history, when it went).
type installedProductJSON struct {
	productJSON
	Findings      findingCountsJSON `json:"findings"`
	InstalledAt   time.Time         `json:"installed_at"`
	RemovedAt     *time.Time        `json:"removed_at"`
	Path          string            `json:"path,omitempty"`
	ProductExists bool              `json:"product_exists"` // false once the product was deleted
}

func toInstalledProductJSON(ai appliance.AssetInstallation) installedProductJSON {
	j := installedProductJSON{productJSON: toProductJSON(ai.Product), Findings: toProductFindingsJSON(ai.Product.Findings),
		InstalledAt: ai.CreatedAt, Path: ai.Path, ProductExists: ai.Product.DeletedAt.IsZero()}
	if !ai.RemovedAt.IsZero() {
		j.RemovedAt = &ai.RemovedAt
	}
	return j
}

// pageOf encodes one page of a list with its paging figures.
func pageOf[T, J any](p appliance.Page[T], enc func(T) J) listResponse[J] {
	out := listResponse[J]{Items: make([]J, 0, len(p.Items)), Total: p.Total, Page: p.Page, PerPage: p.PerPage, Pages: p.Pages()}
	for _, it := range p.Items {
		out.Items = append(out.Items, enc(it))
	}
	return out
}

type assetDetailJSON struct {
	assetJSON
	Products   listResponse[installedProductJSON] `json:"products"`
	History    listResponse[installedProductJSON] `json:"history"`
	Containers listResponse[containerJSON]        `json:"containers"`
}

func (s *Server) listAssets(w http.ResponseWriter, r *http.Request) {
	f, err := assetFilter(r, currentUser(r).OrganizationID)
	format := "json"
	if err == nil {
		format, err = listFormat(r)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if format == "csv" {
		f.Page, f.PerPage = 1, assetsExportPage
	}
	items, total, err := s.exposure.Assets(r.Context(), f)
	if err == nil && format == "csv" {
		s.exportAssets(w, r, f, items, total)
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pageOf(appliance.Page[appliance.Asset]{Items: items, Total: total, Page: f.Page, PerPage: f.PerPage}, toAssetJSON))
}

// assetFilter reads the host list's query.
func assetFilter(r *http.Request, orgID int64) (appliance.AssetFilter, error) {
	pg, err := listQuery(r, "search", "os", "kind", "tag", "has_vulnerabilities", "sort", "order", "format")
	if err != nil {
		return appliance.AssetFilter{}, err
	}
	q := r.URL.Query()
	f := appliance.AssetFilter{OrganizationID: orgID, Search: q.Get("search"), OS: q.Get("os"), Sort: q.Get("sort"),
		Kind: appliance.AssetKind(q.Get("kind")), Tag: strings.ToLower(strings.TrimSpace(q.Get("tag"))),
		Page: pg.Page, PerPage: pg.PerPage}
	if f.HasVulnerabilities, err = queryBool(r, "has_vulnerabilities"); err != nil {
		return f, err
	}
	f.Desc, err = queryOrder(r, false)
	return f, err
}

// listQuery refuses parameters other than page, per_page and names, and reads the page (50
// by default, at most 200).
func listQuery(r *http.Request, names ...string) (page, error) {
	if err := allowQuery(r, append([]string{"page", "per_page"}, names...)...); err != nil {
		return page{}, err
	}
	return parsePage(r, 50, 200)
}

// detailPages reads the page of each named list inside a detail (name_page, name_per_page),
// refusing any other query parameter.
func detailPages(r *http.Request, names ...string) (map[string]exposure.PageRequest, error) {
	allowed := make([]string, 0, 2*len(names))
	for _, n := range names {
		allowed = append(allowed, n+"_page", n+"_per_page")
	}
	if err := allowQuery(r, allowed...); err != nil {
		return nil, err
	}
	out := make(map[string]exposure.PageRequest, len(names))
	for _, n := range names {
		pg, err := parseNamedPage(r, n+"_page", n+"_per_page", exposure.DetailPerPage, exposure.MaxDetailPerPage)
		if err != nil {
			return nil, err
		}
		out[n] = exposure.PageRequest{Page: pg.Page, PerPage: pg.PerPage}
	}
	return out, nil
}

func (s *Server) getAsset(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "asset")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	pg, err := detailPages(r, "products", "history", "containers")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	d, err := s.exposure.Asset(r.Context(), currentUser(r).OrganizationID, id,
		exposure.AssetPages{Products: pg["products"], History: pg["history"], Containers: pg["containers"]})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, assetDetailJSON{assetJSON: toAssetJSON(d.Asset), Products: pageOf(d.Products, toInstalledProductJSON),
		History: pageOf(d.History, toInstalledProductJSON), Containers: pageOf(d.Containers, toContainerJSON)})
}

func (s *Server) deleteAsset(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "asset")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.exposure.DeleteAsset(r.Context(), currentUser(r).OrganizationID, id); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type assetTagsJSON struct {
	Tags []string `json:"tags"`
}

// setAssetTags replaces a host's tags and answers them as kept.
func (s *Server) setAssetTags(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "asset")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req assetTagsJSON
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Tags == nil {
		s.writeError(w, r, appliance.Invalid("tags", "required", "tags is required (an empty list removes every tag)"))
		return
	}
	tags, err := s.exposure.SetAssetTags(r.Context(), currentUser(r), id, req.Tags)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, assetTagsJSON{Tags: tags})
}

type vulnerabilityJSON struct {
	CVEID        string     `json:"cve_id"`
	Description  string     `json:"description"`
	Severity     string     `json:"severity"`
	Score        *float64   `json:"score"`
	KEV          bool       `json:"kev"`
	KEVDueDate   *string    `json:"kev_due_date"`
	Published    *time.Time `json:"published"`
	Modified     *time.Time `json:"modified"`
	ProductCount int        `json:"product_count"`
	HostCount    int        `json:"host_count"`
	FixAvailable bool       `json:"fix_available"`
}

func toVulnerabilityJSON(v appliance.VulnerabilitySummary) vulnerabilityJSON {
	j := vulnerabilityJSON{CVEID: v.CVEID, Description: v.Description, Severity: v.Severity, KEV: v.KEV,
		KEVDueDate: dateOrNil(v.KEVDue), Published: timeOrNil(v.Published), Modified: timeOrNil(v.Modified),
		ProductCount: v.ProductCount, HostCount: v.HostCount, FixAvailable: v.FixAvailable}
	if v.HasScore {
		j.Score = optional(v.Score)
	}
	return j
}

type affectedProductJSON struct {
	productJSON
	MatchID  int64  `json:"match_id"`
	Criteria string `json:"criteria"`
	findingJSON
}

func toAffectedProductJSON(a appliance.AffectedProduct) affectedProductJSON {
	return affectedProductJSON{productJSON: toProductJSON(a.Product), MatchID: a.MatchID, Criteria: a.Criteria,
		findingJSON: toFindingJSON(a.Finding)}
}

type vulnerabilityDetailJSON struct {
	vulnerabilityJSON
	Known        bool                              `json:"known"` // the CVE data has the record
	Status       string                            `json:"status"`
	Vector       string                            `json:"vector"`
	ScoreVersion string                            `json:"score_version"`
	KEVName      string                            `json:"kev_name,omitempty"`
	KEVAdded     *string                           `json:"kev_date_added"`
	Ransomware   string                            `json:"kev_ransomware,omitempty"`
	NVDURL       string                            `json:"nvd_url"`
	Products     listResponse[affectedProductJSON] `json:"products"`
	Hosts        listResponse[assetJSON]           `json:"hosts"`
}

func (s *Server) listVulnerabilities(w http.ResponseWriter, r *http.Request) {
	f, err := vulnerabilityFilter(r, currentUser(r).OrganizationID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	items, total, err := s.exposure.Vulnerabilities(r.Context(), f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pageOf(appliance.Page[appliance.VulnerabilitySummary]{Items: items, Total: total, Page: f.Page,
		PerPage: f.PerPage}, toVulnerabilityJSON))
}

// vulnerabilityFilter reads the CVE list's query; severity and score sort worst first unless order says otherwise.
func vulnerabilityFilter(r *http.Request, orgID int64) (appliance.VulnerabilityFilter, error) {
	pg, err := listQuery(r, "search", "severity", "kev", "fix_available", "sort", "order")
	if err != nil {
		return appliance.VulnerabilityFilter{}, err
	}
	q := r.URL.Query()
	f := appliance.VulnerabilityFilter{OrganizationID: orgID, Search: q.Get("search"), Severity: strings.ToLower(q.Get("severity")),
		Sort: q.Get("sort"), Page: pg.Page, PerPage: pg.PerPage}
	if f.KEV, err = queryBool(r, "kev"); err != nil {
		return f, err
	}
	if f.FixAvailable, err = queryBool(r, "fix_available"); err != nil {
		return f, err
	}
	f.Desc, err = queryOrder(r, f.Sort == "" || f.Sort == "severity" || f.Sort == "score")
	return f, err
}

func (s *Server) getVulnerability(w http.ResponseWriter, r *http.Request) {
	pg, err := detailPages(r, "products", "hosts")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := httprouter.ParamsFromContext(r.Context()).ByName("cve_id")
	d, err := s.exposure.Vulnerability(r.Context(), currentUser(r).OrganizationID, id,
		exposure.VulnerabilityPages{Products: pg["products"], Hosts: pg["hosts"]})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, vulnerabilityDetailJSON{vulnerabilityJSON: toVulnerabilityJSON(d.VulnerabilitySummary),
		Known: d.Known, Status: d.Status, Vector: d.Vector, ScoreVersion: d.ScoreVersion, KEVName: d.KEVName,
		KEVAdded: dateOrNil(d.KEVAdded), Ransomware: d.Ransomware, NVDURL: "https://nvd.nist.gov/vuln/detail/" + d.CVEID,
		Products: pageOf(d.Products, toAffectedProductJSON), Hosts: pageOf(d.Hosts, toAssetJSON)})
}

type dashboardJSON struct {
	Hosts struct {
		Total              int `json:"total"`
		Reporting          int `json:"reporting"`
		Silent             int `json:"silent"`
		SilentAfterSeconds int `json:"silent_after_seconds"`
	} `json:"hosts"`
	Findings           findingCountsJSON `json:"findings"`
	KEVFindings        int               `json:"kev_findings"`
	OverdueAssignments int               `json:"overdue_assignments"`
	UnresolvedNames    int               `json:"unresolved_names"`
	CVEData            struct {
		NewestModified *time.Time `json:"newest_modified"`
		LastImported   *time.Time `json:"last_imported"`
		AgeSeconds     *int64     `json:"age_seconds"`
	} `json:"cve_data"`
	RiskiestHosts    []assetJSON      `json:"riskiest_hosts"`
	RiskiestProducts []productRowJSON `json:"riskiest_products"`
}

func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) {
	if err := allowQuery(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	d, err := s.exposure.Dashboard(r.Context(), currentUser(r).OrganizationID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var out dashboardJSON
	out.Hosts.Total, out.Hosts.Reporting, out.Hosts.Silent = d.Hosts, d.ReportingHosts, d.SilentHosts
	out.Hosts.SilentAfterSeconds = int(d.SilentAfter / time.Second)
	out.Findings, out.KEVFindings = toFindingCountsJSON(d.Findings), d.Findings.KEV
	out.OverdueAssignments, out.UnresolvedNames = d.OverdueAssignments, d.UnresolvedNames
	out.CVEData.NewestModified, out.CVEData.LastImported = timeOrNil(d.NewestCVEModified), timeOrNil(d.NewestCVEImported)
	if !d.NewestCVEModified.IsZero() {
		age := int64(d.CVEDataAge / time.Second)
		out.CVEData.AgeSeconds = &age
	}
	out.RiskiestHosts = make([]assetJSON, 0, len(d.RiskiestHosts))
	for _, a := range d.RiskiestHosts {
		out.RiskiestHosts = append(out.RiskiestHosts, toAssetJSON(a))
	}
	out.RiskiestProducts = make([]productRowJSON, 0, len(d.RiskiestProducts))
	for _, p := range d.RiskiestProducts {
		out.RiskiestProducts = append(out.RiskiestProducts, toProductRowJSON(p))
	}
	writeJSON(w, http.StatusOK, out)
}

package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/exposure"
	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
)

// namedPager is the paging line of a list inside a detail, whose page travels in its own
// query parameter (products_page, hosts_page …).
type namedPager struct {
	pager
	Param string
}

func newNamedPager[T any](q url.Values, param string, p appliance.Page[T]) namedPager {
	return namedPager{pager: pager{Query: q, Page: p.Page, Per: p.PerPage, Total: p.Total, Pages: p.Pages()}, Param: param}
}

type hostsView struct {
	Items   []appliance.Asset
	Q       url.Values
	Pager   pager
	Invalid string
	Silent  time.Time // a host last seen before is silent
}

// hostsPage lists the organization's hosts with the API's filters and sorts.
func (s *Server) hostsPage(w http.ResponseWriter, r *http.Request) {
	v := hostsView{Q: r.URL.Query(), Silent: time.Now().Add(-s.exposure.SilentAfter())}
	f, err := assetFilter(r, currentUser(r).OrganizationID)
	if err == nil {
		v.Items, v.Pager.Total, err = s.exposure.Assets(r.Context(), f)
	}
	status, invalid, ok := s.listOutcome(w, r, err)
	if !ok {
		return
	}
	v.Invalid = invalid
	v.Pager = newPager(v.Q, max(f.Page, 1), max(f.PerPage, 1), v.Pager.Total)
	s.render(w, r, status, "hosts", view{Title: "Hosts", Nav: "hosts", Data: v})
}

type hostView struct {
	exposure.AssetDetail
	Silent                      bool
	ProductsPager, HistoryPager namedPager
	ContainersPager             namedPager
}

// hostPage shows one host: its OS and agent, every installed product with its findings,
// containers on it, and the history of installs and removals, each list paged on its own.
func (s *Server) hostPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "host")
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	pg, err := detailPages(r, "products", "history", "containers")
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	d, err := s.exposure.Asset(r.Context(), currentUser(r).OrganizationID, id,
		exposure.AssetPages{Products: pg["products"], History: pg["history"], Containers: pg["containers"]})
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	q := r.URL.Query()
	v := hostView{AssetDetail: d, ProductsPager: newNamedPager(q, "products_page", d.Products),
		HistoryPager: newNamedPager(q, "history_page", d.History), ContainersPager: newNamedPager(q, "containers_page", d.Containers),
		Silent: s.exposure.Silent(d.Asset)}
	s.render(w, r, http.StatusOK, "host", view{Title: d.Hostname, Nav: "hosts", Data: v})
}

// hostDeleteSubmit removes a host and its installations (admins); products keep their history.
func (s *Server) hostDeleteSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "host")
	if err == nil {
		err = s.exposure.DeleteAsset(r.Context(), currentUser(r).OrganizationID, id)
	}
	s.done(w, r, "/hosts", err, "Host deleted.")
}

// hostTagsSubmit replaces a host's tags (admins) from a comma-separated field.
func (s *Server) hostTagsSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "host")
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	tags := []string{}
	for _, t := range strings.Split(r.PostFormValue("tags"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	_, err = s.exposure.SetAssetTags(r.Context(), currentUser(r), id, tags)
	s.done(w, r, fmt.Sprintf("/hosts/%d", id), err, "Tags saved.")
}

type vulnerabilitiesView struct {
	Items   []appliance.VulnerabilitySummary
	Q       url.Values
	Pager   pager
	Invalid string
}

// vulnerabilitiesPage lists the CVEs affecting the organization.
func (s *Server) vulnerabilitiesPage(w http.ResponseWriter, r *http.Request) {
	v := vulnerabilitiesView{Q: r.URL.Query()}
	f, err := vulnerabilityFilter(r, currentUser(r).OrganizationID)
	if err == nil {
		v.Items, v.Pager.Total, err = s.exposure.Vulnerabilities(r.Context(), f)
	}
	status, invalid, ok := s.listOutcome(w, r, err)
	if !ok {
		return
	}
	v.Invalid = invalid
	v.Pager = newPager(v.Q, max(f.Page, 1), max(f.PerPage, 1), v.Pager.Total)
	s.render(w, r, status, "vulnerabilities", view{Title: "Vulnerabilities", Nav: "vulnerabilities", Data: v})
}

type vulnerabilityView struct {
	exposure.VulnerabilityDetail
	ProductsPager, HostsPager namedPager
}

// vulnerabilityPage shows one CVE: its facts, KEV due date, the products and hosts it affects.
func (s *Server) vulnerabilityPage(w http.ResponseWriter, r *http.Request) {
	pg, err := detailPages(r, "products", "hosts")
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	d, err := s.exposure.Vulnerability(r.Context(), currentUser(r).OrganizationID, httprouter.ParamsFromContext(r.Context()).ByName("cve_id"),
		exposure.VulnerabilityPages{Products: pg["products"], Hosts: pg["hosts"]})
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	q := r.URL.Query()
	s.render(w, r, http.StatusOK, "vulnerability", view{Title: d.CVEID, Nav: "vulnerabilities", Data: vulnerabilityView{
		VulnerabilityDetail: d, ProductsPager: newNamedPager(q, "products_page", d.Products), HostsPager: newNamedPager(q, "hosts_page", d.Hosts)}})
}

type dashboardView struct {
	exposure.Dashboard
	OpenAssignments, Containers int
	Feeds                       []feeds.Status
}

// homePage is the dashboard: hosts reporting and silent, open findings by severity, KEV
// findings, overdue assignments, names waiting for review, the age of the CVE data and of
// each synced feed, and the riskiest hosts and products.
func (s *Server) homePage(w http.ResponseWriter, r *http.Request) {
	ctx, orgID := r.Context(), currentUser(r).OrganizationID
	var v dashboardView
	var err error
	v.Dashboard, err = s.exposure.Dashboard(ctx, orgID)
	if err == nil {
		_, v.OpenAssignments, err = s.remediation.List(ctx, appliance.AssignmentFilter{OrganizationID: orgID, Status: appliance.AssignmentOpen, Page: 1, PerPage: 1})
	}
	if err == nil {
		_, v.Containers, err = s.containers.List(ctx, appliance.ContainerFilter{OrganizationID: orgID, Page: 1, PerPage: 1})
	}
	if err == nil {
		v.Feeds, err = s.feedStatus(ctx)
	}
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "home", view{Title: "Overview", Nav: "home", Data: v})
}

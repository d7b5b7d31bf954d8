package web

import (
	"net/http"
	"net/url"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
)

type containersView struct {
	Items   []appliance.ContainerImage
	Q       url.Values
	Pager   pager
	Invalid string
}

func (s *Server) containersPage(w http.ResponseWriter, r *http.Request) {
	v := containersView{Q: r.URL.Query()}
	f, err := containerFilter(r, currentUser(r).OrganizationID)
	if err == nil {
		v.Items, v.Pager.Total, err = s.containers.List(r.Context(), f)
	}
	status, invalid, ok := s.listOutcome(w, r, err)
	if !ok {
		return
	}
	v.Invalid = invalid
	v.Pager = newPager(v.Q, max(f.Page, 1), max(f.PerPage, 1), v.Pager.Total)
	s.render(w, r, status, "containers", view{Title: "Containers", Nav: "containers", Data: v})
}

// packageFindings are one package's findings in an image.
type packageFindings struct {
	Package, Installed string
	Findings           []appliance.ContainerFinding
}

type containerView struct {
	containers.ContainerDetail
	Packages []packageFindings
}

func (s *Server) containerPage(w http.ResponseWriter, r *http.Request) {
	d, err := s.containers.Get(r.Context(), currentUser(r).OrganizationID, httprouter.ParamsFromContext(r.Context()).ByName("id"))
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	v := containerView{ContainerDetail: d}
	at := map[string]int{}
	for _, f := range d.Findings {
		key := f.PackageName + "\x00" + f.InstalledVersion
		i, ok := at[key]
		if !ok {
			i = len(v.Packages)
			at[key] = i
			v.Packages = append(v.Packages, packageFindings{Package: f.PackageName, Installed: f.InstalledVersion})
		}
		v.Packages[i].Findings = append(v.Packages[i].Findings, f)
	}
	s.render(w, r, http.StatusOK, "container", view{Title: d.Name, Nav: "containers", Data: v})
}

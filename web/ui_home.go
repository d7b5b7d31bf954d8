package web

import (
	"net/http"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// homeView is the overview until the dashboard service exists: totals the list services
// already count.
type homeView struct {
	VulnerableProducts, Unresolved, OpenAssignments, Overdue, Containers int
	Worst                                                                []appliance.Product
}

func (s *Server) homePage(w http.ResponseWriter, r *http.Request) {
	ctx, orgID := r.Context(), currentUser(r).OrganizationID
	yes := true
	var v homeView
	var err error
	v.Worst, v.VulnerableProducts, err = s.inventory.Products(ctx, appliance.ProductFilter{OrganizationID: orgID, HasVulnerabilities: &yes,
		Installed: &yes, Sort: "criticality", Desc: true, Page: 1, PerPage: 10})
	if err == nil {
		_, v.Unresolved, err = s.inventory.Review(ctx, orgID, 1, 1)
	}
	if err == nil {
		_, v.OpenAssignments, err = s.remediation.List(ctx, appliance.AssignmentFilter{OrganizationID: orgID, Status: appliance.AssignmentOpen, Page: 1, PerPage: 1})
	}
	if err == nil {
		_, v.Overdue, err = s.remediation.List(ctx, appliance.AssignmentFilter{OrganizationID: orgID, Overdue: true, Page: 1, PerPage: 1})
	}
	if err == nil {
		_, v.Containers, err = s.containers.List(ctx, appliance.ContainerFilter{OrganizationID: orgID, Page: 1, PerPage: 1})
	}
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "home", view{Title: "Overview", Nav: "home", Data: v})
}

package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
)

type remediationView struct {
	Items    []remediation.Record
	Q        url.Values
	Pager    pager
	Statuses []appliance.AssignmentStatus
	Invalid  string
}

// remediationPage is the board: the same filters as the API (mine is assigned_to=me).
func (s *Server) remediationPage(w http.ResponseWriter, r *http.Request) {
	v := remediationView{Q: r.URL.Query(), Statuses: remediation.Statuses()}
	f, err := assignmentFilter(r, currentUser(r).OrganizationID)
	if err == nil {
		v.Items, v.Pager.Total, err = s.remediation.List(r.Context(), f)
	}
	status, invalid, ok := s.listOutcome(w, r, err)
	if !ok {
		return
	}
	v.Invalid = invalid
	v.Pager = newPager(v.Q, max(f.Page, 1), max(f.PerPage, 1), v.Pager.Total)
	s.render(w, r, status, "remediation", view{Title: "Remediation", Nav: "remediation", Data: v})
}

type assignmentNewView struct {
	MatchID, ProductID, CVEID string
	Users                     []appliance.User
}

func (s *Server) assignmentNewPage(w http.ResponseWriter, r *http.Request) {
	users, err := s.accounts.Users(r.Context(), currentUser(r).OrganizationID)
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	q := r.URL.Query()
	v := assignmentNewView{MatchID: q.Get("match_id"), ProductID: q.Get("product_id"), CVEID: q.Get("cve_id"), Users: users}
	s.render(w, r, http.StatusOK, "assignment_new", view{Title: "New assignment", Nav: "remediation", Data: v})
}

// formString is a form value, nil when blank (absent for the service).
func formString(r *http.Request, name string) *string {
	v := r.PostFormValue(name)
	if v == "" {
		return nil
	}
	return &v
}

func formInt(r *http.Request, name string) (*int64, error) {
	v := r.PostFormValue(name)
	if v == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, appliance.Invalid(name, "type", "%s must be a whole number", name)
	}
	return &n, nil
}

func (s *Server) assignmentCreateSubmit(w http.ResponseWriter, r *http.Request) {
	in := remediation.Input{AssignedTo: formString(r, "assigned_to"), CVEID: formString(r, "cve_id"), Priority: formString(r, "priority"),
		DueDate: formString(r, "due_date"), Notes: formString(r, "notes")}
	var err error
	if in.MatchID, err = formInt(r, "match_id"); err == nil {
		in.ProductID, err = formInt(r, "product_id")
	}
	back := "/assign?" + url.Values{"match_id": {r.PostFormValue("match_id")}, "product_id": {r.PostFormValue("product_id")},
		"cve_id": {r.PostFormValue("cve_id")}}.Encode()
	if err != nil {
		s.done(w, r, back, err, "")
		return
	}
	rec, err := s.remediation.Create(r.Context(), currentUser(r), in)
	if err != nil {
		s.done(w, r, back, err, "")
		return
	}
	s.done(w, r, assignmentPath(rec.ID), nil, "Assignment created.")
}

func assignmentPath(id int64) string { return "/remediation/" + strconv.FormatInt(id, 10) }

type assignmentView struct {
	remediation.Record
	Statuses []appliance.AssignmentStatus
}

func (s *Server) assignmentPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "assignment")
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	rec, err := s.remediation.Get(r.Context(), currentUser(r).OrganizationID, id)
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	title := "Assignment " + strconv.FormatInt(id, 10)
	s.render(w, r, http.StatusOK, "assignment", view{Title: title, Nav: "remediation", Data: assignmentView{Record: rec, Statuses: remediation.Statuses()}})
}

// assignmentStatusSubmit moves an assignment along the workflow with its note.
func (s *Server) assignmentStatusSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "assignment")
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	in := remediation.Input{Status: formString(r, "status"), Notes: formString(r, "notes")}
	_, err = s.remediation.Update(r.Context(), currentUser(r), id, in)
	s.done(w, r, assignmentPath(id), err, "Status changed.")
}

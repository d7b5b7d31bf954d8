package web

import (
	"net/http"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

type assignmentRequest struct {
	AssignedTo *string `json:"assigned_to"`
	MatchID    *int64  `json:"match_id"`
	ProductID  *int64  `json:"product_id"`
	CVEID      *string `json:"cve_id"`
	Priority   *string `json:"priority"`
	DueDate    *string `json:"due_date"`
	Notes      *string `json:"notes"`
	Status     *string `json:"status"`
}

func (req assignmentRequest) input() remediation.Input {
	return remediation.Input{AssignedTo: req.AssignedTo, MatchID: req.MatchID, ProductID: req.ProductID, CVEID: req.CVEID,
		Priority: req.Priority, DueDate: req.DueDate, Notes: req.Notes, Status: req.Status}
}

type assignmentJSON struct {
	ID          int64      `json:"id"`
	Status      string     `json:"status"`
	AssignedTo  *string    `json:"assigned_to"`
	MatchID     *int64     `json:"match_id"`
	ProductID   *int64     `json:"product_id"`
	ProductName *string    `json:"product_name,omitempty"`
	CVEID       *string    `json:"cve_id"`
	Priority    string     `json:"priority"`
	DueDate     string     `json:"due_date"`
	KEVDueDate  *string    `json:"kev_due_date,omitempty"`
	Overdue     bool       `json:"overdue"`
	Notes       string     `json:"notes"`
	CreatedBy   *string    `json:"created_by"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	ResolvedAt  *time.Time `json:"resolved_at"`
}

type assignmentEventJSON struct {
	At         time.Time `json:"at"`
	FromStatus *string   `json:"from_status"`
	ToStatus   string    `json:"to_status"`
	Note       string    `json:"note"`
	ByUserID   *int64    `json:"by_user_id"`
}

type assignmentDetailJSON struct {
	assignmentJSON
	History []assignmentEventJSON `json:"history"`
}

type slaPolicyJSON struct {
	Critical  int        `json:"critical"`
	High      int        `json:"high"`
	Medium    int        `json:"medium"`
	Low       int        `json:"low"`
	UpdatedAt *time.Time `json:"updated_at"`
}

type slaPolicyRequest struct {
	Critical *int `json:"critical"`
	High     *int `json:"high"`
	Medium   *int `json:"medium"`
	Low      *int `json:"low"`
}

// optional is nil for the zero value, so absent targets and users encode as null.
func optional[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

func dateOrNil(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	d := t.Format(time.DateOnly)
	return &d
}

func toAssignmentJSON(rec remediation.Record) assignmentJSON {
	a := rec.Assignment
	return assignmentJSON{ID: a.ID, Status: string(a.Status), AssignedTo: optional(a.AssignedToName), MatchID: optional(a.MatchID),
		ProductID: optional(a.ProductID), ProductName: optional(a.ProductName), CVEID: optional(a.CVEID), Priority: a.Priority,
		DueDate: a.DueDate.Format(time.DateOnly), KEVDueDate: dateOrNil(a.KEVDueDate), Overdue: rec.Overdue, Notes: a.Notes,
		CreatedBy: optional(a.CreatedByName), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, ResolvedAt: optional(a.ResolvedAt)}
}

func toAssignmentDetailJSON(rec remediation.Record) assignmentDetailJSON {
	out := assignmentDetailJSON{assignmentJSON: toAssignmentJSON(rec), History: make([]assignmentEventJSON, 0, len(rec.History))}
	for _, e := range rec.History {
		out.History = append(out.History, assignmentEventJSON{At: e.At, FromStatus: optional(string(e.From)), ToStatus: string(e.To),
			Note: e.Note, ByUserID: optional(e.By)})
	}
	return out
}

func toSLAPolicyJSON(p appliance.SLAPolicy) slaPolicyJSON {
	return slaPolicyJSON{Critical: p.Critical, High: p.High, Medium: p.Medium, Low: p.Low, UpdatedAt: optional(p.UpdatedAt)}
}

func assignmentID(r *http.Request) (int64, error) {
	return pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "assignment")
}

func (s *Server) listAssignments(w http.ResponseWriter, r *http.Request) {
	f, err := assignmentFilter(r, currentUser(r).OrganizationID)
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
		s.exportAssignments(w, r, f)
		return
	}
	items, total, err := s.remediation.List(r.Context(), f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pageOf(appliance.Page[remediation.Record]{Items: items, Total: total, Page: f.Page,
		PerPage: f.PerPage}, toAssignmentJSON))
}

// assignmentFilter reads the list query; newest first is the default for every sort but due_date.
func assignmentFilter(r *http.Request, orgID int64) (appliance.AssignmentFilter, error) {
	if err := allowQuery(r, "page", "per_page", "status", "priority", "assigned_to", "cve_id", "product_id", "overdue",
		"search", "sort", "order", "format"); err != nil {
		return appliance.AssignmentFilter{}, err
	}
	pg, err := parsePage(r, remediation.DefaultAssignmentsPerPage, remediation.MaxAssignmentsPerPage)
	if err != nil {
		return appliance.AssignmentFilter{}, err
	}
	q := r.URL.Query()
	f := appliance.AssignmentFilter{OrganizationID: orgID, Status: appliance.AssignmentStatus(q.Get("status")), Priority: q.Get("priority"),
		AssignedTo: q.Get("assigned_to"), CVEID: q.Get("cve_id"), Search: q.Get("search"), Sort: q.Get("sort"),
		Page: pg.Page, PerPage: pg.PerPage}
	productID, err := queryInt(r, "product_id")
	if err != nil {
		return f, err
	}
	f.ProductID = int64(productID)
	overdue, err := queryBool(r, "overdue")
	if err != nil {
		return f, err
	}
	f.Overdue = overdue != nil && *overdue
	if f.Desc, err = queryOrder(r, f.Sort != "" && f.Sort != "due_date"); err != nil {
		return f, err
	}
	return f, remediation.ValidateAssignmentFilter(f)
}

func (s *Server) getAssignment(w http.ResponseWriter, r *http.Request) {
	id, err := assignmentID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rec, err := s.remediation.Get(r.Context(), currentUser(r).OrganizationID, id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toAssignmentDetailJSON(rec))
}

func (s *Server) createAssignment(w http.ResponseWriter, r *http.Request) {
	var req assignmentRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	rec, err := s.remediation.Create(r.Context(), currentUser(r), req.input())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toAssignmentDetailJSON(rec))
}

func (s *Server) updateAssignment(w http.ResponseWriter, r *http.Request) {
	id, err := assignmentID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req assignmentRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	rec, err := s.remediation.Update(r.Context(), currentUser(r), id, req.input())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toAssignmentDetailJSON(rec))
}

func (s *Server) deleteAssignment(w http.ResponseWriter, r *http.Request) {
	id, err := assignmentID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.remediation.Delete(r.Context(), currentUser(r), id); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) getSLAPolicy(w http.ResponseWriter, r *http.Request) {
	p, err := s.remediation.Policy(r.Context(), currentUser(r).OrganizationID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSLAPolicyJSON(p))
}

func (s *Server) putSLAPolicy(w http.ResponseWriter, r *http.Request) {
	var req slaPolicyRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	in := remediation.PolicyInput{Critical: req.Critical, High: req.High, Medium: req.Medium, Low: req.Low}
	p, err := s.remediation.UpdatePolicy(r.Context(), currentUser(r), in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSLAPolicyJSON(p))
}

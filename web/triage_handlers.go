package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/appliance/triage"
)

type triageRuleRequest struct {
	CVEID         string `json:"cve_id"`
	Scope         string `json:"scope"`
	Product       string `json:"product"`
	VersionStart  string `json:"version_start"`
	VersionEnd    string `json:"version_end"`
	AssetID       int64  `json:"asset_id"`
	Tag           string `json:"tag"`
	State         string `json:"state"`
	Justification string `json:"justification"`
	Note          string `json:"note"`
	ExpiresAt     string `json:"expires_at"`
	ReplacesID    int64  `json:"replaces_id"` // preview only: the rule the candidate would replace
}

func (req triageRuleRequest) input() triage.Input {
	return triage.Input{CVEID: req.CVEID, Scope: req.Scope, Product: req.Product, VersionStart: req.VersionStart,
		VersionEnd: req.VersionEnd, AssetID: req.AssetID, Tag: req.Tag, State: req.State, Justification: req.Justification,
		Note: req.Note, ExpiresAt: req.ExpiresAt}
}

type triageRuleJSON struct {
	ID            int64      `json:"id"`
	CVEID         *string    `json:"cve_id"`
	Scope         string     `json:"scope"`
	Product       *string    `json:"product"`
	VersionStart  *string    `json:"version_start"`
	VersionEnd    *string    `json:"version_end"`
	AssetID       *int64     `json:"asset_id"`
	Tag           *string    `json:"tag"`
	State         string     `json:"state"`
	Justification *string    `json:"justification"`
	Note          string     `json:"note"`
	Author        string     `json:"author"`
	ExpiresAt     *time.Time `json:"expires_at"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func toTriageRuleJSON(r appliance.TriageRule) triageRuleJSON {
	j := triageRuleJSON{ID: r.ID, CVEID: optString(r.CVEID), Scope: r.Scope, Product: optString(r.Product),
		VersionStart: optString(r.VersionStart), VersionEnd: optString(r.VersionEnd), Tag: optString(r.Tag), State: r.State,
		Justification: optString(r.Justification), Note: r.Note, Author: r.Author, ExpiresAt: optTime(r.ExpiresAt),
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.AssetID != 0 {
		id := r.AssetID
		j.AssetID = &id
	}
	return j
}

// triageJSON is the decision in force on a finding (null when none).
type triageJSON struct {
	State         string     `json:"state"`
	Justification *string    `json:"justification"`
	RuleID        *int64     `json:"rule_id"`
	ExpiresAt     *time.Time `json:"expires_at"`
	Suppressed    bool       `json:"suppressed"`
}

func toTriageJSON(t *appliance.TriageState, now time.Time) *triageJSON {
	if t == nil {
		return nil
	}
	j := &triageJSON{State: t.State, Justification: optString(t.Justification), ExpiresAt: optTime(t.ExpiresAt),
		Suppressed: t.SuppressedAt(now)}
	if t.RuleID != 0 {
		id := t.RuleID
		j.RuleID = &id
	}
	return j
}

func (s *Server) listTriageRules(w http.ResponseWriter, r *http.Request) {
	pg, err := parsePage(r, 50, 200)
	if err == nil {
		err = allowQuery(r, "page", "per_page")
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rules, err := s.triage.Rules(r.Context(), currentUser(r).OrganizationID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := listResponse[triageRuleJSON]{Items: []triageRuleJSON{}, Total: len(rules), Page: pg.Page, PerPage: pg.PerPage,
		Pages: pages(len(rules), pg.PerPage)}
	for _, rule := range rules[min((pg.Page-1)*pg.PerPage, len(rules)):min(pg.Page*pg.PerPage, len(rules))] {
		out.Items = append(out.Items, toTriageRuleJSON(rule))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createTriageRule(w http.ResponseWriter, r *http.Request) {
	var req triageRuleRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	rule, err := s.triage.Create(r.Context(), currentUser(r), req.input())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toTriageRuleJSON(rule))
}

func triageRuleID(r *http.Request) (int64, error) {
	return pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "triage rule")
}

func (s *Server) getTriageRule(w http.ResponseWriter, r *http.Request) {
	id, err := triageRuleID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rule, err := s.triage.Rule(r.Context(), currentUser(r).OrganizationID, id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toTriageRuleJSON(rule))
}

func (s *Server) updateTriageRule(w http.ResponseWriter, r *http.Request) {
	id, err := triageRuleID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req triageRuleRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	rule, err := s.triage.Update(r.Context(), currentUser(r), id, req.input())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toTriageRuleJSON(rule))
}

func (s *Server) deleteTriageRule(w http.ResponseWriter, r *http.Request) {
	id, err := triageRuleID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.triage.Delete(r.Context(), currentUser(r), id); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type triageEventJSON struct {
	At     time.Time      `json:"at"`
	Action string         `json:"action"`
	By     *string        `json:"by"`
	Rule   triageRuleJSON `json:"rule"`
}

func (s *Server) triageRuleHistory(w http.ResponseWriter, r *http.Request) {
	id, err := triageRuleID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	events, err := s.triage.History(r.Context(), currentUser(r).OrganizationID, id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]triageEventJSON, 0, len(events))
	for _, e := range events {
		e.Rule.CreatedAt, e.Rule.UpdatedAt = events[0].At, e.At
		out = append(out, triageEventJSON{At: e.At, Action: e.Action, By: optString(e.ByName), Rule: toTriageRuleJSON(e.Rule)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": out})
}

// previewTriageRule is the dry run: which current findings the rule would change.
func (s *Server) previewTriageRule(w http.ResponseWriter, r *http.Request) {
	var req triageRuleRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	changes, err := s.triage.Preview(r.Context(), currentUser(r), req.ReplacesID, req.input())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]triageChangeJSON, 0, len(changes))
	for _, c := range changes {
		out = append(out, toTriageChangeJSON(c, s.triage.Now()))
	}
	writeJSON(w, http.StatusOK, map[string]any{"changes": out, "total": len(out)})
}

// triageFinding is the finding-level shortcut: a rule about one CVE of one product.
func (s *Server) triageFinding(w http.ResponseWriter, r *http.Request) {
	ps := httprouter.ParamsFromContext(r.Context())
	id, err := pathID(ps.ByName("id"), "product")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req triageRuleRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	rule, err := s.triage.DecideFinding(r.Context(), currentUser(r), id, strings.ToUpper(ps.ByName("cve")), req.input())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toTriageRuleJSON(rule))
}

// includeSuppressed reads include_suppressed=true|false (default false).
func includeSuppressed(r *http.Request) (bool, error) {
	b, err := queryBool(r, "include_suppressed")
	return b != nil && *b, err
}

func (s *Server) triageNow() time.Time {
	if s.triage == nil {
		return time.Now()
	}
	return s.triage.Now()
}

// visibleDetail drops the findings a triage decision suppresses unless include asks for them.
func (s *Server) visibleDetail(d inventory.ProductDetail, include bool) productDetailJSON {
	now := s.triageNow()
	if !include {
		kept := d.Vulnerabilities[:0:0]
		for _, v := range d.Vulnerabilities {
			if !v.Triage.SuppressedAt(now) {
				kept = append(kept, v)
			}
		}
		d.Vulnerabilities = kept
	}
	return toProductDetailJSON(d, now)
}

// triageChangeJSON is a finding a previewed rule would change: a product's (product_id) or a
// container image's package (container_image_id).
type triageChangeJSON struct {
	ProductID        *int64      `json:"product_id"`
	ContainerImageID *int64      `json:"container_image_id"`
	Product          string      `json:"product"`
	Version          string      `json:"version"`
	CVEID            string      `json:"cve_id"`
	From             *triageJSON `json:"from"`
	To               *triageJSON `json:"to"`
}

func toTriageChangeJSON(c triage.Change, now time.Time) triageChangeJSON {
	j := triageChangeJSON{Product: c.Product.Name, Version: c.Product.Version, CVEID: c.CVEID,
		From: toTriageJSON(c.From, now), To: toTriageJSON(c.To, now)}
	if c.ContainerImageID != 0 {
		id := c.ContainerImageID
		j.ContainerImageID = &id
	} else {
		id := c.Product.ID
		j.ProductID = &id
	}
	return j
}

package web

import (
	"net/http"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

type criticalityRuleJSON struct {
	Pattern     string `json:"pattern"`
	Criticality int    `json:"criticality"`
}

// criticalityRulesJSON is the organization's rule set; default is true while it never set one.
type criticalityRulesJSON struct {
	Rules    []criticalityRuleJSON `json:"rules"`
	Default  bool                  `json:"default"`
	Products *int                  `json:"products_changed,omitempty"` // on PUT: products whose criticality changed
}

type criticalityRulesRequest struct {
	Rules *[]criticalityRuleJSON `json:"rules"`
}

func toCriticalityRulesJSON(rules []appliance.CriticalityRule, isDefault bool) criticalityRulesJSON {
	out := criticalityRulesJSON{Rules: make([]criticalityRuleJSON, 0, len(rules)), Default: isDefault}
	for _, r := range rules {
		out.Rules = append(out.Rules, criticalityRuleJSON(r))
	}
	return out
}

func (s *Server) getCriticalityRules(w http.ResponseWriter, r *http.Request) {
	rules, isDefault, err := s.inventory.CriticalityRules(r.Context(), currentUser(r).OrganizationID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toCriticalityRulesJSON(rules, isDefault))
}

func (s *Server) putCriticalityRules(w http.ResponseWriter, r *http.Request) {
	var req criticalityRulesRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Rules == nil {
		s.writeError(w, r, appliance.Invalid("rules", "required", "rules is required (an empty list: no rules, every product 2)"))
		return
	}
	rules := make([]appliance.CriticalityRule, len(*req.Rules))
	for i, rule := range *req.Rules {
		rules[i] = appliance.CriticalityRule(rule)
	}
	stored, changed, err := s.inventory.SetCriticalityRules(r.Context(), currentUser(r).OrganizationID, rules)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := toCriticalityRulesJSON(stored, false)
	out.Products = &changed
	writeJSON(w, http.StatusOK, out)
}

package appliance

import (
	"context"
	"time"
)

// Risk is a finding's risk score (0–100) and the factors it adds up, so it explains itself.
type Risk struct {
	Score   int
	Factors []RiskFactor
}

// RiskFactor is one part of a risk score: what was weighed, its value and the points it gave.
type RiskFactor struct {
	Name   string  // cvss, severity, kev, ransomware, epss, criticality
	Value  float64 // the CVSS score, the EPSS probability, the criticality; 1 for KEV and ransomware
	Points float64
	Detail string // in words: "CVSS 3.1 9.8 (NVD)", "CISA KEV, due 2026-02-16" …
}

// CriticalityRule gives products whose name matches Pattern (a case-insensitive glob: * any
// run of characters, ? one) the criticality Criticality, unless a person chose one.
type CriticalityRule struct {
	Pattern     string `json:"pattern"`
	Criticality int    `json:"criticality"`
}

// CriticalityReader reads an organization's criticality rules.
type CriticalityReader interface {
	// CriticalityRules returns the organization's rules and whether it ever set any (false:
	// the built-in defaults apply).
	CriticalityRules(ctx context.Context, orgID int64) ([]CriticalityRule, bool, error)
	// ProductsByRule lists the organization's live products whose criticality no person chose.
	ProductsByRule(ctx context.Context, orgID int64) ([]Product, error)
}

// CriticalityWriter stores rules and applies criticalities.
type CriticalityWriter interface {
	SaveCriticalityRules(ctx context.Context, orgID int64, rules []CriticalityRule, at time.Time) error
	// SetRuleCriticality sets the criticality of a product no person chose one for; it
	// reports whether the product changed.
	SetRuleCriticality(ctx context.Context, orgID, productID int64, criticality int) (bool, error)
}

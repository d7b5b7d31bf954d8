package inventory

import (
	"context"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/criticality"
)

// CriticalityRules returns the organization's criticality rules and whether they are the
// built-in defaults (it never set its own).
func (s *Service) CriticalityRules(ctx context.Context, orgID int64) ([]appliance.CriticalityRule, bool, error) {
	rules, set, err := s.store.CriticalityRules(ctx, orgID)
	if err != nil || !set {
		return criticality.Defaults, true, err
	}
	return rules, false, nil
}

// SetCriticalityRules replaces the organization's rules and gives every product no person
// chose a criticality for the value of the new rules, in one transaction; it returns the
// stored rules and how many products changed.
func (s *Service) SetCriticalityRules(ctx context.Context, orgID int64, rules []appliance.CriticalityRule) ([]appliance.CriticalityRule, int, error) {
	compiled, err := criticality.Compile(rules)
	if err != nil {
		return nil, 0, err
	}
	changed := 0
	err = s.store.InTx(ctx, func(tx appliance.Tx) error {
		changed = 0
		if err := tx.SaveCriticalityRules(ctx, orgID, compiled.List(), s.now().UTC()); err != nil {
			return err
		}
		products, err := tx.ProductsByRule(ctx, orgID)
		if err != nil {
			return err
		}
		for _, p := range products {
			ok, err := tx.SetRuleCriticality(ctx, orgID, p.ID, compiled.For(p))
			if err != nil {
				return err
			}
			if ok {
				changed++
			}
		}
		return nil
	})
	return compiled.List(), changed, err
}

// criticalityRules compiles the organization's rules (or the defaults) for new products.
func (s *Service) criticalityRules(ctx context.Context, r appliance.CriticalityReader, orgID int64) (*criticality.Rules, error) {
	rules, set, err := r.CriticalityRules(ctx, orgID)
	if err != nil {
		return nil, err
	}
	if !set {
		return defaultRules, nil
	}
	return criticality.Compile(rules)
}

var defaultRules = criticality.MustCompile(criticality.Defaults)

package triage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// ProductIdentity is the identity a rule about one product names: its CPE identity when
// resolved, else its package URL, else its reported vendor and name.
func ProductIdentity(p appliance.Product) string { return Identities(p)[0] }

// DecideFinding is the finding-level shortcut: a rule for one CVE of one product — on every
// version of its identity, or on one host when in.AssetID is set — unless in names a scope.
func (s *Service) DecideFinding(ctx context.Context, actor appliance.User, productID int64, cveID string, in Input) (appliance.TriageRule, error) {
	p, err := s.store.ProductByID(ctx, actor.OrganizationID, productID)
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.TriageRule{}, appliance.NotFound("product %d does not exist", productID)
	} else if err != nil {
		return appliance.TriageRule{}, err
	}
	vulns, err := s.store.ProductVulnerabilities(ctx, actor.OrganizationID, productID)
	if err != nil {
		return appliance.TriageRule{}, err
	}
	in.CVEID = ""
	for _, v := range vulns {
		if strings.EqualFold(v.CVEID, cveID) {
			in.CVEID = v.CVEID
		}
	}
	if in.CVEID == "" {
		return appliance.TriageRule{}, appliance.NotFound("product %d has no finding %s", productID, cveID)
	}
	if in.Scope == "" {
		in.Scope = ScopeProduct
		if in.AssetID != 0 {
			in.Scope = ScopeHost
		}
	}
	if in.Product == "" && in.Scope != ScopeOrganization {
		in.Product = ProductIdentity(p)
	}
	return s.Create(ctx, actor, in)
}

// acceptedRiskDays is how long an accepted risk taken through a remediation assignment lasts
// when the assignment's due date has passed.
const acceptedRiskDays = 90

// ForAssignment makes a remediation assignment that turns false_positive or accepted_risk
// also a rule on its finding, inside the assignment's transaction; an equal rule in force is
// reused. An accepted risk lasts until the assignment's due date, or 90 days when that passed.
func (s *Service) ForAssignment(ctx context.Context, tx appliance.Tx, actor appliance.User, a appliance.Assignment) error {
	if a.Status != appliance.AssignmentFalsePositive && a.Status != appliance.AssignmentAcceptedRisk {
		return nil
	}
	now := s.Now()
	r := appliance.TriageRule{OrganizationID: a.OrganizationID, CVEID: a.CVEID, Scope: ScopeOrganization, State: string(a.Status),
		Note: fmt.Sprintf("remediation assignment %d", a.ID), Author: actor.Username}
	productID := a.ProductID
	if a.MatchID != 0 {
		m, err := tx.MatchInOrganization(ctx, a.OrganizationID, a.MatchID)
		if err == nil {
			productID, r.CVEID = m.ProductID, m.CVEID
		} else if !errors.Is(err, appliance.ErrNotFound) {
			return err
		}
	}
	if productID != 0 {
		p, err := tx.ProductByID(ctx, a.OrganizationID, productID)
		if err == nil {
			r.Scope, r.Product = ScopeProduct, ProductIdentity(p)
		} else if !errors.Is(err, appliance.ErrNotFound) {
			return err
		}
	}
	if r.CVEID == "" && r.Product == "" {
		return nil // nothing left to scope a rule to
	}
	if r.State == StateAcceptedRisk {
		r.ExpiresAt = a.DueDate
		if !r.ExpiresAt.After(now) {
			r.ExpiresAt = now.Add(acceptedRiskDays * 24 * time.Hour)
		}
	}
	if err := Validate(&r, now); err != nil {
		return err
	}
	rules, err := tx.TriageRules(ctx, a.OrganizationID)
	if err != nil {
		return err
	}
	if hasSame(rules, r, now) {
		return nil
	}
	if _, err := s.create(ctx, tx, actor, r); err != nil {
		return err
	}
	return s.refresh(ctx, tx, a.OrganizationID)
}

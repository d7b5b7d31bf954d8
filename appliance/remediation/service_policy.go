package remediation

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// PolicyInput is a partial SLA update; nil windows keep their value.
type PolicyInput struct {
	Critical, High, Medium, Low *int
}

// Policy is the organization's SLA: the stored one, or the defaults (zero UpdatedAt).
func (r *Remediation) Policy(ctx context.Context, orgID int64) (appliance.SLAPolicy, error) {
	p, err := r.store.SLAPolicy(ctx, orgID)
	if errors.Is(err, appliance.ErrNotFound) {
		d := DefaultPolicy()
		return appliance.SLAPolicy{OrganizationID: orgID, Critical: d.Critical, High: d.High, Medium: d.Medium, Low: d.Low}, nil
	}
	return p, err
}

// UpdatePolicy changes the organization's SLA windows (org_admin only); existing assignments
// keep their due dates.
func (r *Remediation) UpdatePolicy(ctx context.Context, actor appliance.User, in PolicyInput) (appliance.SLAPolicy, error) {
	if err := requireAdmin(actor); err != nil {
		return appliance.SLAPolicy{}, err
	}
	p, err := r.Policy(ctx, actor.OrganizationID)
	if err != nil {
		return appliance.SLAPolicy{}, err
	}
	for _, w := range []struct {
		from *int
		to   *int
	}{{in.Critical, &p.Critical}, {in.High, &p.High}, {in.Medium, &p.Medium}, {in.Low, &p.Low}} {
		if w.from != nil {
			*w.to = *w.from
		}
	}
	if err := toPolicy(p).Validate(); err != nil {
		return appliance.SLAPolicy{}, err
	}
	p.UpdatedAt = r.now().UTC()
	err = r.store.InTx(ctx, func(tx appliance.Tx) error { return tx.SaveSLAPolicy(ctx, p) })
	return p, err
}

func toPolicy(p appliance.SLAPolicy) Policy {
	return Policy{Critical: p.Critical, High: p.High, Medium: p.Medium, Low: p.Low}
}

// dueDate is the given ISO date, or the SLA's date for the most severe finding. The KEV due
// date of that finding is returned beside it, for display.
func (r *Remediation) dueDate(ctx context.Context, orgID int64, given *string, findings []appliance.FindingFacts, now time.Time) (due, kevDue time.Time, err error) {
	driving := MostSevere(slaFindings(findings))
	if driving.KEV {
		kevDue = driving.KEVDue
	}
	if given != nil && strings.TrimSpace(*given) != "" {
		due, err = ParseDueDate(strings.TrimSpace(*given))
		return due, kevDue, err
	}
	p, err := r.Policy(ctx, orgID)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	return DueDate(toPolicy(p), driving, now), kevDue, nil
}

func slaFindings(facts []appliance.FindingFacts) []Finding {
	out := make([]Finding, len(facts))
	for i, f := range facts {
		out[i] = Finding{Severity: strings.ToLower(f.Severity), KEV: f.KEV, KEVDue: f.KEVDue}
	}
	return out
}

package remediation

import (
	"context"
	"errors"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// target is what an assignment is about, checked to exist in the organization, with the
// findings it covers (for the SLA) and whether the finding is present now.
// targetReader is what naming an assignment's target reads: the finding it points at and the
// facts (severity, KEV) its SLA is computed from.
type targetReader interface {
	ProductByID(ctx context.Context, orgID, id int64) (appliance.Product, error)
	ProductVulnerabilities(ctx context.Context, orgID, productID int64) ([]appliance.ProductVulnerability, error)
	MatchInOrganization(ctx context.Context, orgID, matchID int64) (appliance.MatchRef, error)
	CVEFacts(ctx context.Context, cveID string) (appliance.FindingFacts, error)
	CVEMatchedInOrganization(ctx context.Context, orgID int64, cveID string) (bool, error)
	ScannedSeverities(ctx context.Context, orgID int64, cveID string) ([]string, error)
}

type target struct {
	matchID, productID int64
	cveID              string
	findings           []appliance.FindingFacts
	present            bool
}

// resolveTarget checks match_id, product_id and cve_id; the most specific one given decides,
// and the others must agree with it. A match fills in its product and CVE.
func resolveTarget(ctx context.Context, r targetReader, orgID int64, in Input) (target, error) {
	cve := strings.ToUpper(strings.TrimSpace(deref(in.CVEID)))
	if len(cve) > maxCVEID {
		return target{}, appliance.Invalid("cve_id", "max_length", "cve_id must have at most %d characters", maxCVEID)
	}
	switch {
	case in.MatchID != nil:
		return matchTarget(ctx, r, orgID, *in.MatchID, in.ProductID, cve)
	case in.ProductID != nil:
		return productTarget(ctx, r, orgID, *in.ProductID, cve)
	case cve != "":
		return cveTarget(ctx, r, orgID, cve)
	}
	return target{}, appliance.Invalid("match_id", "required", "one of match_id, product_id or cve_id is required")
}

func matchTarget(ctx context.Context, r targetReader, orgID, matchID int64, productID *int64, cve string) (target, error) {
	m, err := r.MatchInOrganization(ctx, orgID, matchID)
	if errors.Is(err, appliance.ErrNotFound) {
		return target{}, appliance.Invalid("match_id", "exists", "match %d does not exist in your organization", matchID)
	}
	if err != nil {
		return target{}, err
	}
	if productID != nil && *productID != m.ProductID {
		return target{}, appliance.Invalid("product_id", "mismatch", "match %d belongs to product %d", matchID, m.ProductID)
	}
	if cve != "" && !strings.EqualFold(cve, m.CVEID) {
		return target{}, appliance.Invalid("cve_id", "mismatch", "match %d is about %s", matchID, m.CVEID)
	}
	p, err := r.ProductByID(ctx, orgID, m.ProductID)
	if err != nil {
		return target{}, err
	}
	facts, err := knownFacts(ctx, r, m.CVEID)
	if err != nil {
		return target{}, err
	}
	return target{matchID: m.ID, productID: m.ProductID, cveID: m.CVEID, findings: []appliance.FindingFacts{facts},
		present: p.AssetCount > 0}, nil
}

func productTarget(ctx context.Context, r targetReader, orgID, productID int64, cve string) (target, error) {
	p, err := r.ProductByID(ctx, orgID, productID)
	if errors.Is(err, appliance.ErrNotFound) {
		return target{}, appliance.Invalid("product_id", "exists", "product %d does not exist in your organization", productID)
	}
	if err != nil {
		return target{}, err
	}
	vulns, err := r.ProductVulnerabilities(ctx, orgID, productID)
	if err != nil {
		return target{}, err
	}
	t := target{productID: p.ID, cveID: cve, present: p.AssetCount > 0}
	for _, v := range vulns {
		if v.Triage != nil && v.Triage.Suppresses && cve == "" {
			continue // a finding a triage rule takes out counts in no SLA
		}
		if cve == "" || strings.EqualFold(v.CVEID, cve) {
			t.findings = append(t.findings, appliance.FindingFacts{CVEID: v.CVEID, Severity: v.Severity, KEV: v.KEV, KEVDue: v.KEVDue})
		}
	}
	if cve != "" && len(t.findings) == 0 {
		return target{}, appliance.Invalid("cve_id", "mismatch", "product %d is not affected by %s", productID, cve)
	}
	return t, nil
}

// cveTarget accepts a CVE the CVE data knows or one matched or scanned in the organization.
func cveTarget(ctx context.Context, r targetReader, orgID int64, cve string) (target, error) {
	facts, err := r.CVEFacts(ctx, cve)
	known := err == nil
	if err != nil && !errors.Is(err, appliance.ErrNotFound) {
		return target{}, err
	}
	matched, err := r.CVEMatchedInOrganization(ctx, orgID, cve)
	if err != nil {
		return target{}, err
	}
	scanned, err := r.ScannedSeverities(ctx, orgID, cve)
	if err != nil {
		return target{}, err
	}
	if !known && !matched && len(scanned) == 0 {
		return target{}, appliance.Invalid("cve_id", "exists", "%s is neither in the CVE data nor found in your organization", cve)
	}
	t := target{cveID: cve, present: matched || len(scanned) > 0}
	if known {
		t.findings = append(t.findings, facts)
	}
	for _, sev := range scanned {
		t.findings = append(t.findings, appliance.FindingFacts{CVEID: cve, Severity: sev, KEV: facts.KEV, KEVDue: facts.KEVDue})
	}
	return t, nil
}

// knownFacts reads a CVE's facts; a CVE the data does not know yet has none (low window).
func knownFacts(ctx context.Context, r targetReader, cve string) (appliance.FindingFacts, error) {
	f, err := r.CVEFacts(ctx, cve)
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.FindingFacts{CVEID: cve}, nil
	}
	return f, err
}

package web

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// seedFinding stores a CVE and an installed product of org matching it; it returns the
// product id and the match id.
func seedFinding(t *testing.T, env *testEnv, orgID int64, host, product, cve, severity string) (int64, int64) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	var productID int64
	err := env.Store.InTx(ctx, func(tx appliance.Tx) error {
		if err := tx.UpsertCVE(ctx, appliance.CVERecord{ID: cve, Severity: severity, Score: 9.8, HasScore: true}, now); err != nil {
			return err
		}
		assetID, err := tx.CreateAsset(ctx, appliance.Asset{OrganizationID: orgID, Hostname: host, CreatedAt: now, LastSeenAt: now})
		if err != nil {
			return err
		}
		productID, err = tx.CreateProduct(ctx, appliance.Product{OrganizationID: orgID, Vendor: "openssl", Name: product,
			Version: "1.1.1k", Criticality: 2, Resolution: appliance.ResolutionExact, CreatedAt: now, UpdatedAt: now})
		if err != nil {
			return err
		}
		if _, err := tx.CreateInstallation(ctx, appliance.Installation{AssetID: assetID, ProductID: productID, CreatedAt: now}); err != nil {
			return err
		}
		_, err = tx.ReplaceMatches(ctx, productID, []appliance.MatchInput{{CVEID: cve}}, 1, now)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	vulns, err := env.Store.ProductVulnerabilities(ctx, orgID, productID)
	if err != nil || len(vulns) != 1 {
		t.Fatalf("seeded matches %v, %v", vulns, err)
	}
	return productID, vulns[0].MatchID
}

type assignmentListJSON = listResponse[assignmentJSON]

func TestRemediationAssignments(t *testing.T) {
	env := newTestEnv(t)
	attachScans(env)
	acme := env.createOrg(t, "acme")
	globex := env.createOrg(t, "globex")
	env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	env.createUser(t, "acme", "bob", appliance.RoleMember)
	env.createUser(t, "globex", "carol", appliance.RoleOrgAdmin)
	productID, matchID := seedFinding(t, env, acme.ID, "host-a", "openssl", "CVE-2021-3711", "critical")
	otherProduct, _ := seedFinding(t, env, globex.ID, "host-g", "openssl", "CVE-2022-0778", "high")
	alice, bob, carol := env.login(t, "alice", testPassword), env.login(t, "bob", testPassword), env.login(t, "carol", testPassword)
	wantDue := time.Now().UTC().AddDate(0, 0, 15).Format(time.DateOnly)
	var first assignmentDetailJSON
	path := func() string { return fmt.Sprintf("/api/remediation/assignments/%d", first.ID) }
	runScenarios(t, []scenario{
		{"admin creates by CVE", "POST", "/api/remediation/assignments",
			map[string]any{"assigned_to": "bob", "cve_id": "CVE-2021-3711", "priority": "critical", "notes": "patch openssl"}, alice, 201,
			func(t *testing.T, res response) {
				first = decodeBody[assignmentDetailJSON](t, res)
				if first.ID == 0 || first.Status != "open" || first.DueDate != wantDue || *first.AssignedTo != "bob" ||
					*first.CreatedBy != "alice" || first.Priority != "critical" || first.MatchID != nil || len(first.History) != 1 {
					t.Errorf("created %+v, want due %s", first, wantDue)
				}
			}},
		{"by match, priority defaults to medium", "POST", "/api/remediation/assignments",
			map[string]any{"assigned_to": "bob", "match_id": matchID}, alice, 201, func(t *testing.T, res response) {
				a := decodeBody[assignmentJSON](t, res)
				if a.Priority != "medium" || a.ProductID == nil || *a.ProductID != productID || *a.CVEID != "CVE-2021-3711" {
					t.Errorf("created %+v", a)
				}
			}},
		{"by product with a due date", "POST", "/api/remediation/assignments",
			map[string]any{"assigned_to": "alice", "product_id": productID, "due_date": "2031-01-31"}, alice, 201,
			func(t *testing.T, res response) {
				if a := decodeBody[assignmentJSON](t, res); a.DueDate != "2031-01-31" || *a.ProductName != "openssl" {
					t.Errorf("created %+v", a)
				}
			}},
		{"member cannot create", "POST", "/api/remediation/assignments", map[string]any{"assigned_to": "bob", "cve_id": "CVE-2021-3711"}, bob, 403,
			wantErrorCode("forbidden")},
		{"assignee of another organization", "POST", "/api/remediation/assignments", map[string]any{"assigned_to": "carol", "cve_id": "CVE-2021-3711"},
			alice, 400, wantInvalidField("assigned_to")},
		{"product of another organization", "POST", "/api/remediation/assignments", map[string]any{"assigned_to": "bob", "product_id": otherProduct},
			alice, 400, wantInvalidField("product_id")},
		{"no target", "POST", "/api/remediation/assignments", map[string]any{"assigned_to": "bob"}, alice, 400, wantInvalidField("match_id")},
		{"without CSRF token", "POST", "/api/remediation/assignments", map[string]any{"assigned_to": "bob", "cve_id": "CVE-2021-3711"},
			alice.withoutCSRF(), 403, wantErrorCode("csrf_failed")},
	})
	runScenarios(t, []scenario{
		{"member updates priority and notes", "PUT", path(), map[string]any{"priority": "high", "notes": "scheduled for Friday"}, bob, 200,
			func(t *testing.T, res response) {
				if a := decodeBody[assignmentJSON](t, res); a.Priority != "high" || a.Notes != "scheduled for Friday" {
					t.Errorf("updated %+v", a)
				}
			}},
		{"start work", "PUT", path(), map[string]any{"status": "in_progress"}, bob, 200, nil},
		{"resolve", "PUT", path(), map[string]any{"status": "resolved"}, bob, 200, nil},
		{"invalid transition", "PUT", path(), map[string]any{"status": "in_progress"}, bob, 400, wantInvalidField("status")},
		{"other organization reads", "GET", path(), nil, carol, 404, wantErrorCode("not_found")},
		{"other organization updates", "PUT", path(), map[string]any{"notes": "x"}, carol, 404, wantErrorCode("not_found")},
		{"list capped at 100", "GET", "/api/remediation/assignments?per_page=500", nil, bob, 200, func(t *testing.T, res response) {
			if l := decodeBody[assignmentListJSON](t, res); l.PerPage != 100 || l.Total != 3 || len(l.Items) != 3 {
				t.Errorf("list %+v", l)
			}
		}},
		{"list filtered", "GET", "/api/remediation/assignments?status=resolved&sort=priority&order=desc", nil, bob, 200,
			func(t *testing.T, res response) {
				if l := decodeBody[assignmentListJSON](t, res); l.Total != 1 || l.Items[0].ID != first.ID || l.Items[0].ResolvedAt == nil {
					t.Errorf("list %+v", l)
				}
			}},
		{"bad sort", "GET", "/api/remediation/assignments?sort=name", nil, bob, 400, wantInvalidField("sort")},
		{"other organization lists none", "GET", "/api/remediation/assignments", nil, carol, 200, func(t *testing.T, res response) {
			if l := decodeBody[assignmentListJSON](t, res); l.Total != 0 {
				t.Errorf("list %+v", l)
			}
		}},
		{"member cannot delete", "DELETE", path(), nil, bob, 403, wantErrorCode("forbidden")},
		{"admin deletes", "DELETE", path(), nil, alice, 204, nil},
		{"deleted is gone", "GET", path(), nil, alice, 404, wantErrorCode("not_found")},
	})
}

func TestSLAPolicyRoutes(t *testing.T) {
	env := newTestEnv(t)
	attachScans(env)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	env.createUser(t, "acme", "bob", appliance.RoleMember)
	alice, bob := env.login(t, "alice", testPassword), env.login(t, "bob", testPassword)
	wantPolicy := func(c, h, m, l int) func(t *testing.T, res response) {
		return func(t *testing.T, res response) {
			p := decodeBody[slaPolicyJSON](t, res)
			if p.Critical != c || p.High != h || p.Medium != m || p.Low != l {
				t.Errorf("policy %+v, want %d/%d/%d/%d", p, c, h, m, l)
			}
		}
	}
	runScenarios(t, []scenario{
		{"defaults", "GET", "/api/sla/policy", nil, bob, 200, wantPolicy(15, 30, 90, 180)},
		{"member cannot change", "PUT", "/api/sla/policy", map[string]any{"critical": 7}, bob, 403, wantErrorCode("forbidden")},
		{"out of range", "PUT", "/api/sla/policy", map[string]any{"low": 0}, alice, 400, wantInvalidField("sla.low")},
		{"admin changes one window", "PUT", "/api/sla/policy", map[string]any{"critical": 7}, alice, 200, wantPolicy(7, 30, 90, 180)},
		{"stored", "GET", "/api/sla/policy", nil, bob, 200, wantPolicy(7, 30, 90, 180)},
		{"no session", "GET", "/api/sla/policy", nil, env.anonymous(), 401, wantErrorCode("unauthorized")},
	})
}

// wantInvalidField checks a validation error on field.
func wantInvalidField(field string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		if b := wantError(t, res, "validation_error"); b.Details.Field != field {
			t.Errorf("field %q, want %q", b.Details.Field, field)
		}
	}
}

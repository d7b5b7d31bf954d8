package web

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/appliance/triage"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// withTriage wires the triage service on clk as serve does: rules re-applied after every
// change of findings, remediation statuses turned into rules. It goes after withInventory.
func withTriage(clk *fakeClock, into **triage.Service) envOption {
	return withDeps(func(t testing.TB, d *Deps, st *sqlitestore.Store) {
		svc := triage.NewService(st, clk.Now)
		d.Triage, d.Remediation, d.Containers, *into = svc, remediation.NewRemediation(st, nil), containers.NewContainers(st, nil), svc
		d.Remediation.OnStatusChange(svc.ForAssignment)
		refresh := func(ctx context.Context) {
			if err := svc.Refresh(ctx); err != nil {
				t.Errorf("refresh triage: %v", err)
			}
		}
		d.Containers.OnFindingsChanged(refresh)
		if d.Inventory != nil {
			d.Inventory.OnFindingsChanged(refresh)
		}
		if d.Exposure != nil {
			d.Exposure.OnFindingsChanged(refresh)
		}
	})
}

// triageWorld is two organizations with inventories matched against the conformance feed:
// openssl 1.1.1k on host-a and host-b (CVE-2021-3711, CVE-2022-0778), openssl 1.1.1m on
// host-c (CVE-2022-0778 only), Chrome 116.0.5845.96 on host-a (CVE-2023-4863).
type triageWorld struct {
	*invWorld
	clk    *fakeClock
	triage *triage.Service
	bob    *client // member of acme
}

func newTriageWorld(t *testing.T) *triageWorld {
	t.Helper()
	w := &triageWorld{invWorld: &invWorld{}, clk: newFakeClock()}
	w.build(t, withInventory(&w.inv, catalogMini, nvdMini), withTriage(w.clk, &w.triage))
	w.createUser(t, "acme", "bob", appliance.RoleMember)
	w.bob = w.login(t, "bob", testPassword)
	for _, body := range []map[string]any{
		inventoryBody("host-a", hostA[0], hostA[1], hostA[3]),
		inventoryBody("host-b", hostA[0]),
		inventoryBody("host-c", inv("openssl", "openssl", "1.1.1m")),
	} {
		w.submit(t, w.acme, body)
	}
	w.submit(t, w.globex, inventoryBody("host-g", hostA[0]))
	return w
}

func (w *triageWorld) submit(t *testing.T, agent *client, body map[string]any) {
	t.Helper()
	if res := agent.do(t, "POST", "/api/agent/inventory", body); res.Status != 200 {
		t.Fatalf("inventory: status %d, body %s", res.Status, res.Body)
	}
}

// product is alice's view of the product name@version, suppressed findings included or not.
func (w *triageWorld) product(t *testing.T, c *client, name, version string, include bool) productDetailJSON {
	t.Helper()
	for _, p := range list(t, c, "per_page=200&installed=any").Items {
		if p.Name == name && p.Version == version {
			return decodeBody[productDetailJSON](t, c.do(t, "GET", fmt.Sprintf("/api/products/%d?include_suppressed=%v", p.ID, include), nil))
		}
	}
	t.Fatalf("no product %s %s", name, version)
	return productDetailJSON{}
}

// hostID is the id of hostname among the product's hosts.
func hostID(t *testing.T, p productDetailJSON, hostname string) int64 {
	t.Helper()
	for _, a := range p.Assets {
		if a.Hostname == hostname {
			return a.ID
		}
	}
	t.Fatalf("%s is not on %s", p.Name, hostname)
	return 0
}

// counts is "name version=count" of the listed vulnerable products.
func counts(t *testing.T, c *client, query string) []string {
	t.Helper()
	var out []string
	for _, p := range list(t, c, "has_vulnerabilities=true&per_page=200&"+query).Items {
		out = append(out, fmt.Sprintf("%s %s=%d", p.Name, p.Version, p.VulnerabilityCount))
	}
	return out
}

func wantCounts(t *testing.T, c *client, query string, want ...string) {
	t.Helper()
	if got := counts(t, c, query); !slices.Equal(got, want) {
		t.Errorf("vulnerable products (%s) = %v, want %v", query, got, want)
	}
}

// triageOf is the triage object of cve in p (nil when absent or undecided), and whether the
// finding is listed.
func triageOf(p productDetailJSON, cve string) (*triageJSON, bool) {
	for _, v := range p.Vulnerabilities {
		if v.CVEID == cve {
			return v.Triage, true
		}
	}
	return nil, false
}

type ruleListJSON = listResponse[triageRuleJSON]

type previewJSON struct {
	Changes []triageChangeJSON `json:"changes"`
	Total   int                `json:"total"`
}

type historyJSON struct {
	Items []triageEventJSON `json:"items"`
}

func ruleBody(cve, scope, state string, extra map[string]any) map[string]any {
	b := map[string]any{"cve_id": cve, "scope": scope, "state": state}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

const opensslID = "cpe:2.3:a:openssl:openssl"

func TestTriageRulesValidation(t *testing.T) {
	w := newTriageWorld(t)
	globexHost := hostID(t, w.product(t, w.carol, "openssl", "1.1.1k", false), "host-g")
	notAffected := map[string]any{"product": opensslID, "justification": "vulnerable_code_not_present"}
	runScenarios(t, []scenario{
		{"a member may not decide", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "product", "not_affected", notAffected),
			w.bob, 403, wantErrorCode("forbidden")},
		{"a member may propose in_triage", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "product", "in_triage",
			map[string]any{"product": opensslID, "note": "looking"}), w.bob, 201, func(t *testing.T, res response) {
			r := decodeBody[triageRuleJSON](t, res)
			if r.Author != "bob" || r.State != "in_triage" || r.Product == nil || *r.Product != opensslID {
				t.Errorf("rule %+v", r)
			}
		}},
		{"unknown state", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "product", "ignored", notAffected), w.alice, 400, wantField("state")},
		{"not_affected needs a justification", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "product", "not_affected",
			map[string]any{"product": opensslID}), w.alice, 400, wantField("justification")},
		{"only not_affected takes a justification", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "product", "fixed", notAffected),
			w.alice, 400, wantField("justification")},
		{"accepted_risk needs an expiry", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "organization", "accepted_risk", nil),
			w.alice, 400, wantField("expires_at")},
		{"expiry in the past", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "organization", "accepted_risk",
			map[string]any{"expires_at": "2020-01-01"}), w.alice, 400, wantField("expires_at")},
		{"bad expiry", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "organization", "accepted_risk",
			map[string]any{"expires_at": "soon"}), w.alice, 400, wantField("expires_at")},
		{"tag rule needs a tag", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "tag", "fixed", nil), w.alice, 400, wantField("tag")},
		{"bad tag", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "tag", "fixed", map[string]any{"tag": "prod env"}),
			w.alice, 400, wantField("tag")},
		{"tag rule names no host", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "tag", "fixed",
			map[string]any{"tag": "prod", "asset_id": globexHost}), w.alice, 400, wantField("tag")},
		{"only a tag rule names a tag", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "organization", "fixed",
			map[string]any{"tag": "prod"}), w.alice, 400, wantField("tag")},
		{"unknown scope", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "galaxy", "fixed", nil), w.alice, 400, wantField("scope")},
		{"bad CVE id", "POST", "/api/triage/rules", ruleBody("CVE-22-1", "organization", "fixed", nil), w.alice, 400, wantField("cve_id")},
		{"every CVE needs a product", "POST", "/api/triage/rules", ruleBody("", "organization", "fixed", map[string]any{"note": "x"}),
			w.alice, 400, wantField("cve_id")},
		{"every CVE needs a reason", "POST", "/api/triage/rules", ruleBody("", "product", "fixed", map[string]any{"product": opensslID}),
			w.alice, 400, wantField("cve_id")},
		{"product rule needs a product", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "product", "fixed", nil), w.alice, 400, wantField("product")},
		{"bad product", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "product", "fixed", map[string]any{"product": "openssl"}),
			w.alice, 400, wantField("product")},
		{"range needs a bound", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "version_range", "fixed",
			map[string]any{"product": opensslID}), w.alice, 400, wantField("version_start")},
		{"empty range", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "version_range", "fixed",
			map[string]any{"product": opensslID, "version_start": "1.1.1l", "version_end": "1.1.1a"}), w.alice, 400, wantField("version_end")},
		{"host rule needs a host", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "host", "fixed", nil), w.alice, 400, wantField("asset_id")},
		{"another organization's host", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "host", "fixed",
			map[string]any{"asset_id": globexHost}), w.alice, 400, wantField("asset_id")},
		{"unknown field", "POST", "/api/triage/rules", map[string]any{"cve": "CVE-2022-0778"}, w.alice, 400, nil},
		{"not JSON", "POST", "/api/triage/rules", "{", w.alice, 400, wantErrorCode("validation_error")},
		{"unknown query", "GET", "/api/triage/rules?state=fixed", nil, w.alice, 400, wantField("state")},
		{"not an id", "GET", "/api/triage/rules/abc", nil, w.alice, 404, wantErrorCode("not_found")},
		{"missing rule", "GET", "/api/triage/rules/999", nil, w.alice, 404, wantErrorCode("not_found")},
		{"missing history", "GET", "/api/triage/rules/999/history", nil, w.alice, 404, wantErrorCode("not_found")},
		{"agents cannot triage", "GET", "/api/triage/rules", nil, w.acme, 401, nil},
		{"nothing decided was saved", "GET", "/api/triage/rules", nil, w.alice, 200, func(t *testing.T, res response) {
			if got := decodeBody[ruleListJSON](t, res); got.Total != 1 || got.Items[0].State != "in_triage" {
				t.Errorf("rules %+v, want only bob's proposal", got)
			}
		}},
	})
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=2", "openssl 1.1.1m=1")
}

func TestTriageRulesChangeCounts(t *testing.T) {
	w := newTriageWorld(t)
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=2", "openssl 1.1.1m=1")
	rangeRule := ruleBody("CVE-2022-0778", "version_range", "not_affected", map[string]any{"product": opensslID,
		"version_start": "1.1.1", "version_end": "1.1.1l", "justification": "vulnerable_code_not_in_execute_path", "note": "no cert parsing"})
	var rule triageRuleJSON
	rulePath := func(suffix string) string { return fmt.Sprintf("/api/triage/rules/%d%s", rule.ID, suffix) }
	runScenarios(t, []scenario{
		{"dry run names the findings that would change", "POST", "/api/triage/rules/preview", rangeRule, w.alice, 200, func(t *testing.T, res response) {
			p := decodeBody[previewJSON](t, res)
			if p.Total != 1 || p.Changes[0].CVEID != "CVE-2022-0778" || p.Changes[0].Version != "1.1.1k" || p.Changes[0].From != nil ||
				p.Changes[0].To == nil || p.Changes[0].To.State != "not_affected" || !p.Changes[0].To.Suppressed {
				t.Errorf("preview %+v, want openssl 1.1.1k CVE-2022-0778 → not_affected", p)
			}
		}},
		{"the dry run saved nothing", "GET", "/api/triage/rules", nil, w.alice, 200, func(t *testing.T, res response) {
			if got := decodeBody[ruleListJSON](t, res); got.Total != 0 {
				t.Errorf("rules after a dry run: %+v", got)
			}
		}},
		{"create", "POST", "/api/triage/rules", rangeRule, w.alice, 201, func(t *testing.T, res response) {
			rule = decodeBody[triageRuleJSON](t, res)
			if rule.ID == 0 || rule.Author != "alice" || *rule.VersionEnd != "1.1.1l" || *rule.Justification != "vulnerable_code_not_in_execute_path" {
				t.Errorf("created %+v", rule)
			}
		}},
	})
	// 1.1.1m lies outside the range: its CVE-2022-0778 still counts.
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=1", "openssl 1.1.1m=1")
	wantCounts(t, w.alice, "include_suppressed=true", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=2", "openssl 1.1.1m=1")
	wantCounts(t, w.carol, "", "openssl 1.1.1k=2") // another organization's rule changes nothing here
	if _, listed := triageOf(w.product(t, w.alice, "openssl", "1.1.1k", false), "CVE-2022-0778"); listed {
		t.Error("a suppressed finding is listed without include_suppressed")
	}
	tr, listed := triageOf(w.product(t, w.alice, "openssl", "1.1.1k", true), "CVE-2022-0778")
	if !listed || tr == nil || tr.State != "not_affected" || *tr.RuleID != rule.ID || *tr.Justification != "vulnerable_code_not_in_execute_path" || tr.ExpiresAt != nil {
		t.Errorf("triage of the suppressed finding = %+v (listed %v)", tr, listed)
	}
	if tr, listed := triageOf(w.product(t, w.alice, "openssl", "1.1.1k", false), "CVE-2021-3711"); !listed || tr != nil {
		t.Errorf("an undecided finding: triage %+v, listed %v; want null and listed", tr, listed)
	}

	// The same inventory again keeps the decision.
	w.submit(t, w.acme, inventoryBody("host-a", hostA[0], hostA[1], hostA[3]))
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=1", "openssl 1.1.1m=1")

	// Widening the range through PUT is kept as history; 1.1.1m is now covered too.
	widened := ruleBody("CVE-2022-0778", "version_range", "not_affected", map[string]any{"product": opensslID,
		"version_start": "1.1.1", "version_end": "1.1.1n", "justification": "vulnerable_code_not_in_execute_path", "note": "no cert parsing"})
	runScenarios(t, []scenario{
		{"a member may not change a decision", "PUT", rulePath(""), widened, w.bob, 403, wantErrorCode("forbidden")},
		{"another organization cannot see it", "GET", rulePath(""), nil, w.carol, 404, wantErrorCode("not_found")},
		{"nor change it", "PUT", rulePath(""), widened, w.carol, 404, wantErrorCode("not_found")},
		{"nor read its history", "GET", rulePath("/history"), nil, w.carol, 404, wantErrorCode("not_found")},
		{"update", "PUT", rulePath(""), widened, w.alice, 200, func(t *testing.T, res response) {
			if got := decodeBody[triageRuleJSON](t, res); *got.VersionEnd != "1.1.1n" || got.ID != rule.ID {
				t.Errorf("updated %+v", got)
			}
		}},
	})
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=1")

	// Deleting the rule brings its findings back; the rule's history stays.
	runScenarios(t, []scenario{
		{"delete", "DELETE", rulePath(""), nil, w.alice, 204, nil},
		{"deleted rule is gone", "GET", rulePath(""), nil, w.alice, 404, wantErrorCode("not_found")},
		{"its history stays", "GET", rulePath("/history"), nil, w.alice, 200, func(t *testing.T, res response) {
			h := decodeBody[historyJSON](t, res).Items
			var actions []string
			for _, e := range h {
				actions = append(actions, e.Action+" "+*e.Rule.VersionEnd)
			}
			if !slices.Equal(actions, []string{"created 1.1.1l", "updated 1.1.1n", "deleted 1.1.1n"}) || *h[0].By != "alice" {
				t.Errorf("history %v (%+v)", actions, h)
			}
		}},
	})
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=2", "openssl 1.1.1m=1")
}

func TestTriageScopesAndExpiry(t *testing.T) {
	w := newTriageWorld(t)
	chrome := w.product(t, w.alice, "Google Chrome", "116.0.5845.96", false)
	hostAID := hostID(t, chrome, "host-a")
	runScenarios(t, []scenario{
		{"host rule", "POST", "/api/triage/rules", ruleBody("CVE-2023-4863", "host", "false_positive",
			map[string]any{"asset_id": hostAID, "note": "chrome is managed"}), w.alice, 201, nil},
		{"accepted risk on the whole organization", "POST", "/api/triage/rules", ruleBody("CVE-2021-3711", "organization", "accepted_risk",
			map[string]any{"expires_at": w.clk.Now().Add(2 * time.Hour).Format(time.RFC3339), "note": "patch window"}), w.alice, 201, nil},
	})
	wantCounts(t, w.alice, "", "openssl 1.1.1k=1", "openssl 1.1.1m=1")

	// Chrome appears on host-b, outside the host rule: the finding counts again.
	w.submit(t, w.acme, inventoryBody("host-b", hostA[0], inv("Google LLC", "Google Chrome", "116.0.5845.96")))
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=1", "openssl 1.1.1m=1")
	// ... and leaves it again: the host rule decides once more.
	w.submit(t, w.acme, inventoryBody("host-b", hostA[0]))
	wantCounts(t, w.alice, "", "openssl 1.1.1k=1", "openssl 1.1.1m=1")

	// The accepted risk lapses: the sweep brings CVE-2021-3711 back.
	w.clk.Advance(3 * time.Hour)
	if n, err := w.triage.Sweep(context.Background()); err != nil || n != 1 {
		t.Fatalf("sweep = %d, %v; want one organization", n, err)
	}
	wantCounts(t, w.alice, "", "openssl 1.1.1k=2", "openssl 1.1.1m=1")
}

func TestTriageFromRemediationAndFinding(t *testing.T) {
	w := newTriageWorld(t)
	p := w.product(t, w.alice, "openssl", "1.1.1k", false)
	var assignment assignmentJSON
	runScenarios(t, []scenario{
		{"finding shortcut", "POST", fmt.Sprintf("/api/products/%d/findings/cve-2022-0778/triage", p.ID),
			map[string]any{"state": "fixed", "note": "backported"}, w.alice, 201, func(t *testing.T, res response) {
				r := decodeBody[triageRuleJSON](t, res)
				if r.Scope != "product" || *r.Product != opensslID || *r.CVEID != "CVE-2022-0778" {
					t.Errorf("shortcut rule %+v", r)
				}
			}},
		{"shortcut on a CVE the product does not have", "POST", fmt.Sprintf("/api/products/%d/findings/CVE-2023-4863/triage", p.ID),
			map[string]any{"state": "fixed"}, w.alice, 404, wantErrorCode("not_found")},
		{"assignment", "POST", "/api/remediation/assignments", map[string]any{"assigned_to": "bob", "product_id": p.ID,
			"cve_id": "CVE-2021-3711"}, w.alice, 201, func(t *testing.T, res response) { assignment = decodeBody[assignmentJSON](t, res) }},
	})
	runScenarios(t, []scenario{
		{"false positive by the assignee", "PUT", fmt.Sprintf("/api/remediation/assignments/%d", assignment.ID),
			map[string]any{"status": "false_positive", "notes": "not the openssl we ship"}, w.bob, 200, nil},
		{"becomes a rule", "GET", "/api/triage/rules", nil, w.alice, 200, func(t *testing.T, res response) {
			got := decodeBody[ruleListJSON](t, res)
			if got.Total != 2 || got.Items[1].State != "false_positive" || *got.Items[1].CVEID != "CVE-2021-3711" ||
				*got.Items[1].Product != opensslID || got.Items[1].Author != "bob" {
				t.Errorf("rules %+v", got.Items)
			}
		}},
		{"reopened and closed again", "PUT", fmt.Sprintf("/api/remediation/assignments/%d", assignment.ID),
			map[string]any{"status": "open"}, w.alice, 200, nil},
		{"false positive again", "PUT", fmt.Sprintf("/api/remediation/assignments/%d", assignment.ID),
			map[string]any{"status": "false_positive", "notes": "still not ours"}, w.alice, 200, nil},
		{"reuses the rule", "GET", "/api/triage/rules", nil, w.alice, 200, func(t *testing.T, res response) {
			if got := decodeBody[ruleListJSON](t, res); got.Total != 2 {
				t.Errorf("rules %+v, want the first false_positive rule reused", got.Items)
			}
		}},
	})
	// The shortcut's rule covers every version of openssl, the assignment's too.
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1")
	wantCounts(t, w.alice, "include_suppressed=true", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=2", "openssl 1.1.1m=1")
}

// nginx is acme's nginx image record as listed and in detail.
func (w *triageWorld) nginx(t *testing.T, include bool) (containerJSON, containerDetailJSON) {
	t.Helper()
	q := fmt.Sprintf("include_suppressed=%v", include)
	for _, img := range decodeBody[listResponse[containerJSON]](t, w.alice.do(t, "GET", "/api/containers?"+q, nil)).Items {
		if img.ImageName == "nginx" {
			return img, decodeBody[containerDetailJSON](t, w.alice.do(t, "GET", fmt.Sprintf("/api/containers/%d?%s", img.ID, q), nil))
		}
	}
	t.Fatal("no nginx image")
	return containerJSON{}, containerDetailJSON{}
}

// findings counts d's findings of cve by severity, and how many carry state.
func findings(d containerDetailJSON, cve, state string) (map[string]int, int) {
	bySeverity, decided := map[string]int{}, 0
	for _, v := range d.Vulnerabilities {
		if v.CVEID == cve {
			bySeverity[v.Severity]++
			if v.Triage != nil && v.Triage.State == state {
				decided++
			}
		}
	}
	return bySeverity, decided
}

func TestTriageContainerFindings(t *testing.T) {
	w := newTriageWorld(t)
	scan := scanFixture(t)
	if res := w.acme.do(t, "POST", "/api/agent/container-scan", scan); res.Status != 200 {
		t.Fatalf("scan: %d %s", res.Status, res.Body)
	}
	before, detail := w.nginx(t, false)
	crit, _ := findings(detail, "CVE-2021-3711", "")
	high, _ := findings(detail, "CVE-2022-0778", "")
	if crit["CRITICAL"] == 0 || high["HIGH"] == 0 {
		t.Fatalf("the fixture's nginx lacks its openssl findings: %+v", detail.Vulnerabilities)
	}
	runScenarios(t, []scenario{
		{"organization rule", "POST", "/api/triage/rules", ruleBody("CVE-2021-3711", "organization", "false_positive", nil), w.alice, 201, nil},
		{"package rule", "POST", "/api/triage/rules/preview", ruleBody("CVE-2022-0778", "product", "not_affected",
			map[string]any{"product": "product:debian/libssl1.1", "justification": "vulnerable_code_not_in_execute_path"}), w.alice, 200,
			func(t *testing.T, res response) {
				p := decodeBody[previewJSON](t, res)
				if p.Total == 0 || p.Changes[0].ProductID != nil || p.Changes[0].ContainerImageID == nil || *p.Changes[0].ContainerImageID != before.ID {
					t.Errorf("preview %+v, want nginx's libssl1.1", p)
				}
			}},
		{"save it", "POST", "/api/triage/rules", ruleBody("CVE-2022-0778", "product", "not_affected",
			map[string]any{"product": "product:debian/libssl1.1", "justification": "vulnerable_code_not_in_execute_path"}), w.alice, 201, nil},
	})
	check := func(t *testing.T) {
		t.Helper()
		after, detail := w.nginx(t, false)
		if after.VulnerabilityCount.Critical != before.VulnerabilityCount.Critical-crit["CRITICAL"] ||
			after.VulnerabilityCount.High != before.VulnerabilityCount.High-high["HIGH"] {
			t.Errorf("counts %+v, were %+v; want %d critical and %d high fewer", after.VulnerabilityCount, before.VulnerabilityCount,
				crit["CRITICAL"], high["HIGH"])
		}
		if got, _ := findings(detail, "CVE-2021-3711", ""); len(got) != 0 {
			t.Errorf("suppressed findings listed: %v", got)
		}
		full, detail := w.nginx(t, true)
		if full.VulnerabilityCount != before.VulnerabilityCount {
			t.Errorf("counts with include_suppressed %+v, want %+v", full.VulnerabilityCount, before.VulnerabilityCount)
		}
		if got, decided := findings(detail, "CVE-2022-0778", "not_affected"); got["HIGH"] != high["HIGH"] || decided != high["HIGH"] {
			t.Errorf("include_suppressed lists %v with %d decided, want %d high all not_affected", got, decided, high["HIGH"])
		}
	}
	check(t)
	// The same scan again keeps the decisions.
	if res := w.acme.do(t, "POST", "/api/agent/container-scan", scan); res.Status != 200 {
		t.Fatalf("rescan: %d %s", res.Status, res.Body)
	}
	check(t)
	runScenarios(t, []scenario{
		{"bad include_suppressed", "GET", "/api/containers?include_suppressed=maybe", nil, w.alice, 400, wantField("include_suppressed")},
		{"bad include_suppressed on a product", "GET", "/api/products?include_suppressed=maybe", nil, w.alice, 400, wantField("include_suppressed")},
	})
}

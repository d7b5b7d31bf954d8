package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// list fetches GET /api/products?query as c and fails the test unless it is 200.
func list(t *testing.T, c *client, query string) listResponse[productJSON] {
	t.Helper()
	res := c.do(t, "GET", "/api/products?"+query, nil)
	if res.Status != 200 {
		t.Fatalf("GET /api/products?%s: status %d, body %s", query, res.Status, res.Body)
	}
	return decodeBody[listResponse[productJSON]](t, res)
}

// find is the single-get of c's product reported as name at version (nil when none).
func find(t *testing.T, c *client, name, version string) *productDetailJSON {
	t.Helper()
	for _, p := range list(t, c, "per_page=200&search="+url.QueryEscape(name)).Items {
		if p.Name == name && p.Version == version {
			d := decodeBody[productDetailJSON](t, c.do(t, "GET", fmt.Sprintf("/api/products/%d", p.ID), nil))
			return &d
		}
	}
	return nil
}

func vulnIDs(p *productDetailJSON) []string {
	var out []string
	for _, v := range p.Vulnerabilities {
		out = append(out, v.CVEID)
	}
	return out
}

func names(items []productJSON) []string {
	var out []string
	for _, p := range items {
		out = append(out, p.Name)
	}
	return out
}

func (w *invWorld) submitHosts(t *testing.T) {
	t.Helper()
	for _, body := range []map[string]any{inventoryBody("host-a", hostA...), inventoryBody("host-a", hostA[:6]...),
		inventoryBody("host-b", inv("Google LLC", "Google Chrome", "116.0.5845.187"), inv("openssl", "openssl", "1.1.1w"))} {
		if res := w.acme.do(t, "POST", "/api/agent/inventory", body); res.Status != 200 {
			t.Fatalf("inventory: status %d, body %s", res.Status, res.Body)
		}
	}
}

// TestConformanceOverHTTP has the conformance inventory group's expectations on products,
// through the real router, Bleve index and SQLite file.
func TestConformanceOverHTTP(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini, kevMini)
	w.submitHosts(t)
	cases := []struct {
		name, version, cpe, resolution string
		want, notWant                  []string
	}{
		{"openssl", "1.1.1k", "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*", "exact", []string{"CVE-2021-3711", "CVE-2022-0778"}, nil},
		{"Google Chrome", "116.0.5845.96", "cpe:2.3:a:google:chrome:116.0.5845.96:*:*:*:*:*:*:*", "", []string{"CVE-2023-4863"}, nil},
		{"Google Chrome", "116.0.5845.187", "cpe:2.3:a:google:chrome:116.0.5845.187:*:*:*:*:*:*:*", "", nil, []string{"CVE-2023-4863"}},
		{"Notepad++ (64-bit x64)", "8.5.6", `cpe:2.3:a:notepad-plus-plus:notepad\+\+:8.5.6:*:*:*:*:*:*:*`, "", []string{"CVE-2023-40031"}, nil},
		{"Apache Log4j", "2.17.1", "cpe:2.3:a:apache:log4j:2.17.1:*:*:*:*:*:*:*", "", nil, []string{"CVE-2021-44228"}},
		{"7-Zip 21.07 (x64)", "21.07", "cpe:2.3:a:7-zip:7-zip:21.07:*:*:*:*:*:*:*", "", []string{"CVE-2099-10001"}, nil},
		{"Totally Unknown Widget", "1.0", "", "unresolved", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name+" "+c.version, func(t *testing.T) {
			p := find(t, w.alice, c.name, c.version)
			if p == nil {
				t.Fatal("not listed")
			}
			if got := deref(p.CPE); got != c.cpe || (c.resolution != "" && p.Resolution != c.resolution) {
				t.Errorf("cpe %q resolution %q, want %q %q", got, p.Resolution, c.cpe, c.resolution)
			}
			got := vulnIDs(p)
			for _, id := range c.want {
				if !slices.Contains(got, id) {
					t.Errorf("vulnerabilities %v lack %s", got, id)
				}
			}
			for _, id := range c.notWant {
				if slices.Contains(got, id) {
					t.Errorf("vulnerabilities %v include %s", got, id)
				}
			}
			if p.VulnerabilityCount != len(got) {
				t.Errorf("vulnerability_count %d, %d listed", p.VulnerabilityCount, len(got))
			}
		})
	}
	t.Run("detail fields", func(t *testing.T) { checkOpensslDetail(t, find(t, w.alice, "openssl", "1.1.1k")) })
	t.Run("unresolved cpe is null", func(t *testing.T) {
		p := find(t, w.alice, "Totally Unknown Widget", "1.0")
		raw := map[string]json.RawMessage{}
		if err := json.Unmarshal(w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", p.ID), nil).Body, &raw); err != nil {
			t.Fatal(err)
		}
		if string(raw["cpe"]) != "null" || p.VulnerabilityCount != 0 {
			t.Errorf("cpe %s, vulnerability_count %d; want null and 0", raw["cpe"], p.VulnerabilityCount)
		}
	})
	t.Run("removed firefox keeps no live installation", func(t *testing.T) {
		p := find(t, w.alice, "Mozilla Firefox (x64 en-US)", "118.0.1")
		if p == nil || len(p.Assets) != 0 || p.AssetCount != 0 {
			t.Errorf("firefox = %+v, want listed with no assets (history kept)", p)
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func checkOpensslDetail(t *testing.T, p *productDetailJSON) {
	t.Helper()
	if p == nil || len(p.Assets) != 1 || p.Assets[0].Hostname != "host-a" || p.AssetCount != 1 {
		t.Fatalf("openssl 1.1.1k = %+v, want one asset host-a", p)
	}
	i := slices.IndexFunc(p.Vulnerabilities, func(v productVulnJSON) bool { return v.CVEID == "CVE-2021-3711" })
	if i < 0 {
		t.Fatalf("CVE-2021-3711 missing from %v", vulnIDs(p))
	}
	v := p.Vulnerabilities[i]
	if v.Severity != "critical" || v.Score == nil || *v.Score != 9.8 || v.MatchID == 0 || v.Criteria == "" || v.KEV != nil {
		t.Errorf("CVE-2021-3711 = %+v, want severity critical, score 9.8, match id, criteria, not kev", v)
	}
}

func TestFeedImportedWhileServingRematches(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini, kevMini)
	w.submitHosts(t)
	importInto(t, w.inv.Importer, nvdLive)
	if err := w.inv.Service.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := vulnIDs(find(t, w.alice, "openssl", "1.1.1k")); !slices.Contains(got, "CVE-2022-2068") {
		t.Errorf("after the live feed: %v, want CVE-2022-2068", got)
	}
	if got := vulnIDs(find(t, w.alice, "openssl", "1.1.1w")); slices.Contains(got, "CVE-2022-2068") {
		t.Errorf("openssl 1.1.1w (fixed) has CVE-2022-2068: %v", got)
	}
}

func TestOverrideAndReviewOverHTTP(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini)
	widget := func(v string) inventoryItem { return inv("Acme Widgets", "Totally Unknown Widget", v) }
	for _, body := range []map[string]any{inventoryBody("host-a", widget("1.1.1k"), hostA[0]),
		inventoryBody("host-b", widget("1.1.1k"), widget("3.0.1")), inventoryBody("host-c", inv("Rare", "Rare Tool", "1"))} {
		w.acme.do(t, "POST", "/api/agent/inventory", body)
	}
	type review struct {
		Items []reviewItemJSON `json:"items"`
	}
	rv := decodeBody[review](t, w.alice.do(t, "GET", "/api/resolution/review", nil))
	if len(rv.Items) != 2 || rv.Items[0].Name != "Totally Unknown Widget" || rv.Items[0].HostCount != 2 ||
		len(rv.Items[0].ProductIDs) != 2 || rv.Items[1].HostCount != 1 || rv.Items[0].Candidates == nil {
		t.Fatalf("review = %+v, want the widget (2 hosts, 2 products) then Rare Tool (1 host)", rv)
	}
	unresolved := list(t, w.alice, "resolution=unresolved")
	if unresolved.Total != 3 {
		t.Errorf("resolution=unresolved lists %v, want the 3 unresolved products", names(unresolved.Items))
	}
	p := find(t, w.alice, "Totally Unknown Widget", "1.1.1k")
	cpe := "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*"
	res := w.alice.do(t, "PUT", fmt.Sprintf("/api/products/%d", p.ID), map[string]any{"cpe": cpe})
	d := decodeBody[productDetailJSON](t, res)
	if res.Status != 200 || d.Resolution != "override" || deref(d.CPE) != cpe || !slices.Contains(vulnIDs(&d), "CVE-2021-3711") {
		t.Errorf("PUT cpe: %d %s %q %v, want override with CVE-2021-3711", res.Status, d.Resolution, deref(d.CPE), vulnIDs(&d))
	}
	other := find(t, w.alice, "Totally Unknown Widget", "3.0.1")
	if other.Resolution != "override" || deref(other.CPE) != "cpe:2.3:a:openssl:openssl:3.0.1:*:*:*:*:*:*:*" {
		t.Errorf("the other version: %s %q, want the override at its own version", other.Resolution, deref(other.CPE))
	}
	rv = decodeBody[review](t, w.alice.do(t, "GET", "/api/resolution/review", nil))
	if len(rv.Items) != 1 || rv.Items[0].Name != "Rare Tool" {
		t.Errorf("review after the override = %+v, want only Rare Tool", rv)
	}
	runScenarios(t, []scenario{
		{"malformed cpe", "PUT", fmt.Sprintf("/api/products/%d", p.ID), map[string]any{"cpe": "not-a-cpe"}, w.alice, 400, wantField("cpe")},
		{"review needs a session", "GET", "/api/resolution/review", nil, w.acme, 401, nil},
		{"globex's review is empty", "GET", "/api/resolution/review", nil, w.carol, 200, func(t *testing.T, res response) {
			if got := decodeBody[review](t, res); len(got.Items) != 0 {
				t.Errorf("globex review = %+v", got)
			}
		}},
	})
}

func wantNames(want ...string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		got := decodeBody[listResponse[productJSON]](t, res)
		if !slices.Equal(names(got.Items), want) || got.Total != len(want) {
			t.Errorf("items %v (total %d), want %v", names(got.Items), got.Total, want)
		}
	}
}

func TestProductListFilters(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini)
	w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", hostA[0], hostA[3], hostA[4]))
	w.globex.do(t, "POST", "/api/agent/inventory", inventoryBody("host-g", inv("Zeta", "Globex Only", "1")))
	for i, name := range []string{"Internal CRM", "Zeta Tool"} {
		w.alice.do(t, "POST", "/api/products", map[string]any{"name": name, "vendor": "Zeta", "version": "1", "criticality": 4 + i})
	}
	globexID := list(t, w.carol, "").Items[0].ID
	runScenarios(t, []scenario{
		{"default order by name", "GET", "/api/products", nil, w.alice, 200,
			wantNames("Apache Log4j", "Internal CRM", "openssl", "Totally Unknown Widget", "Zeta Tool")},
		{"search", "GET", "/api/products?search=crm", nil, w.alice, 200, wantNames("Internal CRM")},
		{"search is literal", "GET", "/api/products?search=%25", nil, w.alice, 200, wantNames()},
		{"vendor", "GET", "/api/products?vendor=zeta", nil, w.alice, 200, wantNames("Internal CRM", "Zeta Tool")},
		{"criticality", "GET", "/api/products?criticality=5", nil, w.alice, 200, wantNames("Zeta Tool")},
		{"has_vulnerabilities", "GET", "/api/products?has_vulnerabilities=true", nil, w.alice, 200, wantNames("openssl")},
		{"resolution", "GET", "/api/products?resolution=unresolved&sort=name", nil, w.alice, 200,
			wantNames("Internal CRM", "Totally Unknown Widget", "Zeta Tool")},
		{"sort desc", "GET", "/api/products?sort=criticality&order=desc&per_page=2", nil, w.alice, 200, func(t *testing.T, res response) {
			got := decodeBody[listResponse[productJSON]](t, res)
			if !slices.Equal(names(got.Items), []string{"Zeta Tool", "Internal CRM"}) || got.Total != 5 || got.Pages != 3 {
				t.Errorf("%+v, want Zeta Tool, Internal CRM of 5 in 3 pages", got)
			}
		}},
		{"organization_id never widens", "GET", fmt.Sprintf("/api/products?organization_id=%d", list(t, w.carol, "").Items[0].OrganizationID),
			nil, w.alice, 200, func(t *testing.T, res response) {
				if got := decodeBody[listResponse[productJSON]](t, res); got.Total != 5 || slices.Contains(names(got.Items), "Globex Only") {
					t.Errorf("alice with globex's organization_id sees %v", names(got.Items))
				}
			}},
		{"per_page capped", "GET", "/api/products?per_page=1000", nil, w.alice, 200, func(t *testing.T, res response) {
			if got := decodeBody[listResponse[productJSON]](t, res); got.PerPage != 200 {
				t.Errorf("per_page = %d, want 200", got.PerPage)
			}
		}},
		{"default per_page", "GET", "/api/products", nil, w.alice, 200, func(t *testing.T, res response) {
			if got := decodeBody[listResponse[productJSON]](t, res); got.PerPage != 50 || got.Page != 1 {
				t.Errorf("page %d per_page %d, want 1 and 50", got.Page, got.PerPage)
			}
		}},
		{"unknown sort", "GET", "/api/products?sort=password", nil, w.alice, 400, wantField("sort")},
		{"bad order", "GET", "/api/products?order=up", nil, w.alice, 400, wantField("order")},
		{"bad resolution", "GET", "/api/products?resolution=guess", nil, w.alice, 400, wantField("resolution")},
		{"bad criticality", "GET", "/api/products?criticality=9", nil, w.alice, 400, wantField("criticality")},
		{"bad page", "GET", "/api/products?page=0", nil, w.alice, 400, wantField("page")},
		{"globex sees its own", "GET", "/api/products", nil, w.carol, 200, wantNames("Globex Only")},
		{"another organization's product", "GET", fmt.Sprintf("/api/products/%d", globexID), nil, w.alice, 404, wantErrorCode("not_found")},
		{"update another organization's product", "PUT", fmt.Sprintf("/api/products/%d", globexID), map[string]any{"criticality": 5}, w.alice, 404, nil},
		{"delete another organization's product", "DELETE", fmt.Sprintf("/api/products/%d", globexID), nil, w.alice, 404, nil},
		{"agents cannot list", "GET", "/api/products", nil, w.acme, 401, nil},
	})
}

func TestDeleteProductOverHTTP(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini)
	w.submitHosts(t)
	p := find(t, w.alice, "openssl", "1.1.1k")
	path := fmt.Sprintf("/api/products/%d", p.ID)
	runScenarios(t, []scenario{
		{"globex cannot delete", "DELETE", path, nil, w.carol, 404, nil},
		{"delete", "DELETE", path, nil, w.alice, 204, func(t *testing.T, res response) {
			if len(res.Body) != 0 {
				t.Errorf("204 with a body %q", res.Body)
			}
		}},
		{"get after delete", "GET", path, nil, w.alice, 404, wantErrorCode("not_found")},
		{"delete again", "DELETE", path, nil, w.alice, 404, nil},
		{"not listed", "GET", "/api/products?search=openssl", nil, w.alice, 200, wantNames("openssl")}, // 1.1.1w on host-b stays
	})
	ctx := context.Background()
	if vulns, err := w.Store.ProductVulnerabilities(ctx, p.OrganizationID, p.ID); err != nil || len(vulns) != 0 {
		t.Errorf("matches after delete: %v (%v), want none", vulns, err)
	}
	a, err := w.Store.AssetByHostname(ctx, "host-a")
	if err != nil {
		t.Fatal(err)
	}
	live, err := w.Store.LiveInstallations(ctx, a.ID)
	if err != nil || !slices.ContainsFunc(live, func(in appliance.Installation) bool { return in.ProductID == p.ID }) {
		t.Errorf("installations of host-a after delete = %+v (%v), want product %d's history kept", live, err, p.ID)
	}
}

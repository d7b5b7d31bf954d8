package web

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// exposureWorld: acme has host-a (the conformance host), host-b (Ubuntu; Chrome, openssl and
// log4j 2.14.1) and host-e (nothing CVE data knows); globex has host-c. The KEV catalogue is
// imported. bob is an acme member.
type exposureWorld struct {
	*invWorld
	bob *client
}

func newExposureWorld(t *testing.T, opts ...envOption) *exposureWorld {
	t.Helper()
	w := &invWorld{}
	w.build(t, append(opts, withInventory(&w.inv, catalogMini, nvdMini, kevMini))...)
	attachScans(w.testEnv)
	w.createUser(t, "acme", "bob", appliance.RoleMember)
	ew := &exposureWorld{invWorld: w, bob: w.login(t, "bob", testPassword)}
	for _, post := range []struct {
		c    *client
		body map[string]any
	}{
		{w.acme, inventoryBody("host-a", hostA...)},
		{w.acme, map[string]any{"hostname": "host-b", "os": map[string]any{"name": "Ubuntu", "version": "22.04"},
			"products": []inventoryItem{hostA[0], hostA[1], inv("Apache Software Foundation", "Apache Log4j", "2.14.1")}}},
		{w.acme, inventoryBody("host-e", hostA[4])},
		{w.globex, inventoryBody("host-c", hostA...)},
	} {
		if res := post.c.do(t, "POST", "/api/agent/inventory", post.body); res.Status != http.StatusOK {
			t.Fatalf("inventory: %d %s", res.Status, res.Body)
		}
	}
	return ew
}

type assetPage = listResponse[assetJSON]

func wantHosts(want ...string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		var got []string
		for _, a := range decodeBody[assetPage](t, res).Items {
			got = append(got, a.Hostname)
		}
		if !slices.Equal(got, want) {
			t.Errorf("hosts %v, want %v", got, want)
		}
	}
}

func TestAssetsAPI(t *testing.T) {
	w := newExposureWorld(t)
	a, b, c := assetByHostname(t, w.alice, "host-a"), assetByHostname(t, w.alice, "host-b"), assetByHostname(t, w.carol, "host-c")
	if a == nil || b == nil || c == nil {
		t.Fatal("hosts missing")
	}
	if b.OS.Name != "Ubuntu" || b.ProductCount != 3 || b.Findings.Critical == 0 || b.LastInventoryAt == nil {
		t.Errorf("host-b = %+v, want Ubuntu, 3 products, log4j's critical finding, an inventory time", b)
	}
	runScenarios(t, []scenario{
		{"list by hostname", "GET", "/api/assets", nil, w.alice, 200, func(t *testing.T, res response) {
			p := decodeBody[assetPage](t, res)
			if p.Total != 3 || p.Page != 1 || p.PerPage != 50 || p.Pages != 1 {
				t.Errorf("paging %+v, want 3 hosts in one page of 50", p)
			}
			wantHosts("host-a", "host-b", "host-e")(t, res)
		}},
		{"search", "GET", "/api/assets?search=ST-B", nil, w.alice, 200, wantHosts("host-b")},
		{"os", "GET", "/api/assets?os=ubuntu", nil, w.alice, 200, wantHosts("host-b")},
		{"without vulnerabilities", "GET", "/api/assets?has_vulnerabilities=false", nil, w.alice, 200, wantHosts("host-e")},
		{"with vulnerabilities", "GET", "/api/assets?has_vulnerabilities=true", nil, w.alice, 200, wantHosts("host-a", "host-b")},
		{"by findings, most first", "GET", "/api/assets?sort=findings&order=desc", nil, w.alice, 200, func(t *testing.T, res response) {
			items := decodeBody[assetPage](t, res).Items
			if !slices.IsSortedFunc(items, func(x, y assetJSON) int { return y.Findings.Total - x.Findings.Total }) || items[2].Hostname != "host-e" {
				t.Errorf("not by findings, most first: %+v", items)
			}
		}},
		{"by last seen, latest first", "GET", "/api/assets?sort=last_seen&order=desc", nil, w.alice, 200, wantHosts("host-e", "host-b", "host-a")},
		{"a page", "GET", "/api/assets?per_page=1&page=2", nil, w.alice, 200, func(t *testing.T, res response) {
			if p := decodeBody[assetPage](t, res); p.Total != 3 || p.Pages != 3 || len(p.Items) != 1 || p.Items[0].Hostname != "host-b" {
				t.Errorf("page 2 of 1 = %+v", p)
			}
		}},
		{"bad sort", "GET", "/api/assets?sort=colour", nil, w.alice, 400, wantField("sort")},
		{"unknown parameter", "GET", "/api/assets?hostname=host-a", nil, w.alice, 400, wantField("hostname")},
		{"bad boolean", "GET", "/api/assets?has_vulnerabilities=maybe", nil, w.alice, 400, wantField("has_vulnerabilities")},
		{"another organization's list", "GET", "/api/assets", nil, w.carol, 200, wantHosts("host-c")},
		{"anonymous", "GET", "/api/assets", nil, w.anonymous(), 401, nil},

		{"detail", "GET", fmt.Sprintf("/api/assets/%d?products_per_page=2", b.ID), nil, w.bob, 200, func(t *testing.T, res response) {
			d := decodeBody[assetDetailJSON](t, res)
			p := d.Products
			if d.Hostname != "host-b" || p.Total != 3 || len(p.Items) != 2 || p.Pages != 2 || d.History.Total != 3 || d.Containers.Total != 0 {
				t.Fatalf("detail = %+v", d)
			}
			if first := p.Items[0]; first.Name != "Apache Log4j" || first.Findings.MaxSeverity == nil || *first.Findings.MaxSeverity != "critical" {
				t.Errorf("first product %+v, want log4j 2.14.1 (critical, KEV) first", first)
			}
		}},
		{"detail, second page of products", "GET", fmt.Sprintf("/api/assets/%d?products_per_page=2&products_page=2", b.ID), nil, w.alice, 200,
			func(t *testing.T, res response) {
				if d := decodeBody[assetDetailJSON](t, res); len(d.Products.Items) != 1 || d.Products.Page != 2 {
					t.Errorf("page 2 = %+v", d.Products)
				}
			}},
		{"detail, unknown parameter", "GET", fmt.Sprintf("/api/assets/%d?page=2", b.ID), nil, w.alice, 400, wantField("page")},
		{"another organization's host", "GET", fmt.Sprintf("/api/assets/%d", c.ID), nil, w.alice, 404, wantErrorCode("not_found")},
		{"no such host", "GET", "/api/assets/999999", nil, w.alice, 404, wantErrorCode("not_found")},
		{"members may not delete", "DELETE", fmt.Sprintf("/api/assets/%d", b.ID), nil, w.bob, 403, wantErrorCode("forbidden")},
		{"another organization's host is not deleted", "DELETE", fmt.Sprintf("/api/assets/%d", c.ID), nil, w.alice, 404, wantErrorCode("not_found")},
		{"admin deletes", "DELETE", fmt.Sprintf("/api/assets/%d", b.ID), nil, w.alice, 204, nil},
		{"deleted host is gone", "GET", fmt.Sprintf("/api/assets/%d", b.ID), nil, w.alice, 404, wantErrorCode("not_found")},
		{"globex untouched", "GET", fmt.Sprintf("/api/assets/%d", c.ID), nil, w.carol, 200, nil},
	})
	// The products stay, with their history; log4j 2.14.1 is now on no host.
	log4j := find(t, w.alice, "Apache Log4j", "2.14.1")
	if log4j == nil || len(log4j.Assets) != 0 || len(log4j.Vulnerabilities) == 0 {
		t.Errorf("log4j 2.14.1 after its host was deleted = %+v, want kept, matched, on no host", log4j)
	}
}

type vulnPage = listResponse[vulnerabilityJSON]

func TestVulnerabilitiesAPI(t *testing.T) {
	w := newExposureWorld(t)
	ids := func(res response, t *testing.T) []string {
		var out []string
		for _, v := range decodeBody[vulnPage](t, res).Items {
			out = append(out, v.CVEID)
		}
		return out
	}
	var chrome vulnerabilityJSON
	runScenarios(t, []scenario{
		{"one row per CVE, worst first", "GET", "/api/vulnerabilities", nil, w.alice, 200, func(t *testing.T, res response) {
			p := decodeBody[vulnPage](t, res)
			seen := map[string]bool{}
			for _, v := range p.Items {
				if seen[v.CVEID] {
					t.Errorf("%s listed twice", v.CVEID)
				}
				seen[v.CVEID] = true
				if v.CVEID == "CVE-2023-4863" {
					chrome = v
				}
			}
			if p.Total != len(p.Items) || !seen["CVE-2021-44228"] || p.Items[0].Severity != "critical" {
				t.Errorf("list = %+v, want log4j's CVE and critical first", p)
			}
			if chrome.HostCount != 2 || chrome.ProductCount != 1 || !chrome.KEV || chrome.KEVDueDate == nil || chrome.Score == nil {
				t.Errorf("CVE-2023-4863 = %+v, want Chrome on 2 hosts, KEV with a due date, a score", chrome)
			}
		}},
		{"kev", "GET", "/api/vulnerabilities?kev=true&sort=cve_id", nil, w.alice, 200, func(t *testing.T, res response) {
			if got := ids(res, t); !slices.Equal(got, []string{"CVE-2021-44228", "CVE-2023-4863"}) {
				t.Errorf("kev = %v", got)
			}
		}},
		{"severity", "GET", "/api/vulnerabilities?severity=critical", nil, w.alice, 200, func(t *testing.T, res response) {
			for _, v := range decodeBody[vulnPage](t, res).Items {
				if v.Severity != "critical" {
					t.Errorf("%s is %s", v.CVEID, v.Severity)
				}
			}
		}},
		{"search by id", "GET", "/api/vulnerabilities?search=cve-2023-4863", nil, w.alice, 200, func(t *testing.T, res response) {
			if got := ids(res, t); !slices.Equal(got, []string{"CVE-2023-4863"}) {
				t.Errorf("search = %v", got)
			}
		}},
		{"search by text", "GET", "/api/vulnerabilities?search=log4j", nil, w.alice, 200, func(t *testing.T, res response) {
			if got := ids(res, t); !slices.Contains(got, "CVE-2021-44228") {
				t.Errorf("search log4j = %v", got)
			}
		}},
		{"fix available is a filter", "GET", "/api/vulnerabilities?fix_available=false&per_page=1", nil, w.alice, 200, nil},
		{"sort by cve id", "GET", "/api/vulnerabilities?sort=cve_id&order=asc", nil, w.alice, 200, func(t *testing.T, res response) {
			if got := ids(res, t); !slices.IsSorted(got) {
				t.Errorf("not sorted: %v", got)
			}
		}},
		{"bad severity", "GET", "/api/vulnerabilities?severity=dire", nil, w.alice, 400, wantField("severity")},
		{"bad sort", "GET", "/api/vulnerabilities?sort=colour", nil, w.alice, 400, wantField("sort")},
		{"unknown parameter", "GET", "/api/vulnerabilities?product=chrome", nil, w.alice, 400, wantField("product")},
		{"another organization sees its own", "GET", "/api/vulnerabilities?search=CVE-2021-44228", nil, w.carol, 200, func(t *testing.T, res response) {
			if got := ids(res, t); len(got) != 0 {
				t.Errorf("globex has no log4j 2.14.1 but lists %v", got)
			}
		}},

		{"detail, hosts paged", "GET", "/api/vulnerabilities/cve-2023-4863?hosts_per_page=1&hosts_page=2", nil, w.bob, 200, func(t *testing.T, res response) {
			d := decodeBody[vulnerabilityDetailJSON](t, res)
			if d.CVEID != "CVE-2023-4863" || !d.Known || d.Description == "" || d.KEVDueDate == nil || d.KEVAdded == nil ||
				d.Products.Total != 1 || d.Products.Items[0].Name != "Google Chrome" || d.Products.Items[0].MatchID == 0 {
				t.Fatalf("detail = %+v", d)
			}
			if d.Hosts.Total != 2 || d.Hosts.Pages != 2 || len(d.Hosts.Items) != 1 || d.Hosts.Items[0].Hostname != "host-b" {
				t.Errorf("hosts page 2 of 1 = %+v", d.Hosts)
			}
		}},
		{"detail in another organization", "GET", "/api/vulnerabilities/CVE-2021-44228", nil, w.carol, 200, func(t *testing.T, res response) {
			if d := decodeBody[vulnerabilityDetailJSON](t, res); d.Products.Total != 0 || d.Hosts.Total != 0 || d.ProductCount != 0 {
				t.Errorf("globex's view of log4j's CVE = %+v, want known but not affecting it", d)
			}
		}},
		{"unknown CVE", "GET", "/api/vulnerabilities/CVE-2099-99999", nil, w.alice, 404, wantErrorCode("not_found")},
		{"not a CVE id", "GET", "/api/vulnerabilities/openssl", nil, w.alice, 400, wantField("cve_id")},
		{"detail, unknown parameter", "GET", "/api/vulnerabilities/CVE-2023-4863?page=1", nil, w.alice, 400, wantField("page")},
	})
}

func TestDashboardAPI(t *testing.T) {
	clk := &fakeClock{t: time.Now()}
	w := newExposureWorld(t, withClock(clk))
	log4j := productID(t, w.alice, "Apache Log4j", "2.14.1")
	if res := w.alice.do(t, "POST", "/api/remediation/assignments", map[string]any{"product_id": log4j, "cve_id": "CVE-2021-44228", "assigned_to": "bob",
		"due_date": "2020-01-01"}); res.Status != http.StatusCreated {
		t.Fatalf("create assignment: %d %s", res.Status, res.Body)
	}
	d := decodeBody[dashboardJSON](t, w.bob.do(t, "GET", "/api/dashboard", nil))
	if d.Hosts.Total != 3 || d.Hosts.Reporting != 3 || d.Hosts.Silent != 0 || d.Hosts.SilentAfterSeconds != 2*86400 {
		t.Errorf("hosts = %+v, want 3 reporting, silent after two daily scan intervals", d.Hosts)
	}
	if d.Findings.Total == 0 || d.Findings.Critical == 0 || d.KEVFindings != d.Findings.KEV || d.KEVFindings < 3 {
		t.Errorf("findings = %+v, KEV %d; want log4j's and Chrome's KEV findings on host-a and host-b", d.Findings, d.KEVFindings)
	}
	if d.OverdueAssignments != 1 || d.UnresolvedNames != 1 {
		t.Errorf("overdue %d, unresolved names %d; want 1 and 1 (the widget)", d.OverdueAssignments, d.UnresolvedNames)
	}
	if d.CVEData.NewestModified == nil || d.CVEData.AgeSeconds == nil || d.CVEData.LastImported == nil {
		t.Errorf("CVE data = %+v, want its age", d.CVEData)
	}
	if len(d.RiskiestHosts) != 2 || d.RiskiestHosts[0].Hostname != "host-b" {
		t.Errorf("riskiest hosts %+v, want host-b (KEV log4j and Chrome) first, host-e (no findings) absent", d.RiskiestHosts)
	}
	if len(d.RiskiestProducts) == 0 || len(d.RiskiestProducts) > 10 || d.RiskiestProducts[0].Findings.KEV == 0 {
		t.Errorf("riskiest products %+v, want a KEV product first", d.RiskiestProducts)
	}
	for _, p := range d.RiskiestProducts {
		if p.Findings.Total == 0 || p.AssetCount == 0 {
			t.Errorf("riskiest product %s %s has no findings or no host", p.Name, p.Version)
		}
	}
	if other := decodeBody[dashboardJSON](t, w.carol.do(t, "GET", "/api/dashboard", nil)); other.Hosts.Total != 1 || other.OverdueAssignments != 0 {
		t.Errorf("globex dashboard = %+v, want its one host and no assignment", other.Hosts)
	}

	// Two scan intervals later without a word from host-a and host-e, they are silent.
	clk.Advance(2*24*time.Hour + time.Minute)
	d = decodeBody[dashboardJSON](t, w.bob.do(t, "GET", "/api/dashboard", nil))
	if d.Hosts.Reporting != 0 || d.Hosts.Silent != 3 {
		t.Errorf("after two intervals: %+v, want all 3 silent", d.Hosts)
	}
	if res := w.alice.do(t, "GET", "/api/dashboard?org=2", nil); res.Status != 400 {
		t.Errorf("unknown parameter: %d", res.Status)
	}
}

func TestProductSortsAndHostPages(t *testing.T) {
	w := newExposureWorld(t)
	for i := range 5 {
		w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody(fmt.Sprintf("extra-%d", i), hostA[1]))
	}
	severityRank := map[string]int{"": 0, "unknown": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
	rows := func(t *testing.T, query string) []productRowJSON {
		res := w.alice.do(t, "GET", "/api/products?per_page=200&"+query, nil)
		if res.Status != 200 {
			t.Fatalf("%s: %d %s", query, res.Status, res.Body)
		}
		return decodeBody[listResponse[productRowJSON]](t, res).Items
	}
	sev := func(p productRowJSON) int {
		if p.Findings.MaxSeverity == nil {
			return 0
		}
		return severityRank[*p.Findings.MaxSeverity]
	}
	for _, c := range []struct {
		sort string
		key  func(productRowJSON) int
	}{
		{"vulnerability_count", func(p productRowJSON) int { return p.VulnerabilityCount }},
		{"max_severity", sev},
		{"kev", func(p productRowJSON) int { return p.Findings.KEV }},
	} {
		items := rows(t, "sort="+c.sort+"&order=desc")
		if len(items) < 5 || c.key(items[0]) == 0 || !slices.IsSortedFunc(items, func(a, b productRowJSON) int { return c.key(b) - c.key(a) }) {
			t.Errorf("sort=%s&order=desc is not worst first: %v", c.sort, items)
		}
	}
	if res := w.alice.do(t, "GET", "/api/products?sort=worst", nil); res.Status != 400 || !strings.Contains(string(res.Body), "max_severity") {
		t.Errorf("bad sort: %d %s", res.Status, res.Body)
	}
	chrome := productID(t, w.alice, "Google Chrome", "116.0.5845.96")
	var seen []string
	for page := 1; page <= 4; page++ {
		res := w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d?hosts_per_page=3&hosts_page=%d", chrome, page), nil)
		d := decodeBody[productDetailJSON](t, res)
		if res.Status != 200 || d.AssetsPaging != (pagingJSON{Total: 7, Page: page, PerPage: 3, Pages: 3}) || d.AssetCount != 7 {
			t.Fatalf("page %d: %d, paging %+v, asset_count %d", page, res.Status, d.AssetsPaging, d.AssetCount)
		}
		for _, a := range d.Assets {
			seen = append(seen, a.Hostname)
		}
	}
	if len(seen) != 7 || !slices.IsSorted(seen) {
		t.Errorf("Chrome's hosts over the pages: %v, want 7 by hostname", seen)
	}
	if d := decodeBody[productDetailJSON](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", chrome), nil)); d.AssetsPaging.PerPage != 100 || len(d.Assets) != 7 {
		t.Errorf("default host page: %+v", d.AssetsPaging)
	}
	runScenarios(t, []scenario{
		{"detail, unknown parameter", "GET", fmt.Sprintf("/api/products/%d?page=2", chrome), nil, w.alice, 400, wantField("page")},
		{"detail, bad page", "GET", fmt.Sprintf("/api/products/%d?hosts_page=0", chrome), nil, w.alice, 400, wantField("hosts_page")},
	})
}

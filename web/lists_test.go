package web

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// A list route refuses a query parameter it does not read, naming it, instead of answering
// an unfiltered list.
func TestListsRefuseUnknownQueryParameters(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini)
	w.submitHosts(t)
	runScenarios(t, []scenario{
		{"products ?hostname=", "GET", "/api/products?hostname=host-a", nil, w.alice, 400, wantField("hostname")},
		{"products, one unknown among known", "GET", "/api/products?per_page=5&sort=name&colour=red", nil, w.alice, 400, wantField("colour")},
		{"containers ?vendor=", "GET", "/api/containers?vendor=acme", nil, w.alice, 400, wantField("vendor")},
		{"review ?search=", "GET", "/api/resolution/review?search=widget", nil, w.alice, 400, wantField("search")},
		{"assignments ?hostname=", "GET", "/api/remediation/assignments?hostname=host-a", nil, w.alice, 400, wantField("hostname")},
		{"every documented products parameter", "GET", "/api/products?page=1&per_page=5&search=o&vendor=openssl&criticality=4" +
			"&has_vulnerabilities=true&installed=true&resolution=exact&organization_id=1&sort=name&order=asc", nil, w.alice, 200, wantNames("openssl")},
		{"review paging parameters", "GET", "/api/resolution/review?page=1&per_page=10", nil, w.alice, 200, nil},
	})
}

type reviewPageJSON = listResponse[reviewItemJSON]

// The review queue pages like every list, with a total that does not depend on the page.
func TestReviewQueuePages(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini)
	w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", inv("Acme", "Unknown One", "1"), inv("Acme", "Unknown Two", "1")))
	w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-b", inv("Acme", "Unknown One", "1"), inv("Acme", "Unknown Three", "1")))
	var seen []string
	for page := 1; page <= 4; page++ {
		res := w.alice.do(t, "GET", fmt.Sprintf("/api/resolution/review?per_page=1&page=%d", page), nil)
		got := decodeBody[reviewPageJSON](t, res)
		if res.Status != http.StatusOK || got.Total != 3 || got.Pages != 3 || got.Page != page || got.PerPage != 1 {
			t.Fatalf("page %d: status %d, %+v; want total 3 in 3 pages", page, res.Status, got)
		}
		for _, it := range got.Items {
			seen = append(seen, it.Name)
		}
		if want := min(1, 4-page); len(got.Items) != want {
			t.Errorf("page %d has %d items, want %d", page, len(got.Items), want)
		}
	}
	if !slices.Equal(seen, []string{"Unknown One", "Unknown Three", "Unknown Two"}) {
		t.Errorf("pages list %v, want the pair on two hosts first, then the others by name", seen)
	}
	if got := decodeBody[reviewPageJSON](t, w.alice.do(t, "GET", "/api/resolution/review", nil)); got.PerPage != 100 || got.Total != 3 {
		t.Errorf("default page: %+v, want per_page 100 and total 3", got)
	}
}

// A product every host uninstalled is history: readable by id and listed with
// installed=false, but not exposure (has_vulnerabilities=true leaves it out by default).
func TestUninstalledProductsAreHistory(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini)
	w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", hostA[0], hostA[1]))
	w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", hostA[1])) // openssl 1.1.1k uninstalled
	gone := find(t, w.alice, "openssl", "1.1.1k")
	if gone == nil || len(gone.Vulnerabilities) == 0 || len(gone.Assets) != 0 {
		t.Fatalf("uninstalled openssl = %+v, want readable, matched, on no host", gone)
	}
	w.alice.do(t, "POST", "/api/products", map[string]any{"name": "Internal CRM", "vendor": "Zeta", "version": "1"})
	runScenarios(t, []scenario{
		{"has_vulnerabilities counts installed products", "GET", "/api/products?has_vulnerabilities=true", nil, w.alice, 200,
			wantNames("Google Chrome")},
		{"history with vulnerabilities", "GET", "/api/products?has_vulnerabilities=true&installed=false", nil, w.alice, 200,
			wantNames("openssl")},
		{"any installation state", "GET", "/api/products?has_vulnerabilities=true&installed=any", nil, w.alice, 200,
			wantNames("Google Chrome", "openssl")},
		{"installed=false lists what no host has now", "GET", "/api/products?installed=false", nil, w.alice, 200,
			wantNames("Internal CRM", "openssl")},
		{"installed=true", "GET", "/api/products?installed=true", nil, w.alice, 200, wantNames("Google Chrome")},
		{"plain list keeps everything", "GET", "/api/products", nil, w.alice, 200, wantNames("Google Chrome", "Internal CRM", "openssl")},
		{"bad installed", "GET", "/api/products?installed=maybe", nil, w.alice, 400, wantField("installed")},
	})
}

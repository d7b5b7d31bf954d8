package web

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// wantProduct is a scenario check on the product detail a PATCH or GET answers.
func wantProduct(resolution string, cpe string, hasCVE string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		d := decodeBody[productDetailJSON](t, res)
		if d.Resolution != resolution || deref(d.CPE) != cpe {
			t.Errorf("resolution %q cpe %q, want %q %q", d.Resolution, deref(d.CPE), resolution, cpe)
		}
		if ids := vulnIDs(&d); (hasCVE == "" && len(ids) != 0) || (hasCVE != "" && !slices.Contains(ids, hasCVE)) {
			t.Errorf("findings %v, want %q (none when empty)", ids, hasCVE)
		}
	}
}

// wantReview checks the names the review queue lists, in order.
func wantReview(want ...string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		var got []string
		for _, it := range decodeBody[listResponse[reviewItemJSON]](t, res).Items {
			got = append(got, it.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("review queue %v, want %v", got, want)
		}
	}
}

// TestNotTrackedOverHTTP marks reported names "not a product we track" through
// PATCH /api/products/{id}: every version, present and reported later, leaves the review
// queue, loses its findings and shows resolution not_tracked; members are refused, cpe
// with not_tracked is refused, the decision is never a KB contribution, and not_tracked
// false, an empty cpe or a confirmed cpe undo it.
func TestNotTrackedOverHTTP(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini)
	w.createUser(t, "acme", "bob", appliance.RoleMember)
	bob := w.login(t, "bob", testPassword)
	widget := func(v string) inventoryItem { return inv("Acme Widgets", "Totally Unknown Widget", v) }
	for _, body := range []map[string]any{inventoryBody("host-a", widget("1.1.1k"), hostA[0]),
		inventoryBody("host-b", widget("1.1.1k"), widget("3.0.1")), inventoryBody("host-c", inv("Rare", "Rare Tool", "1"))} {
		if res := w.acme.do(t, "POST", "/api/agent/inventory", body); res.Status != 200 {
			t.Fatalf("inventory: %d %s", res.Status, res.Body)
		}
	}
	wid, wid3, ossl := find(t, w.alice, "Totally Unknown Widget", "1.1.1k"), find(t, w.alice, "Totally Unknown Widget", "3.0.1"),
		find(t, w.alice, "openssl", "1.1.1k")
	path := func(p *productDetailJSON) string { return fmt.Sprintf("/api/products/%d", p.ID) }
	notTracked := map[string]any{"not_tracked": true}
	const osslCPE, widgetCPE = "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*", "cpe:2.3:a:openssl:openssl:3.0.1:*:*:*:*:*:*:*"
	pending := func(t *testing.T, want int) {
		t.Helper()
		got, err := w.Store.PendingOverrides(context.Background(), 500)
		if err != nil || len(got) != want {
			t.Errorf("KB contributions pending: %+v (%v), want %d", got, err, want)
		}
	}
	runScenarios(t, []scenario{
		{"a member may not mark a name", "PATCH", path(wid), notTracked, bob, 403, nil},
		{"nor track it again", "PATCH", path(wid), map[string]any{"not_tracked": false}, bob, 403, nil},
		{"the member changed nothing", "GET", "/api/resolution/review", nil, bob, 200, wantReview("Totally Unknown Widget", "Rare Tool")},
		{"cpe and not_tracked together", "PATCH", path(wid), map[string]any{"not_tracked": true, "cpe": osslCPE}, w.alice, 400, wantField("not_tracked")},
		{"not_tracked is a boolean", "PATCH", path(wid), map[string]any{"not_tracked": "yes"}, w.alice, 400, nil},
		{"another organization's product", "PATCH", path(wid), notTracked, w.carol, 404, nil},
		{"nothing changed yet", "GET", path(wid), nil, w.alice, 200, wantProduct("unresolved", "", "")},

		{"an admin marks the widget", "PATCH", path(wid), notTracked, w.alice, 200, wantProduct("not_tracked", "", "")},
		{"every version of it", "GET", path(wid3), nil, w.alice, 200, wantProduct("not_tracked", "", "")},
		{"it left the review queue", "GET", "/api/resolution/review", nil, w.alice, 200, wantReview("Rare Tool")},
		{"the list filters on it", "GET", "/api/products?resolution=not_tracked", nil, w.alice, 200,
			wantNames("Totally Unknown Widget", "Totally Unknown Widget")},
		{"a matched product loses its findings", "PUT", path(ossl), notTracked, w.alice, 200, wantProduct("not_tracked", "", "")},
	})
	pending(t, 0)

	// A version first reported after the decision is not tracked either.
	if res := w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-d", widget("9.9"), inv("openssl", "openssl", "1.1.1w"))); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	later, laterSSL := find(t, w.alice, "Totally Unknown Widget", "9.9"), find(t, w.alice, "openssl", "1.1.1w")
	if later.Resolution != "not_tracked" || laterSSL.Resolution != "not_tracked" || len(laterSSL.Vulnerabilities) != 0 {
		t.Errorf("versions reported later: %s, %s with %v; want not_tracked without findings", later.Resolution, laterSSL.Resolution, vulnIDs(laterSSL))
	}

	runScenarios(t, []scenario{
		{"still out of the queue", "GET", "/api/resolution/review", nil, w.alice, 200, wantReview("Rare Tool")},
		{"not_tracked false resolves again", "PATCH", path(ossl), map[string]any{"not_tracked": false}, w.alice, 200, wantProduct("exact", osslCPE, "CVE-2021-3711")},
		{"every version", "GET", path(laterSSL), nil, w.alice, 200, wantProduct("exact", "cpe:2.3:a:openssl:openssl:1.1.1w:*:*:*:*:*:*:*", "")},
		{"an empty cpe tracks the widget again", "PATCH", path(wid3), map[string]any{"cpe": ""}, w.alice, 200, wantProduct("unresolved", "", "")},
		{"back in the queue", "GET", "/api/resolution/review", nil, w.alice, 200, wantReview("Totally Unknown Widget", "Rare Tool")},
		{"marked once more", "PATCH", path(wid), notTracked, w.alice, 200, wantProduct("not_tracked", "", "")},
		{"a confirmed cpe replaces the decision", "PATCH", path(wid3), map[string]any{"cpe": widgetCPE}, w.alice, 200, wantProduct("override", widgetCPE, "CVE-2022-0778")},
		{"for every version", "GET", path(later), nil, w.alice, 200, wantProduct("override", "cpe:2.3:a:openssl:openssl:9.9:*:*:*:*:*:*:*", "")},
		{"nothing is not tracked now", "GET", "/api/products?resolution=not_tracked", nil, w.alice, 200, wantNames()},
	})
	pending(t, 1) // the confirmed identity is a contribution; the decisions before it never were
}

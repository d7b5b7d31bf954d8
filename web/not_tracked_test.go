package web

import (
	"context"
	"fmt"
	"os"
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
		inventoryBody("host-b", widget("1.1.1k"), widget("3.0.1"), inv("Acme Widgets, Inc.", "Totally Unknown Widget 2.5", "2.5")), inventoryBody("host-c", inv("Rare", "Rare Tool", "1"))} {
		if res := w.acme.do(t, "POST", "/api/agent/inventory", body); res.Status != 200 {
			t.Fatalf("inventory: %d %s", res.Status, res.Body)
		}
	}
	wid, wid3, ossl := find(t, w.alice, "Totally Unknown Widget", "1.1.1k"), find(t, w.alice, "Totally Unknown Widget", "3.0.1"),
		find(t, w.alice, "openssl", "1.1.1k")
	spelt := find(t, w.alice, "Totally Unknown Widget 2.5", "2.5")
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
		{"the member changed nothing", "GET", "/api/resolution/review", nil, bob, 200, wantReview("Totally Unknown Widget", "Rare Tool", "Totally Unknown Widget 2.5")},
		{"cpe and not_tracked together", "PATCH", path(wid), map[string]any{"not_tracked": true, "cpe": osslCPE}, w.alice, 400, wantField("not_tracked")},
		{"not_tracked is a boolean", "PATCH", path(wid), map[string]any{"not_tracked": "yes"}, w.alice, 400, nil},
		{"another organization's product", "PATCH", path(wid), notTracked, w.carol, 404, nil},
		{"nothing changed yet", "GET", path(wid), nil, w.alice, 200, wantProduct("unresolved", "", "")},

		{"an admin marks the widget", "PATCH", path(wid), notTracked, w.alice, 200, wantProduct("not_tracked", "", "")},
		{"every version of it", "GET", path(wid3), nil, w.alice, 200, wantProduct("not_tracked", "", "")},
		{"and every spelling of the normalized pair", "GET", path(spelt), nil, w.alice, 200, wantProduct("not_tracked", "", "")},
		{"it left the review queue", "GET", "/api/resolution/review", nil, w.alice, 200, wantReview("Rare Tool")},
		{"the list filters on it", "GET", "/api/products?resolution=not_tracked", nil, w.alice, 200,
			wantNames("Totally Unknown Widget", "Totally Unknown Widget", "Totally Unknown Widget 2.5")},
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
		{"back in the queue, every spelling", "GET", "/api/resolution/review", nil, w.alice, 200, wantReview("Totally Unknown Widget", "Rare Tool", "Totally Unknown Widget 2.5")},
		{"marked once more", "PATCH", path(wid), notTracked, w.alice, 200, wantProduct("not_tracked", "", "")},
		{"a confirmed cpe replaces the decision", "PATCH", path(wid3), map[string]any{"cpe": widgetCPE}, w.alice, 200, wantProduct("override", widgetCPE, "CVE-2022-0778")},
		{"for every version", "GET", path(later), nil, w.alice, 200, wantProduct("override", "cpe:2.3:a:openssl:openssl:9.9:*:*:*:*:*:*:*", "")},
		{"and the other spelling it no longer ignores", "GET", path(spelt), nil, w.alice, 200, wantProduct("override", "cpe:2.3:a:openssl:openssl:2.5:*:*:*:*:*:*:*", "")},
		{"nothing is not tracked now", "GET", "/api/products?resolution=not_tracked", nil, w.alice, 200, wantNames()},
	})
	pending(t, 1) // the confirmed identity is a contribution; the decisions before it never were

	runScenarios(t, []scenario{
		{"marked after a confirmation", "PATCH", path(later), notTracked, w.alice, 200, wantProduct("not_tracked", "", "")},
		{"tracked again under a new name", "PATCH", path(later), map[string]any{"not_tracked": false, "vendor": "openssl", "name": "openssl"}, w.alice, 200,
			wantProduct("exact", "cpe:2.3:a:openssl:openssl:9.9:*:*:*:*:*:*:*", "")},
		{"the others resolved afresh", "GET", path(wid), nil, w.alice, 200, wantProduct("unresolved", "", "")},
	})
	pending(t, 0) // the decision replaced the confirmed identity, and is gone now
}

// TestNotTrackedDistributionPackage marks a package of a release the imported advisories
// cover "not tracked": its advisory findings go, and the same package at another version,
// reported later by another host, is not tracked either.
func TestNotTrackedDistributionPackage(t *testing.T) {
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini))
	ctx := context.Background()
	if _, err := w.inv.Importer.ImportOSVDir(ctx, advData+"/ubuntu-osv", os.DirFS(advData+"/ubuntu-osv")); err != nil {
		t.Fatal(err)
	}
	if err := w.inv.Service.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	postHost(t, w, jammy)
	_, products := hostFindings(t, w, jammy.release)
	i := slices.IndexFunc(products, func(p productJSON) bool { return p.VulnerabilityCount > 0 })
	if i < 0 {
		t.Fatal("no jammy package has findings")
	}
	pkg := products[i]
	runScenarios(t, []scenario{
		{"mark the package", "PATCH", fmt.Sprintf("/api/products/%d", pkg.ID), map[string]any{"not_tracked": true}, w.alice, 200, wantProduct("not_tracked", "", "")},
	})
	var item inventoryItem
	for _, it := range jammy.items(t, jammy.file) {
		if it.Product == pkg.Name && it.Version == pkg.Version {
			item = it
		}
	}
	item.Version += "+rebuild1"
	body := map[string]any{"hostname": "jammy-2", "os": jammy.os, "products": []inventoryItem{item}}
	if res := w.acme.do(t, "POST", "/api/agent/inventory", mustJSON(t, body)); res.Status != 200 {
		t.Fatalf("inventory: %d %.300s", res.Status, res.Body)
	}
	later := find(t, w.alice, item.Product, item.Version)
	if later == nil || later.Resolution != "not_tracked" || len(later.Vulnerabilities) != 0 {
		t.Fatalf("%s %s reported later: %+v, want not_tracked without findings", item.Product, item.Version, later)
	}
}

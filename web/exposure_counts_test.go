package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
)

// assetByHostname is c's host named hostname, from the host list (nil when none).
func assetByHostname(t testing.TB, c *client, hostname string) *assetJSON {
	t.Helper()
	res := c.do(t, "GET", "/api/assets?per_page=200&search="+url.QueryEscape(hostname), nil)
	if res.Status != http.StatusOK {
		t.Fatalf("list hosts: status %d, body %s", res.Status, res.Body)
	}
	for _, a := range decodeBody[listResponse[assetJSON]](t, res).Items {
		if a.Hostname == hostname {
			return &a
		}
	}
	return nil
}

// productID is c's product reported as name at version; the test fails without one.
func productID(t testing.TB, c *client, name, version string) int64 {
	t.Helper()
	res := c.do(t, "GET", "/api/products?installed=any&per_page=200&search="+url.QueryEscape(name), nil)
	for _, p := range decodeBody[listResponse[productJSON]](t, res).Items {
		if p.Name == name && p.Version == version {
			return p.ID
		}
	}
	t.Fatalf("no product %s %s", name, version)
	return 0
}

// checkCountsAgree fails when a kept counter differs from the same counter recomputed from
// installations and matches, or when the API's figures disagree with each other: every
// host's findings are the sum of its products', and the dashboard's the sum of the hosts'.
func checkCountsAgree(t *testing.T, w *invWorld, c *client) {
	t.Helper()
	drift, err := w.Store.CountDrift(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drift {
		t.Errorf("kept count differs from recomputed: %s", d)
	}
	hosts := decodeBody[listResponse[assetJSON]](t, c.do(t, "GET", "/api/assets?per_page=200", nil))
	var sum findingCountsJSON
	for _, h := range hosts.Items {
		d := decodeBody[assetDetailJSON](t, c.do(t, "GET", fmt.Sprintf("/api/assets/%d?products_per_page=500", h.ID), nil))
		var fromProducts findingCountsJSON
		for _, p := range d.Products.Items {
			fromProducts.Total += p.Findings.Total
			fromProducts.Critical += p.Findings.Critical
			fromProducts.KEV += p.Findings.KEV
			if n := len(decodeBody[productDetailJSON](t, c.do(t, "GET", fmt.Sprintf("/api/products/%d", p.ID), nil)).Vulnerabilities); n != p.Findings.Total {
				t.Errorf("%s: product %s %s shows %d findings, its detail %d CVEs", h.Hostname, p.Name, p.Version, p.Findings.Total, n)
			}
		}
		if d.ProductCount != d.Products.Total || fromProducts.Total != h.Findings.Total || fromProducts.Critical != h.Findings.Critical ||
			fromProducts.KEV != h.Findings.KEV {
			t.Errorf("%s: %d products, findings %+v; its product list has %d with %+v", h.Hostname, d.ProductCount, h.Findings,
				d.Products.Total, fromProducts)
		}
		sum.Total, sum.Critical, sum.KEV = sum.Total+h.Findings.Total, sum.Critical+h.Findings.Critical, sum.KEV+h.Findings.KEV
	}
	dash := decodeBody[dashboardJSON](t, c.do(t, "GET", "/api/dashboard", nil))
	if dash.Hosts.Total != hosts.Total || dash.Findings.Total != sum.Total || dash.Findings.Critical != sum.Critical || dash.KEVFindings != sum.KEV {
		t.Errorf("dashboard %d hosts, findings %+v (KEV %d); the hosts' sum is %d hosts, %+v", dash.Hosts.Total, dash.Findings,
			dash.KEVFindings, hosts.Total, sum)
	}
}

// Every write that changes installations, matches or a product's deleted state keeps the
// per-product and per-host counts exact: after each step of the sequence, the stored counts
// equal counts recomputed from scratch (real SQLite file, real feeds, real routes).
func TestExposureCountsStayExact(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini)
	attachScans(w.testEnv)
	ctx := context.Background()
	refresh := func(t *testing.T) {
		if err := w.inv.Service.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name  string
		do    func(t *testing.T)
		check func(t *testing.T) // what the step must have changed, beyond agreement
	}{
		{"first inventories", func(t *testing.T) {
			w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", hostA...))
			w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-b", hostA[0], hostA[1], hostA[5]))
			w.globex.do(t, "POST", "/api/agent/inventory", inventoryBody("host-c", hostA...))
		}, func(t *testing.T) {
			if a := assetByHostname(t, w.alice, "host-a"); a == nil || a.ProductCount != len(hostA) || a.Findings.Total == 0 {
				t.Errorf("host-a = %+v, want %d products with findings", a, len(hostA))
			}
		}},
		{"reconcile: one uninstalled, one installed, one upgraded", func(t *testing.T) {
			w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", hostA[1], hostA[2], hostA[3], hostA[4], hostA[5],
				inv("Apache Software Foundation", "Apache Log4j", "2.14.1"), inv("Mozilla", "Mozilla Firefox (x64 en-US)", "119.0")))
		}, func(t *testing.T) {
			if a := assetByHostname(t, w.alice, "host-a"); a == nil || a.ProductCount != 7 || a.Findings.Critical == 0 {
				t.Errorf("host-a = %+v, want 7 products with log4j 2.14.1's critical finding", a)
			}
		}},
		{"one of two versions of a name uninstalled", func(t *testing.T) {
			w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", hostA[1], hostA[2], hostA[3], hostA[4], hostA[5],
				inv("Mozilla", "Mozilla Firefox (x64 en-US)", "119.0")))
		}, nil},
		{"unchanged inventory again", func(t *testing.T) {
			w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-b", hostA[0], hostA[1], hostA[5]))
		}, nil},
		{"KEV catalogue imported, products re-matched", func(t *testing.T) {
			importInto(t, w.inv.Importer, kevMini)
			refresh(t)
		}, func(t *testing.T) {
			if d := decodeBody[dashboardJSON](t, w.alice.do(t, "GET", "/api/dashboard", nil)); d.KEVFindings == 0 {
				t.Errorf("no KEV findings after importing the KEV catalogue: %+v", d)
			}
		}},
		{"a feed adds a CVE, products re-matched", func(t *testing.T) {
			importInto(t, w.inv.Importer, nvdLive)
			refresh(t)
		}, nil},
		{"identity changed by an admin (override re-matches)", func(t *testing.T) {
			id := productID(t, w.alice, "7-Zip 21.07 (x64)", "21.07")
			if res := w.alice.do(t, "PUT", fmt.Sprintf("/api/products/%d", id), map[string]any{"cpe": "cpe:2.3:a:acme:not_7zip:*:*:*:*:*:*:*:*"}); res.Status != 200 {
				t.Fatalf("PUT cpe: %d %s", res.Status, res.Body)
			}
		}, func(t *testing.T) {
			id := productID(t, w.alice, "7-Zip 21.07 (x64)", "21.07")
			if p := decodeBody[productDetailJSON](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", id), nil)); len(p.Vulnerabilities) != 0 {
				t.Errorf("7-Zip under another identity still has %v", vulnIDs(&p))
			}
		}},
		{"an unresolved name confirmed (to a vulnerable identity)", func(t *testing.T) {
			id := productID(t, w.alice, "Totally Unknown Widget", "1.0")
			if res := w.alice.do(t, "PUT", fmt.Sprintf("/api/products/%d", id), map[string]any{"cpe": "cpe:2.3:a:notepad-plus-plus:notepad\\+\\+:*:*:*:*:*:*:*:*"}); res.Status != 200 {
				t.Fatalf("PUT cpe: %d %s", res.Status, res.Body)
			}
		}, nil},
		{"product renamed", func(t *testing.T) {
			id := productID(t, w.alice, "Mozilla Firefox (x64 en-US)", "119.0")
			if res := w.alice.do(t, "PUT", fmt.Sprintf("/api/products/%d", id), map[string]any{"name": "Firefox ESR"}); res.Status != 200 {
				t.Fatalf("PUT name: %d %s", res.Status, res.Body)
			}
		}, nil},
		{"product deleted", func(t *testing.T) {
			id := productID(t, w.alice, "Google Chrome", "116.0.5845.96")
			if res := w.alice.do(t, "DELETE", fmt.Sprintf("/api/products/%d", id), nil); res.Status != http.StatusNoContent {
				t.Fatalf("DELETE product: %d %s", res.Status, res.Body)
			}
		}, func(t *testing.T) {
			if a := assetByHostname(t, w.alice, "host-b"); a == nil || a.ProductCount != 2 {
				t.Errorf("host-b = %+v, want 2 products once Chrome is deleted", a)
			}
		}},
		{"the deleted product reported again comes back", func(t *testing.T) {
			w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-b", hostA[0], hostA[1], hostA[5]))
		}, func(t *testing.T) {
			if a := assetByHostname(t, w.alice, "host-b"); a == nil || a.ProductCount != 3 {
				t.Errorf("host-b = %+v, want Chrome back (3 products)", a)
			}
		}},
		{"container scan and heartbeat of a new host", func(t *testing.T) {
			w.acme.do(t, "POST", "/api/agent/container-scan", scanFixture(t))
			w.acme.do(t, "POST", "/api/agent/heartbeat", map[string]any{"hostname": "host-d", "agent_version": "1.0.0"})
		}, func(t *testing.T) {
			if a := assetByHostname(t, w.alice, "host-d"); a == nil || a.ProductCount != 0 || a.Findings.Total != 0 {
				t.Errorf("host-d = %+v, want a host without products", a)
			}
		}},
		{"a host emptied", func(t *testing.T) {
			w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-d"))
			w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-b", hostA[0]))
		}, nil},
		{"host deleted", func(t *testing.T) {
			a := assetByHostname(t, w.alice, "host-b")
			if res := w.alice.do(t, "DELETE", fmt.Sprintf("/api/assets/%d", a.ID), nil); res.Status != http.StatusNoContent {
				t.Fatalf("DELETE asset: %d %s", res.Status, res.Body)
			}
		}, func(t *testing.T) {
			if a := assetByHostname(t, w.alice, "host-b"); a != nil {
				t.Errorf("host-b still listed: %+v", a)
			}
		}},
		{"a deleted host reports again", func(t *testing.T) {
			w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-b", hostA...))
		}, nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.do(t)
			checkCountsAgree(t, w, w.alice)
			checkCountsAgree(t, w, w.carol)
			if st.check != nil {
				st.check(t)
			}
		})
	}
}

// TestConcurrentInventoriesStayExact posts inventories from benchAgents agents at once, so
// they are group-committed and read their products before the writer while others create
// them: every product is created exactly once, every answer is exact, and every kept count
// agrees with a recount, first for new hosts, then for all of them changing at once.
func TestConcurrentInventoriesStayExact(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini)
	const hosts = 48
	var f fleet
	for h := range hosts {
		items := slices.Clone(hostA[h%3 : h%3+4]) // shared products, some hosts agree on all
		items = append(items, inv("Tools Inc", fmt.Sprintf("Tool %d", h), "1.0"))
		f.hosts = append(f.hosts, items)
	}
	var mu sync.Mutex
	created := 0
	f.post(t, w.acme, f.bodies(t, "par"), func(s inventorySummary) bool {
		mu.Lock()
		defer mu.Unlock()
		created += s.ProductsCreated
		return s.InstallationsCreated == 5 && s.TotalProducts == 5 && s.InstallationsRemoved == 0
	})
	if want := len(hostA) - 1 + hosts; created != want { // hostA[0:7] minus the last, and one tool each
		t.Errorf("%d products created, want each of the %d distinct products created once", created, want)
	}
	checkCountsAgree(t, w, w.alice)
	for h := range f.hosts { // each drops its first product and upgrades its tool
		f.hosts[h] = append(f.hosts[h][1:4], inv("Tools Inc", fmt.Sprintf("Tool %d", h), "2.0"))
	}
	f.post(t, w.acme, f.bodies(t, "par"), func(s inventorySummary) bool {
		return s == inventorySummary{ProductsCreated: 1, InstallationsCreated: 1, InstallationsRemoved: 2, TotalProducts: 4}
	})
	checkCountsAgree(t, w, w.alice)
}

package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// withFeeds wires a syncer over the test store into the server: KEV from the real file,
// EPSS from epssCSV, fast pacing, the clock at *now.
func withFeeds(into **feeds.Syncer, now *time.Time, epssCSV string) envOption {
	return withDeps(func(t testing.TB, d *Deps, st *sqlitestore.Store) {
		epss := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(epssCSV)) }))
		t.Cleanup(epss.Close)
		o := feeds.DefaultOptions()
		o.KEVURL, o.EPSSURL, o.AllowHTTP = fileServer(t, kevFile).URL, epss.URL, true
		s := feeds.NewSyncer(st, NewFeedClient(FeedClientOptions{AllowHTTP: true}), o, nil)
		s.Pacing.Window = time.Millisecond
		s.Now = func() time.Time { return *now }
		d.Feeds, *into = s, s
	})
}

// GET /api/feeds, /healthz and /metrics show each synced source's state and age; findings
// carry the EPSS score of their CVE.
func TestFeedStatusHealthMetricsAndFindingEPSS(t *testing.T) {
	now := time.Date(2026, 10, 2, 8, 0, 0, 0, time.UTC)
	csv := "#model_version:v2025.03.14,score_date:2026-10-01T12:00:22Z\ncve,epss,percentile\nCVE-1999-0001,0.01,0.2\nCVE-2021-3711,0.40921,0.97455\n"
	var syncer *feeds.Syncer
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini, nvdMini), withFeeds(&syncer, &now, csv))
	scraper, _ := w.createAgentKey(t, "acme", "metrics")

	type feedList struct {
		Items []struct {
			Source      string     `json:"source"`
			LastSuccess *time.Time `json:"last_success"`
			Records     int        `json:"records"`
			LastError   *string    `json:"last_error"`
			AgeSeconds  *float64   `json:"age_seconds"`
			Stale       bool       `json:"stale"`
		} `json:"items"`
	}
	type health struct {
		Status string   `json:"status"`
		Stale  []string `json:"stale"`
	}
	if got := decodeBody[feedList](t, w.alice.do(t, "GET", "/api/feeds", nil)); len(got.Items) != 0 {
		t.Fatalf("feeds before any sync = %+v, want none", got)
	}
	if res := w.anonymous().do(t, "GET", "/api/feeds", nil); res.Status != http.StatusUnauthorized {
		t.Errorf("anonymous /api/feeds: %d", res.Status)
	}
	if _, err := syncer.Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceKEV, feeds.SourceEPSS}}); err != nil {
		t.Fatal(err)
	}
	got := decodeBody[feedList](t, w.alice.do(t, "GET", "/api/feeds", nil))
	if len(got.Items) != 2 || got.Items[0].Source != "epss" || got.Items[0].Records != 2 || got.Items[1].Source != "kev" ||
		got.Items[1].Records < 1000 || got.Items[1].AgeSeconds == nil || *got.Items[1].AgeSeconds != 0 || got.Items[1].Stale || got.Items[1].LastError != nil {
		t.Fatalf("feeds = %+v", got)
	}
	if h := decodeBody[health](t, w.anonymous().do(t, "GET", "/healthz", nil)); h.Status != "ok" {
		t.Errorf("health when fresh = %+v", h)
	}

	now = now.Add(73 * time.Hour) // past feeds.stale_after (3 days)
	res := w.anonymous().do(t, "GET", "/healthz", nil)
	if h := decodeBody[health](t, res); res.Status != 200 || h.Status != "stale" || strings.Join(h.Stale, ",") != "epss,kev" {
		t.Errorf("health when old: %d %+v, want 200 stale [epss kev]", res.Status, h)
	}
	res = w.anonymous().withHeader("Authorization", "Bearer "+scraper).do(t, "GET", "/metrics", nil)
	want := fmt.Sprintf(`vulnkeeper_feed_age_seconds{source="kev"} %d`, 73*3600)
	if !strings.Contains(string(res.Body), want) {
		t.Errorf("metrics lack %q", want)
	}

	if res := w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", inv("openssl", "openssl", "1.1.1k"))); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	products := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", "/api/products", nil))
	if len(products.Items) != 1 {
		t.Fatalf("products = %+v", products)
	}
	type finding struct {
		CVEID string    `json:"cve_id"`
		EPSS  *epssJSON `json:"epss"`
	}
	detail := decodeBody[struct {
		Vulnerabilities []finding `json:"vulnerabilities"`
	}](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", products.Items[0].ID), nil))
	seen := map[string]*epssJSON{}
	for _, v := range detail.Vulnerabilities {
		seen[v.CVEID] = v.EPSS
	}
	if e := seen["CVE-2021-3711"]; e == nil || *e != (epssJSON{Score: 0.40921, Percentile: 0.97455, Date: "2026-10-01"}) {
		t.Errorf("CVE-2021-3711 epss = %+v", e)
	}
	if e, ok := seen["CVE-2022-0778"]; !ok || e != nil {
		t.Errorf("CVE-2022-0778 (no EPSS row): present %v, epss %+v, want null", ok, e)
	}
}

// scannedNginx posts the conformance scan with the agent key and returns the nginx image's
// detail as a member of the organization (bob) reads it.
func scannedNginx(t *testing.T, env *testEnv, key string) containerDetailJSON {
	t.Helper()
	if res := env.agent(key).do(t, "POST", "/api/agent/container-scan", scanFixture(t)); res.Status != 200 {
		t.Fatalf("scan: %d %s", res.Status, res.Body)
	}
	bob := env.login(t, "bob", testPassword)
	list := decodeBody[containerListJSON](t, bob.do(t, "GET", "/api/containers?search=nginx", nil))
	if len(list.Items) != 1 {
		t.Fatalf("containers = %+v", list)
	}
	return decodeBody[containerDetailJSON](t, bob.do(t, "GET", "/api/containers/"+jsonNumber(list.Items[0].ID), nil))
}

// Container findings carry the EPSS score of their CVE too (null without one).
func TestContainerFindingsCarryEPSS(t *testing.T) {
	env := newTestEnv(t)
	attachScans(env)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "bob", appliance.RoleMember)
	key, _ := env.createAgentKey(t, "acme")
	csv := "#model_version:v2025.03.14,score_date:2026-10-01T12:00:22Z\ncve,epss,percentile\nCVE-2021-3711,0.40921,0.97455\n"
	if _, err := inventory.NewImporter(env.Store).Import(context.Background(), "epss.csv", strings.NewReader(csv), int64(len(csv))); err != nil {
		t.Fatal(err)
	}
	d := scannedNginx(t, env, key)
	scored := 0
	for _, v := range d.Vulnerabilities {
		switch {
		case v.CVEID == "CVE-2021-3711" && (v.EPSS == nil || *v.EPSS != epssJSON{Score: 0.40921, Percentile: 0.97455, Date: "2026-10-01"}):
			t.Errorf("%s epss = %+v", v.CVEID, v.EPSS)
		case v.CVEID != "CVE-2021-3711" && v.EPSS != nil:
			t.Errorf("%s epss = %+v, want null", v.CVEID, v.EPSS)
		case v.EPSS != nil:
			scored++
		}
	}
	if scored == 0 {
		t.Error("no finding of CVE-2021-3711")
	}
}

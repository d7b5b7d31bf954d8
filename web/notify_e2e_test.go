package web

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// notifyWorld is the inventory world with a notify service and a member of acme.
type notifyWorld struct {
	*invWorld
	svc *notify.Service
	clk *notifyClock
	bob *client
}

func newNotifyWorld(t *testing.T, mailer notify.Mailer) *notifyWorld {
	t.Helper()
	w := &notifyWorld{invWorld: &invWorld{}, clk: &notifyClock{t: time.Now().UTC().Truncate(time.Second)}}
	w.build(t, withInventory(&w.inv, catalogMini, nvdMini, kevMini), withNotify(&w.svc, w.clk, mailer),
		withDeps(func(_ testing.TB, d *Deps, st *sqlitestore.Store) {
			d.Containers, d.Remediation = containers.NewContainers(st, nil), remediation.NewRemediation(st, nil)
		}))
	w.createUser(t, "acme", "bob", appliance.RoleMember)
	w.bob = w.login(t, "bob", testPassword)
	return w
}

func (w *notifyWorld) run(t *testing.T) {
	t.Helper()
	if err := w.svc.RunOnce(context.Background()); err != nil {
		t.Fatalf("notify run: %v", err)
	}
}

func (w *notifyWorld) submit(t *testing.T, host string, items ...inventoryItem) {
	t.Helper()
	if res := w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody(host, items...)); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
}

func (w *notifyWorld) createHook(t *testing.T, body map[string]any) webhookCreated {
	t.Helper()
	res := w.alice.do(t, "POST", "/api/webhooks", body)
	if res.Status != 201 {
		t.Fatalf("create webhook: %d %s", res.Status, res.Body)
	}
	return decodeBody[webhookCreated](t, res)
}

func cvesOf(t *testing.T, secret string, rs []received, typ string) []string {
	t.Helper()
	var out []string
	for _, r := range rs {
		e := verified(t, secret, r)
		if e.Type != typ || e.Data.Digest || len(e.Data.Findings) != 1 {
			t.Fatalf("event %+v, want one %s finding", e, typ)
		}
		out = append(out, e.Data.Findings[0].CVEID)
	}
	slices.Sort(out)
	return out
}

// New and resolved findings reach the webhooks that hear them, signed, filtered by minimum
// severity (KEV always), once: a second run and a restarted service send nothing more.
func TestWebhookFindingEventsSignedOnceAndFiltered(t *testing.T) {
	w := newNotifyWorld(t, nil)
	strict, all := newReceiver(t), newReceiver(t)
	hook := w.createHook(t, map[string]any{"name": "soc", "url": strict.URL + "/hook", "events": []string{"finding.new", "finding.resolved"}, "min_severity": "critical"})
	if hook.Secret == "" || hook.Format != "json" || !hook.Enabled || *hook.MinSeverity != "critical" {
		t.Fatalf("created %+v", hook)
	}
	w.createHook(t, map[string]any{"url": all.URL, "format": "slack", "events": []string{"finding.new"}})

	w.submit(t, "host-a", inv("openssl", "openssl", "1.1.1k"), inv("Google LLC", "Google Chrome", "116.0.5845.96"),
		inv("Igor Pavlov", "7-Zip 21.07 (x64)", "21.07"))
	w.run(t)
	// openssl 1.1.1k: CVE-2021-3711 (critical 9.8) and CVE-2022-0778 (high 7.5, below the
	// minimum); Chrome: CVE-2023-4863 (high, but in KEV); 7-Zip: CVE-2099-10001 (medium).
	if got, want := cvesOf(t, hook.Secret, strict.take(), "finding.new"), []string{"CVE-2021-3711", "CVE-2023-4863"}; !slices.Equal(got, want) {
		t.Errorf("strict webhook heard %v, want %v", got, want)
	}
	texts := []string{}
	for _, r := range all.take() {
		texts = append(texts, decodeBody[map[string]string](t, response{Body: r.Body})["text"])
	}
	if joined := strings.Join(texts, "\n"); len(texts) != 4 || !strings.Contains(joined, "[vulnkeeper] New finding: CVE-2099-10001") ||
		!strings.Contains(joined, "CVE-2023-4863") || !strings.Contains(joined, "[CISA KEV] on host-a") {
		t.Errorf("slack webhook heard %q, want the 4 findings as Slack texts", texts)
	}

	w.run(t)
	restarted := notify.NewService(w.Store, notify.Options{AllowHTTP: true, AllowLoopback: true, FloodThreshold: 20, MaxAttempts: 8},
		NewWebhookClient(notify.Options{AllowHTTP: true, AllowLoopback: true}), nil, nil)
	if err := restarted.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(strict.take()) + len(all.take()); n != 0 {
		t.Errorf("%d deliveries sent again after a second run and a restart", n)
	}

	w.submit(t, "host-a", inv("openssl", "openssl", "1.1.1k"), inv("Igor Pavlov", "7-Zip 21.07 (x64)", "21.07"))
	w.run(t)
	if got := cvesOf(t, hook.Secret, strict.take(), "finding.resolved"); !slices.Equal(got, []string{"CVE-2023-4863"}) {
		t.Errorf("resolved %v, want Chrome's CVE-2023-4863", got)
	}
	if got := all.take(); len(got) != 0 {
		t.Errorf("the slack webhook does not hear finding.resolved, got %d", len(got))
	}
	log := decodeBody[listResponse[deliveryJSON]](t, w.alice.do(t, "GET", fmt.Sprintf("/api/webhooks/%d/deliveries", hook.ID), nil))
	if len(log.Items) != 3 {
		t.Fatalf("delivery log %+v, want 3", log.Items)
	}
	for _, d := range log.Items {
		if d.Status != "delivered" || d.Attempts != 1 || d.LastStatusCode == nil || *d.LastStatusCode != 200 || d.NextAttemptAt != nil {
			t.Errorf("delivery %+v", d)
		}
	}
}

// The first inventory of a big host (400 vulnerable Chrome versions) is one digest event,
// not 400 messages.
func TestWebhookFloodBecomesOneDigest(t *testing.T) {
	w := newNotifyWorld(t, nil)
	rc := newReceiver(t)
	hook := w.createHook(t, map[string]any{"url": rc.URL, "events": []string{"finding.new"}})
	items := make([]inventoryItem, 400)
	for i := range items {
		items[i] = inv("Google LLC", "Google Chrome", fmt.Sprintf("100.0.%d.%d", i/100, i%100))
	}
	w.submit(t, "big-host", items...)
	w.run(t)
	got := rc.take()
	if len(got) != 1 {
		t.Fatalf("%d deliveries, want one digest", len(got))
	}
	e := verified(t, hook.Secret, got[0])
	if e.Type != "finding.new" || !e.Data.Digest || e.Data.Count != 400 || len(e.Data.Findings) != 400 {
		t.Fatalf("digest type %s digest %v count %d findings %d", e.Type, e.Data.Digest, e.Data.Count, len(e.Data.Findings))
	}
	for _, f := range e.Data.Findings {
		if f.CVEID != "CVE-2023-4863" || !f.KEV || !slices.Equal(f.Hosts, []string{"big-host"}) {
			t.Fatalf("digest finding %+v", f)
		}
	}
}

// A failing receiver is retried with back-off under the same delivery id, then delivered;
// past max_attempts a delivery is failed.
func TestWebhookRetriesWithBackoff(t *testing.T) {
	w := newNotifyWorld(t, nil)
	rc := newReceiver(t, 503, 500)
	hook := w.createHook(t, map[string]any{"url": rc.URL, "events": []string{"finding.new"}})
	w.submit(t, "host-a", inv("Google LLC", "Google Chrome", "116.0.5845.96"))
	deliveries := func() []deliveryJSON {
		return decodeBody[listResponse[deliveryJSON]](t, w.alice.do(t, "GET", fmt.Sprintf("/api/webhooks/%d/deliveries", hook.ID), nil)).Items
	}
	w.run(t)
	d := deliveries()
	if len(d) != 1 || d[0].Status != "pending" || d[0].Attempts != 1 || *d[0].LastStatusCode != 503 || *d[0].LastError != "HTTP 503" ||
		d[0].NextAttemptAt.Sub(w.clk.Now()) != 30*time.Second {
		t.Fatalf("after a 503: %+v", d)
	}
	w.clk.Add(29 * time.Second)
	w.run(t)
	if n := len(rc.take()); n != 1 {
		t.Fatalf("%d requests before the back-off passed, want the first one only", n)
	}
	w.clk.Add(time.Second)
	w.run(t)
	if d = deliveries(); d[0].Attempts != 2 || d[0].NextAttemptAt.Sub(w.clk.Now()) != 2*time.Minute {
		t.Fatalf("after a 500: %+v", d[0])
	}
	w.clk.Add(2 * time.Minute)
	w.run(t)
	got := rc.take()
	if d = deliveries(); d[0].Status != "delivered" || d[0].Attempts != 3 || len(got) != 2 ||
		got[0].Header.Get("X-Vulnkeeper-Delivery") != d[0].DeliveryID || got[1].Header.Get("X-Vulnkeeper-Delivery") != d[0].DeliveryID {
		t.Fatalf("after a 200: %+v, %d requests", d[0], len(got))
	}

	dead := newReceiver(t, slices.Repeat([]int{500}, 16)...) // two deliveries, 8 attempts each
	res := w.alice.do(t, "PUT", fmt.Sprintf("/api/webhooks/%d", hook.ID), map[string]any{"url": dead.URL})
	if res.Status != 200 {
		t.Fatalf("update: %d %s", res.Status, res.Body)
	}
	w.submit(t, "host-a", inv("Google LLC", "Google Chrome", "116.0.5845.96"), inv("openssl", "openssl", "1.1.1k"))
	w.run(t)
	if n := len(dead.take()); n != 1 {
		t.Fatalf("a failing target got %d requests in one round, want 1 (its other delivery waits)", n)
	}
	for range 15 { // one attempt a round
		w.clk.Add(7 * time.Hour)
		w.run(t)
	}
	failed := deliveries()[:2]
	if n := len(dead.take()); n != 15 {
		t.Errorf("the dead receiver got %d more attempts, want 15", n)
	}
	for _, d := range failed {
		if d.Status != "failed" || d.Attempts != 8 || d.NextAttemptAt != nil {
			t.Errorf("after 8 failures: %+v", d)
		}
	}
}

// POST /api/webhooks/{id}/test sends a signed ping at once; Teams gets a MessageCard.
func TestWebhookTestPingAndTeamsPreset(t *testing.T) {
	w := newNotifyWorld(t, nil)
	rc := newReceiver(t)
	hook := w.createHook(t, map[string]any{"url": rc.URL, "events": []string{"host.silent"}})
	res := w.alice.do(t, "POST", fmt.Sprintf("/api/webhooks/%d/test", hook.ID), nil)
	d := decodeBody[deliveryJSON](t, res)
	if res.Status != 200 || d.Status != "delivered" || d.Event != "ping" {
		t.Fatalf("test: %d %+v", res.Status, d)
	}
	if e := verified(t, hook.Secret, rc.take()[0]); e.Type != "ping" || e.Data.Message == "" {
		t.Errorf("ping %+v", e)
	}
	teams := w.createHook(t, map[string]any{"url": rc.URL, "format": "teams", "events": []string{"host.silent"}})
	w.alice.do(t, "POST", fmt.Sprintf("/api/webhooks/%d/test", teams.ID), nil)
	card := decodeBody[map[string]string](t, response{Body: rc.take()[0].Body})
	if card["@type"] != "MessageCard" || card["text"] != "Test delivery from vulnkeeper" {
		t.Errorf("teams body %v", card)
	}
}

// Deliveries queued for a webhook that is then disabled are not sent: they fail, saying why.
func TestDisabledWebhookFailsItsQueue(t *testing.T) {
	w := newNotifyWorld(t, nil)
	rc := newReceiver(t, 503)
	hook := w.createHook(t, map[string]any{"url": rc.URL, "events": []string{"finding.new"}})
	w.submit(t, "host-a", inv("Google LLC", "Google Chrome", "116.0.5845.96"))
	w.run(t)
	if res := w.alice.do(t, "PUT", fmt.Sprintf("/api/webhooks/%d", hook.ID), map[string]any{"enabled": false}); res.Status != 200 {
		t.Fatalf("disable: %d", res.Status)
	}
	w.clk.Add(time.Minute)
	w.run(t)
	d := decodeBody[listResponse[deliveryJSON]](t, w.alice.do(t, "GET", fmt.Sprintf("/api/webhooks/%d/deliveries", hook.ID), nil)).Items
	if len(rc.take()) != 1 || len(d) != 1 || d[0].Status != "failed" || d[0].Attempts != 1 || *d[0].LastError != "webhook disabled" {
		t.Fatalf("deliveries %+v", d)
	}
}

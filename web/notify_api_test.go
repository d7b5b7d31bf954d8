package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// The webhook routes: org admins only, scoped to their organization, validated; the secret
// is shown once.
func TestWebhookRoutes(t *testing.T) {
	w := newNotifyWorld(t, nil)
	rc := newReceiver(t)
	var hook webhookCreated
	runScenarios(t, []scenario{
		{"create", "POST", "/api/webhooks", map[string]any{"name": "ops", "url": rc.URL, "events": []string{"feed.stale", "host.silent"}}, w.alice, 201,
			func(t *testing.T, res response) {
				hook = decodeBody[webhookCreated](t, res)
				if hook.ID == 0 || len(hook.Secret) < 40 || hook.MinSeverity != nil {
					t.Errorf("created %+v", hook)
				}
			}},
		{"member may not list", "GET", "/api/webhooks", nil, w.bob, 403, wantErrorCode("forbidden")},
		{"member may not create", "POST", "/api/webhooks", map[string]any{"url": rc.URL, "events": []string{"feed.stale"}}, w.bob, 403, wantErrorCode("forbidden")},
		{"anonymous", "GET", "/api/webhooks", nil, w.anonymous(), 401, wantErrorCode("unauthorized")},
		{"no csrf", "POST", "/api/webhooks", map[string]any{"url": rc.URL}, w.alice.withoutCSRF(), 403, nil},
		{"list hides the secret", "GET", "/api/webhooks", nil, w.alice, 200, func(t *testing.T, res response) {
			l := decodeBody[listResponse[webhookCreated]](t, res)
			if len(l.Items) != 1 || l.Items[0].Secret != "" || l.Items[0].URL != rc.URL {
				t.Errorf("list %+v", l.Items)
			}
		}},
		{"other organization", "GET", "/api/webhooks/1", nil, w.carol, 404, wantErrorCode("not_found")},
		{"other organization's deliveries", "GET", "/api/webhooks/1/deliveries", nil, w.carol, 404, wantErrorCode("not_found")},
		{"other organization's test", "POST", "/api/webhooks/1/test", nil, w.carol, 404, wantErrorCode("not_found")},
		{"unknown event", "POST", "/api/webhooks", map[string]any{"url": rc.URL, "events": []string{"finding.maybe"}}, w.alice, 400, wantErrorCode("validation_error")},
		{"no events", "POST", "/api/webhooks", map[string]any{"url": rc.URL}, w.alice, 400, wantErrorCode("validation_error")},
		{"bad format", "POST", "/api/webhooks", map[string]any{"url": rc.URL, "format": "irc", "events": []string{"feed.stale"}}, w.alice, 400, wantErrorCode("validation_error")},
		{"bad severity", "PUT", "/api/webhooks/1", map[string]any{"min_severity": "urgent"}, w.alice, 400, wantErrorCode("validation_error")},
		{"update", "PUT", "/api/webhooks/1", map[string]any{"min_severity": "high", "enabled": false}, w.alice, 200, func(t *testing.T, res response) {
			got := decodeBody[webhookCreated](t, res)
			if *got.MinSeverity != "high" || got.Enabled || got.Secret != "" || len(got.Events) != 2 {
				t.Errorf("updated %+v", got)
			}
		}},
		{"get", "GET", "/api/webhooks/1", nil, w.alice, 200, nil},
		{"delete by another organization", "DELETE", "/api/webhooks/1", nil, w.carol, 404, nil},
		{"delete", "DELETE", "/api/webhooks/1", nil, w.alice, 204, nil},
		{"gone", "GET", "/api/webhooks/1", nil, w.alice, 404, wantErrorCode("not_found")},
		{"not a number", "GET", "/api/webhooks/x", nil, w.alice, 404, nil},
	})
}

// Default options: only https, and never loopback, link-local or unspecified targets, by
// literal address in the URL or by the address a name resolves to when dialled.
func TestWebhookTargetsRefusedByDefault(t *testing.T) {
	env := newTestEnv(t, withDeps(func(t testing.TB, d *Deps, st *sqlitestore.Store) {
		o := notify.DefaultOptions()
		d.Notify = notify.NewService(st, o, NewWebhookClient(o), nil, nil)
	}))
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	alice := env.login(t, "alice", testPassword)
	for _, url := range []string{"http://hooks.example.com/x", "https://127.0.0.1/x", "https://localhost:8080/", "https://[::1]/",
		"https://169.254.169.254/latest/meta-data", "https://0.0.0.0/", "https://user:pw@hooks.example.com/", "ftp://hooks.example.com/", "/relative"} {
		res := alice.do(t, "POST", "/api/webhooks", map[string]any{"url": url, "events": []string{"feed.stale"}})
		if res.Status != 400 {
			t.Errorf("%s: status %d, want 400", url, res.Status)
			continue
		}
		if b := wantError(t, res, "validation_error"); b.Details.Field != "url" {
			t.Errorf("%s: %+v", url, b)
		}
	}
	if res := alice.do(t, "POST", "/api/webhooks", map[string]any{"url": "https://10.1.2.3/hook", "events": []string{"feed.stale"}}); res.Status != 201 {
		t.Errorf("a LAN address is a normal target: %d %s", res.Status, res.Body)
	}

	// A name that passes the URL check but resolves to loopback is refused where it is dialled.
	rc := newReceiver(t)
	client := NewWebhookClient(notify.Options{AllowHTTP: true})
	_, err := client.hc.Transport.(*http.Transport).DialContext(context.Background(), "tcp", rc.Listener.Addr().String())
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("dialling loopback: %v, want a refusal", err)
	}
	status, err := client.Post(context.Background(), strings.Replace(rc.URL, "127.0.0.1", "localhost.", 1), nil, []byte("{}"))
	if err == nil || status != 0 || len(rc.take()) != 0 {
		t.Errorf("posting to a name of loopback: status %d err %v", status, err)
	}
}

// Time brings events: due soon, overdue, a silent host, a stale feed — each once per episode.
func TestTimedEventsOncePerEpisode(t *testing.T) {
	w := newNotifyWorld(t, nil)
	rc := newReceiver(t)
	hook := w.createHook(t, map[string]any{"url": rc.URL, "events": []string{"assignment.due_soon", "assignment.overdue", "host.silent", "feed.stale"}})
	w.submit(t, "host-a", inv("openssl", "openssl", "1.1.1k"))
	ctx := context.Background()
	acme, _ := w.Store.OrganizationByName(ctx, "acme")
	now := w.clk.Now()
	err := w.Store.InTx(ctx, func(tx appliance.Tx) error {
		for _, due := range []time.Time{now.AddDate(0, 0, 2), now.AddDate(0, 0, 30)} {
			if _, err := tx.CreateAssignment(ctx, appliance.Assignment{OrganizationID: acme.ID, Status: "open", Priority: "high",
				CVEID: "CVE-2021-3711", DueDate: due, CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
		}
		return tx.SaveFeedState(ctx, appliance.FeedState{Source: "kev", LastSuccess: now.Add(-100 * time.Hour), LastAttempt: now})
	})
	if err != nil {
		t.Fatal(err)
	}
	types := func() map[string]int {
		m := map[string]int{}
		for _, r := range rc.take() {
			m[verified(t, hook.Secret, r).Type]++
		}
		return m
	}
	w.run(t)
	if got := types(); len(got) != 2 || got["assignment.due_soon"] != 1 || got["feed.stale"] != 1 {
		t.Errorf("now: %v, want one due_soon (the one due in 30 days is not) and one feed.stale", got)
	}
	w.run(t)
	if got := types(); len(got) != 0 {
		t.Errorf("again: %v, want nothing", got)
	}
	w.clk.Add(73 * time.Hour)
	w.run(t)
	if got := types(); len(got) != 2 || got["assignment.overdue"] != 1 || got["host.silent"] != 1 {
		t.Errorf("three days later: %v, want one overdue and one silent host", got)
	}
	w.submit(t, "host-a", inv("openssl", "openssl", "1.1.1k")) // back (seen at the real time, days before the clock)
	w.run(t)
	if got := types(); got["host.silent"] != 1 {
		t.Errorf("a new silence is a new episode: %v", got)
	}
}

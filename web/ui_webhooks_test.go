package web

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// The admin's webhooks page adds a webhook (its secret shown once), sends a test and shows
// the delivery log; members are refused.
func TestUIWebhooksPage(t *testing.T) {
	w := newNotifyWorld(t, nil)
	admin, member := w.uiLogin(t, "alice", testPassword), w.uiLogin(t, "bob", testPassword)
	rc := newReceiver(t, 503)
	if res := member.page(t, "/admin/webhooks"); res.Status != 403 {
		t.Fatalf("member: %d", res.Status)
	}
	admin.page(t, "/admin/webhooks")
	res := admin.form(t, "/admin/webhooks", url.Values{"name": {"soc"}, "url": {rc.URL}, "format": {"slack"},
		"min_severity": {"high"}, "min_score": {"0"}, "events": {"finding.new", "host.silent"}})
	body := string(res.Body)
	secret := regexp.MustCompile(`id="secret-value">(whsec_[0-9a-f]+)<`).FindStringSubmatch(body)
	if res.Status != 200 || secret == nil || !strings.Contains(body, rc.URL) {
		t.Fatalf("create: %d %s", res.Status, body)
	}
	id := regexp.MustCompile(`action="/admin/webhooks/(\d+)/test"`).FindStringSubmatch(body)[1]
	admin.form(t, "/admin/webhooks/"+id+"/test", nil)
	body = string(admin.page(t, "/admin/webhooks").Body)
	if strings.Contains(body, secret[1]) || !strings.Contains(body, "ping") || !strings.Contains(body, "HTTP 503") || !strings.Contains(body, "pending") {
		t.Errorf("after a failed test the page shows %s", body)
	}
	if res := member.form(t, "/admin/webhooks/"+id+"/delete", nil); res.Status != 403 {
		t.Errorf("member delete: %d", res.Status)
	}
	admin.form(t, "/admin/webhooks/"+id+"/delete", nil)
	if body := string(admin.page(t, "/admin/webhooks").Body); !strings.Contains(body, "No webhook yet.") {
		t.Errorf("after delete: %s", body)
	}
}

package web

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// TestUIPagesByRole renders every page as an organization admin and as a member on a store
// holding a real feed, a host and a container scan: each page shows its data, admin-only
// actions are absent for the member, and admin pages and forms refuse the member with 403
// and change nothing.
func TestUIPagesByRole(t *testing.T) {
	w := newUIWorld(t)
	openssl := w.productID(t, "OpenSSL")
	containerLink := regexp.MustCompile(`href="/containers/(\d+)"`)
	m := containerLink.FindStringSubmatch(string(w.admin.page(t, "/containers").Body))
	if m == nil {
		t.Fatal("the container list links no image")
	}
	matchLink := regexp.MustCompile(`/assign\?match_id=(\d+)`).FindStringSubmatch(string(w.admin.page(t, productPath(openssl)).Body))
	if matchLink == nil {
		t.Fatal("the product page offers no assignment for its findings")
	}
	hostLink := regexp.MustCompile(`href="/hosts/(\d+)"`).FindStringSubmatch(string(w.admin.page(t, "/hosts").Body))
	if hostLink == nil {
		t.Fatal("the host list links no host")
	}
	cve := w.cves(t, openssl)[0]
	cases := []struct {
		path      string
		want      []string // on both roles' pages
		adminOnly []string // shown to admins, absent for members
		adminPage bool     // members get 403
	}{
		{path: "/", want: []string{"<h1>Overview</h1>", "OpenSSL", `id="riskiest-hosts"`, "web-01"}},
		{path: "/hosts", want: []string{"web-01", `id="hosts"`}},
		{path: "/hosts?sort=findings&order=desc&has_vulnerabilities=true", want: []string{"web-01"}},
		{path: "/hosts/" + hostLink[1], want: []string{"web-01", "OpenSSL", "Totally Unknown Widget", `id="history"`, `id="tags"`}, adminOnly: []string{"Delete host", `id="tags-form"`}},
		{path: "/vulnerabilities?search=" + cve, want: []string{cve, `id="vulnerabilities"`}},
		{path: "/vulnerabilities", want: []string{"CVE-2015-", `id="vulnerabilities"`}},
		{path: "/vulnerabilities?kev=true&sort=hosts", want: []string{"Vulnerabilities"}},
		{path: "/vulnerabilities/" + cve, want: []string{cve, "OpenSSL", "web-01", `id="affected-hosts"`}, adminOnly: []string{"/assign?match_id="}},
		{path: "/products", want: []string{"OpenSSL", "Totally Unknown Widget", "unresolved"}},
		{path: productPath(openssl), want: append(w.cves(t, openssl), "web-01"), adminOnly: []string{`id="identity-form"`, `id="tracking-form"`, "/assign?match_id="}},
		{path: "/products?sort=name&order=desc&has_vulnerabilities=true", want: []string{"OpenSSL"}},
		{path: "/review", want: []string{"Totally Unknown Widget"}, adminOnly: []string{`action="/review/confirm"`, `action="/review/not-tracked"`, `id="bulk"`}},
		{path: "/containers", want: []string{"Containers", "/containers/" + m[1]}},
		{path: "/containers/" + m[1], want: []string{"Findings by package", "CVE-"}},
		{path: "/remediation", want: []string{"<h1>Remediation</h1>"}},
		{path: "/account", want: []string{"Your account", "Set up two-factor authentication"}},
		{path: "/password", want: []string{"password"}},
		{path: "/admin/keys", want: []string{"Create a key", "test"}, adminPage: true},
		{path: "/admin/users", want: []string{"alice", "bob"}, adminPage: true},
		{path: "/admin/settings", want: []string{"SLA policy"}, adminPage: true},
		{path: "/assign?match_id=" + matchLink[1], want: []string{"assignment"}, adminPage: true},
	}
	for _, c := range cases {
		for _, role := range []struct {
			name  string
			c     *client
			admin bool
		}{{"admin", w.admin, true}, {"member", w.member, false}} {
			res := role.c.page(t, c.path)
			body := string(res.Body)
			if c.adminPage && !role.admin {
				if res.Status != 403 || strings.Contains(body, c.want[0]) {
					t.Errorf("%s as member: %d, want 403 without the page", c.path, res.Status)
				}
				continue
			}
			if res.Status != 200 {
				t.Errorf("%s as %s: %d %.300s", c.path, role.name, res.Status, body)
				continue
			}
			for _, s := range c.want {
				if !strings.Contains(body, s) {
					t.Errorf("%s as %s: no %q on the page", c.path, role.name, s)
				}
			}
			for _, s := range c.adminOnly {
				if strings.Contains(body, s) != role.admin {
					t.Errorf("%s as %s: %q shown=%v", c.path, role.name, s, !role.admin)
				}
			}
			if strings.Contains(body, "/admin/keys") != role.admin {
				t.Errorf("%s as %s: administration link shown=%v", c.path, role.name, !role.admin)
			}
		}
	}

	// A member's admin forms are refused and change nothing.
	before := w.keyCount(t)
	unknown := w.productID(t, "Totally Unknown Widget")
	w.member.page(t, "/products")
	for _, f := range []struct {
		path string
		vals url.Values
	}{
		{"/admin/keys", url.Values{"name": {"sneaky"}}},
		{productPath(openssl) + "/identity", url.Values{"cpe": {"cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*"}}},
		{"/review/confirm", url.Values{"product_id": {fmt.Sprint(unknown)}, "cpe": {"cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*"}}},
		{"/review/not-tracked", url.Values{"product_id": {fmt.Sprint(unknown)}}},
		{"/review/bulk", url.Values{"pick": {fmt.Sprint(unknown)}, "action": {"not_tracked"}}},
		{productPath(unknown) + "/tracking", url.Values{"not_tracked": {"true"}}},
		{"/admin/users", url.Values{"username": {"mallory"}, "role": {"org_admin"}, "password": {"long enough password"}}},
		{"/hosts/" + hostLink[1] + "/delete", nil},
		{"/hosts/" + hostLink[1] + "/tags", url.Values{"tags": {"sneaky"}}},
	} {
		if res := w.member.form(t, f.path, f.vals); res.Status != 403 {
			t.Errorf("member POST %s: %d, want 403", f.path, res.Status)
		}
	}
	if got := w.keyCount(t); got != before {
		t.Errorf("agent keys %d after the member's refused form, want %d", got, before)
	}
	if res := w.member.page(t, "/hosts/"+hostLink[1]); res.Status != 200 || strings.Contains(string(res.Body), "sneaky") {
		t.Errorf("the host is gone after the member's refused delete, or tagged by the refused form: %d", res.Status)
	}
	w.hostTagsByForm(t, hostLink[1])
	p := w.product(t, unknown)
	if p.Identity.Vendor != "" || p.Resolution != appliance.ResolutionUnresolved {
		t.Errorf("the member's refused confirmation changed the product: %+v", p.Identity)
	}

	// An admin confirms the name from the review queue and sees its findings.
	res := w.admin.form(t, "/review/confirm", url.Values{"product_id": {fmt.Sprint(unknown)}, "cpe": {"cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*"}})
	if res.Status != 200 || !strings.Contains(string(res.Body), "Just confirmed") {
		t.Errorf("admin confirmation: %d %.300s", res.Status, res.Body)
	}
	if p := w.product(t, unknown); p.Identity.Vendor != "openssl" || p.Resolution != appliance.ResolutionOverride {
		t.Errorf("after the admin's confirmation: %+v %s", p.Identity, p.Resolution)
	}
	w.notTrackedByForms(t)
}

// notTrackedByForms has an admin mark the review queue's names "not a product we track",
// one by its row's button and one through the bulk form, then track one again from its
// product page.
func (w *uiWorld) notTrackedByForms(t *testing.T) {
	t.Helper()
	if res := w.env.agent(w.agentKey).do(t, "POST", "/api/agent/inventory", inventoryBody("web-02", inv("Initech", "TPS Report Viewer", "3.1"))); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	queue := func() string { return string(w.admin.page(t, "/review").Body) }
	if q := queue(); !strings.Contains(q, "TPS Report Viewer") || !strings.Contains(q, "PHP Interpreter Toolkit") {
		t.Fatalf("the queue lacks the names this test marks: %.3000s", q)
	}
	tps, php := w.productID(t, "TPS Report Viewer"), w.productID(t, "PHP Interpreter Toolkit")
	// Every row can be selected now; confirming a name without a candidate confirms nothing.
	res := w.admin.form(t, "/review/bulk", url.Values{"pick": {fmt.Sprint(tps)}})
	if body := string(res.Body); !strings.Contains(body, "none of the selected names has a candidate") || w.product(t, tps).Resolution != appliance.ResolutionUnresolved {
		t.Errorf("bulk confirmation of a name without a candidate: %d %.500s", res.Status, body)
	}
	res = w.admin.form(t, "/review/not-tracked", url.Values{"product_id": {fmt.Sprint(tps)}})
	if body := string(res.Body); res.Status != 200 || strings.Contains(body, "TPS Report Viewer") || !strings.Contains(body, "it left the queue") {
		t.Errorf("row button: %d, the name still queued or no notice: %.500s", res.Status, body)
	}
	w.admin.page(t, "/review")
	res = w.admin.form(t, "/review/bulk", url.Values{"pick": {fmt.Sprint(php)}, "action": {"not_tracked"}})
	if body := string(res.Body); res.Status != 200 || strings.Contains(body, "PHP Interpreter Toolkit") {
		t.Errorf("bulk not tracked: %d, the name still queued: %.500s", res.Status, body)
	}
	for _, id := range []int64{tps, php} {
		if p := w.product(t, id); p.Resolution != appliance.ResolutionNotTracked {
			t.Errorf("product %d: resolution %s, want not_tracked", id, p.Resolution)
		}
	}
	page := string(w.admin.page(t, productPath(php)).Body)
	if !strings.Contains(page, `id="not-tracked"`) || !strings.Contains(page, "Track again") {
		t.Errorf("the product page does not show the state with Track again: %.500s", page)
	}
	if member := string(w.member.page(t, productPath(php)).Body); !strings.Contains(member, `id="not-tracked"`) || strings.Contains(member, "Track again") {
		t.Error("a member should see the state without the Track again form")
	}
	w.admin.form(t, productPath(php)+"/tracking", url.Values{"not_tracked": {"false"}})
	if p := w.product(t, php); p.Resolution == appliance.ResolutionNotTracked || !strings.Contains(queue(), "PHP Interpreter Toolkit") {
		t.Errorf("tracked again: resolution %s; it should be resolved afresh and back in the queue", p.Resolution)
	}
}

// TestUIHeadersAndSignIn checks the strict headers of pages and static files, that a person
// without a session is sent to the sign-in form, and that a form without its CSRF token is
// refused.
func TestUIHeadersAndSignIn(t *testing.T) {
	w := newUIWorld(t)
	anon := w.env.anonymous()
	res := anon.page(t, "/products")
	if res.Status != 200 || !strings.Contains(string(res.Body), `action="/login"`) {
		t.Fatalf("anonymous /products: %d %.300s", res.Status, res.Body)
	}
	for _, path := range []string{"/", "/login", "/static/app.css"} {
		res := w.admin.do(t, "GET", path, nil)
		h := res.Header
		csp := h.Get("Content-Security-Policy")
		if csp == "" || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		for k, v := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"} {
			if h.Get(k) != v {
				t.Errorf("%s: %s %q, want %q", path, k, h.Get(k), v)
			}
		}
	}
	before := w.keyCount(t)
	if res := w.admin.withoutCSRF().form(t, "/admin/keys", url.Values{"name": {"x"}}); res.Status != 403 {
		t.Errorf("form without CSRF token: %d, want 403", res.Status)
	}
	if w.keyCount(t) != before {
		t.Error("a form without its CSRF token created a key")
	}
	// A form past the size bound is refused without a trace.
	if res := w.admin.form(t, "/admin/keys", url.Values{"name": {strings.Repeat("k", 1<<20)}}); res.Status < 400 || res.Status >= 500 {
		t.Errorf("1 MB form: %d, want a 4xx", res.Status)
	}
	if w.keyCount(t) != before {
		t.Error("an oversized form created a key")
	}
	// An admin creates a key: it is shown once with the install lines.
	w.admin.page(t, "/admin/keys")
	res = w.admin.form(t, "/admin/keys", url.Values{"name": {"servers"}})
	body := string(res.Body)
	if res.Status != 200 || !strings.Contains(body, `id="key-value"`) || !strings.Contains(body, "vulnkeeper agent install") {
		t.Errorf("key creation page: %d %.300s", res.Status, body)
	}
	if w.keyCount(t) != before+1 {
		t.Error("the key was not created")
	}
	if again := string(w.admin.page(t, "/admin/keys").Body); strings.Contains(again, `id="key-value"`) {
		t.Error("the key is shown again on the next visit")
	}
}

// cves are the CVE ids the service lists for a product (at least one, or the test fails).
func (w *uiWorld) cves(t testing.TB, id int64) []string {
	t.Helper()
	org, err := w.env.Accounts.Organization(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	d, err := w.inv.Service.Product(context.Background(), org.ID, id)
	if err != nil || len(d.Vulnerabilities) == 0 {
		t.Fatalf("product %d: no vulnerabilities (%v)", id, err)
	}
	var out []string
	for _, v := range d.Vulnerabilities {
		out = append(out, v.CVEID)
	}
	return out
}

func (w *uiWorld) keyCount(t testing.TB) int {
	t.Helper()
	keys, err := w.env.Accounts.AgentKeys(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

func (w *uiWorld) product(t testing.TB, id int64) appliance.Product {
	t.Helper()
	org, err := w.env.Accounts.Organization(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	d, err := w.inv.Service.Product(context.Background(), org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Product
}

// TestUIMailPreferences: a person chooses mail on the account page; a digest without an address
// is refused with the reason, and the saved choices are what the API reads.
func TestUIMailPreferences(t *testing.T) {
	var svc *notify.Service
	var inv inventoryServices
	env := newTestEnv(t, withInventory(&inv, catalogMini), withNotify(&svc, &notifyClock{t: time.Now()}, nil),
		withDeps(func(_ testing.TB, d *Deps, st *sqlitestore.Store) {
			d.Containers = containers.NewContainers(st, nil)
			d.Remediation = remediation.NewRemediation(st, nil)
		}))
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	c := env.uiLogin(t, "alice", testPassword)
	page := string(c.page(t, "/account").Body)
	if !strings.Contains(page, `id="mail-form"`) || !strings.Contains(page, "No mail server is configured") {
		t.Fatalf("account page without the mail form or the missing-server note: %.500s", page)
	}
	res := c.form(t, "/account/mail", url.Values{"email": {""}, "digest": {"daily"}})
	if !strings.Contains(string(res.Body), "email is required") {
		t.Errorf("a digest without an address: %.300s", res.Body)
	}
	c.form(t, "/account/mail", url.Values{"email": {"alice@example.com"}, "digest": {"weekly"}, "kev_immediate": {"1"}})
	api := env.login(t, "alice", testPassword)
	got := decodeBody[prefsJSON](t, api.do(t, "GET", "/api/me/notifications", nil))
	if got.Email == nil || *got.Email != "alice@example.com" || got.Digest != "weekly" || !got.KEVImmediate {
		t.Errorf("saved %+v", got)
	}
	if page := string(c.page(t, "/account").Body); !strings.Contains(page, `value="alice@example.com"`) {
		t.Error("the account page does not show the saved address")
	}
}

// hostTagsByForm has an admin tag a host from its page, sees the tags there and in the
// filtered list, gets a bad tag refused with a message, and clears them.
func (w *uiWorld) hostTagsByForm(t *testing.T, id string) {
	t.Helper()
	path := "/hosts/" + id
	w.admin.page(t, path)
	res := w.admin.form(t, path+"/tags", url.Values{"tags": {" Prod, dmz ,,prod"}})
	body := string(res.Body)
	if res.Status != 200 || !strings.Contains(body, "Tags saved.") || !strings.Contains(body, `href="/hosts?tag=dmz"`) ||
		!strings.Contains(body, `value="dmz, prod"`) {
		t.Errorf("tags form: %d %.2000s", res.Status, body)
	}
	if list := string(w.member.page(t, "/hosts?tag=prod").Body); !strings.Contains(list, "web-01") || !strings.Contains(list, `href="/hosts?tag=prod"`) {
		t.Errorf("the hosts tagged prod lack web-01: %.2000s", list)
	}
	if list := string(w.member.page(t, "/hosts?tag=staging").Body); strings.Contains(list, "web-01") {
		t.Error("web-01 is listed under a tag it does not carry")
	}
	res = w.admin.form(t, path+"/tags", url.Values{"tags": {"prod, not ok"}})
	if body := string(res.Body); !strings.Contains(body, "a tag has 1 to 64 characters") || !strings.Contains(body, `value="dmz, prod"`) {
		t.Errorf("a bad tag: %d %.2000s", res.Status, body)
	}
	res = w.admin.form(t, path+"/tags", url.Values{"tags": {""}})
	if body := string(res.Body); strings.Contains(body, `href="/hosts?tag=`) {
		t.Errorf("tags left after clearing them: %.2000s", body)
	}
}

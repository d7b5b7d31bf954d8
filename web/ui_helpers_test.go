package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// Real data the UI tests load: one year of NVD, the KEV catalogue, the conformance scan.
const (
	nvd2015 = "../../shared/data/nvd/nvdcve-2.0-2015.json.gz"
	kevFull = "../../shared/data/kev/known_exploited_vulnerabilities.json"
)

// uiHost is a host whose software the 2015 NVD feed knows, plus a name nothing resolves
// on its own (the review queue's) and one the catalogue offers candidates for.
var uiHost = []inventoryItem{
	inv("OpenSSL Project", "OpenSSL", "1.0.1l"),
	inv("Adobe Systems Incorporated", "Adobe Flash Player 17 ActiveX", "17.0.0.134"),
	inv("Mozilla", "Mozilla Firefox (x64 en-US)", "38.0"),
	inv("Acme Widgets", "Totally Unknown Widget", "2.0"),
	inv("The PHP Group", "PHP Interpreter Toolkit", "5.6.8"),
}

// uiWorld is an organization with an admin and a member, an agent key, the real 2015 feed
// and KEV catalogue, a host inventory and a container scan, served by the real router.
type uiWorld struct {
	env           *testEnv
	inv           inventoryServices
	admin, member *client
	agentKey      string
}

func newUIWorld(t testing.TB) *uiWorld {
	t.Helper()
	w := &uiWorld{}
	w.env = newTestEnv(t, withInventory(&w.inv, catalogMini, nvd2015, kevFull), withDeps(func(_ testing.TB, d *Deps, st *sqlitestore.Store) {
		d.Containers = containers.NewContainers(st, nil)
		d.Remediation = remediation.NewRemediation(st, nil)
	}))
	w.env.createOrg(t, "acme")
	w.env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	w.env.createUser(t, "acme", "bob", appliance.RoleMember)
	w.agentKey, _ = w.env.createAgentKey(t, "acme")
	agent := w.env.agent(w.agentKey)
	if res := agent.do(t, "POST", "/api/agent/inventory", inventoryBody("web-01", uiHost...)); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	scan, err := os.ReadFile(conformanceScan)
	if err != nil {
		t.Fatal(err)
	}
	if res := agent.do(t, "POST", "/api/agent/container-scan", scan); res.Status != 200 {
		t.Fatalf("container scan: %d %s", res.Status, res.Body)
	}
	w.admin = w.env.uiLogin(t, "alice", testPassword)
	w.member = w.env.uiLogin(t, "bob", testPassword)
	return w
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// page GETs path as c (following redirects), keeps the page's CSRF token for later
// forms, and returns the final answer.
func (c *client) page(t testing.TB, path string) response {
	t.Helper()
	res := c.do(t, "GET", path, nil)
	if m := csrfField.FindSubmatch(res.Body); m != nil {
		c.csrf = html.UnescapeString(string(m[1]))
	}
	return res
}

// form POSTs an HTML form (with c's CSRF token unless c has none) and follows the redirect.
func (c *client) form(t testing.TB, path string, vals url.Values) response {
	t.Helper()
	if vals == nil {
		vals = url.Values{}
	}
	if c.csrf != "" {
		vals.Set("csrf_token", c.csrf)
	}
	req, err := http.NewRequest("POST", c.env.URL+path, strings.NewReader(vals.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	var b strings.Builder
	if _, err := fmt.Fprint(&b, readAll(t, res)); err != nil {
		t.Fatal(err)
	}
	out := response{Status: res.StatusCode, Header: res.Header, Body: []byte(b.String())}
	if m := csrfField.FindSubmatch(out.Body); m != nil {
		c.csrf = html.UnescapeString(string(m[1]))
	}
	return out
}

func readAll(t testing.TB, res *http.Response) string {
	t.Helper()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// uiLogin signs in through the sign-in form and fails the test unless it lands on the
// overview.
func (e *testEnv) uiLogin(t testing.TB, username, password string) *client {
	t.Helper()
	c := e.anonymous()
	c.page(t, "/login")
	res := c.form(t, "/login", url.Values{"username": {username}, "password": {password}})
	if res.Status != 200 || !strings.Contains(string(res.Body), "<h1>Overview</h1>") {
		t.Fatalf("sign in %q: status %d, body %.500s", username, res.Status, res.Body)
	}
	return c
}

// productID finds the id of the organization's product named name through the service.
func (w *uiWorld) productID(t testing.TB, name string) int64 {
	t.Helper()
	org, err := w.env.Accounts.Organization(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	items, _, err := w.inv.Service.Products(context.Background(), appliance.ProductFilter{OrganizationID: org.ID, Search: name, Page: 1, PerPage: 10})
	if err != nil || len(items) == 0 {
		t.Fatalf("product %q: %v (%d found)", name, err, len(items))
	}
	return items[0].ID
}

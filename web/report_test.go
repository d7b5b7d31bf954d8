package web

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/appliance/report"
)

// figure reads one of the report's headline figures ("<b>N</b>label").
func figure(t *testing.T, body, label string) int {
	t.Helper()
	m := regexp.MustCompile(`<b>([0-9]+)%?</b>` + regexp.QuoteMeta(label)).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no figure %q in the report", label)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// The compliance report of an organization counts the open findings the product API shows,
// lists exactly the KEV findings, tells the SLA standing of the assignments (one closed in
// time, one overdue), drops a finding marked false positive, never shows another
// organization's data, and is one CSP-safe page: no inline script or style, its style a
// linked static file.
func TestComplianceReport(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini, kevMini)
	attachScans(w.testEnv)
	w.Server.reports = report.New(w.Store, remediation.NewRemediation(w.Store, nil).Policy)
	if res := w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", hostA...)); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	list := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", "/api/products?has_vulnerabilities=true&per_page=200", nil))
	open, kev := 0, []string{}
	var first productVulnJSON
	for _, p := range list.Items {
		d := decodeBody[productDetailJSON](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", p.ID), nil))
		open += len(d.Vulnerabilities)
		for _, v := range d.Vulnerabilities {
			if v.KEV != nil {
				kev = append(kev, v.CVEID)
			}
			first = v
		}
	}
	if open == 0 || len(kev) == 0 {
		t.Fatalf("the fixture has %d findings, %d of KEV CVEs", open, len(kev))
	}
	res := w.alice.do(t, "GET", "/api/reports/compliance", nil)
	body := string(res.Body)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d %q: %s", res.Status, res.Header.Get("Content-Type"), body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "style-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	if strings.Contains(body, "<script") || strings.Contains(body, "<style") || strings.Contains(body, "style=") {
		t.Error("the report has inline script or style")
	}
	css := regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)">`).FindStringSubmatch(body)
	if css == nil {
		t.Fatal("no stylesheet link")
	}
	if res := w.anonymous().do(t, "GET", strings.ReplaceAll(css[1], "&amp;", "&"), nil); res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/css") {
		t.Errorf("stylesheet %s: %d %q", css[1], res.Status, res.Header.Get("Content-Type"))
	}
	if got := figure(t, body, "open findings"); got != open {
		t.Errorf("open findings %d, the product API shows %d", got, open)
	}
	reported := regexp.MustCompile(`<tr><td>(CVE-[0-9]+-[0-9]+)</td>`).FindAllStringSubmatch(body, -1)
	var got []string
	for _, m := range reported {
		got = append(got, m[1])
	}
	slices.Sort(got)
	slices.Sort(kev)
	if !slices.Equal(got, kev) {
		t.Errorf("KEV rows %v, want %v", got, kev)
	}
	if !strings.Contains(body, "<tr><td>host-a</td><td class=\"num\">"+strconv.Itoa(open)+"</td>") {
		t.Error("host-a is not the top host with every open finding")
	}

	// One assignment closed in time, one overdue, one finding dismissed as a false positive.
	today := time.Now().UTC().Format(time.DateOnly)
	ids := make([]int64, 0, 3)
	for _, body := range []map[string]any{
		{"assigned_to": "alice", "cve_id": kev[0], "due_date": "2099-01-01"},
		{"assigned_to": "alice", "cve_id": kev[0], "due_date": "2020-01-01"},
		{"assigned_to": "alice", "match_id": first.MatchID},
	} {
		res := w.alice.do(t, "POST", "/api/remediation/assignments", body)
		if res.Status != 201 {
			t.Fatalf("assignment: %d %s", res.Status, res.Body)
		}
		ids = append(ids, decodeBody[assignmentJSON](t, res).ID)
	}
	for i, status := range map[int]string{0: "resolved", 2: "false_positive"} {
		if res := w.alice.do(t, "PUT", fmt.Sprintf("/api/remediation/assignments/%d", ids[i]), map[string]any{"status": status, "notes": "checked"}); res.Status != 200 {
			t.Fatalf("%s: %d %s", status, res.Status, res.Body)
		}
	}
	body = string(w.alice.do(t, "GET", "/api/reports/compliance", nil).Body)
	if got := figure(t, body, "open findings"); got != open-1 {
		t.Errorf("after a false positive: %d open, want %d", got, open-1)
	}
	if got := figure(t, body, "assignments overdue now"); got != 1 {
		t.Errorf("overdue now %d, want 1 (today %s)", got, today)
	}
	if got := figure(t, body, "closed within policy (1 of 1)"); got != 100 {
		t.Errorf("closed within policy %d%%, want 100", got)
	}

	// Another organization sees its own, empty report; no session, no report.
	other := string(w.carol.do(t, "GET", "/api/reports/compliance", nil).Body)
	if figure(t, other, "open findings") != 0 || strings.Contains(other, "host-a") || !strings.Contains(other, "globex") {
		t.Error("globex's report shows acme's data")
	}
	wantError(t, w.anonymous().do(t, "GET", "/api/reports/compliance", nil), "unauthorized")
	wantError(t, w.alice.do(t, "GET", "/api/reports/compliance?org=2", nil), "validation_error")
}

package web

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/triage"
)

// TestFindingsListAndExport lists the organization's findings over the real 2015 feed and
// KEV: the total is the sum of the installed products' findings, the CSV export holds the
// same rows as the JSON pages, filters narrow both, a triage rule takes its findings out
// unless include_suppressed, and another organization sees none.
func TestFindingsListAndExport(t *testing.T) {
	var tr *triage.Service
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini, nvd2015, kevFull), withTriage(newFakeClock(), &tr))
	items := []inventoryItem{inv("OpenSSL Project", "OpenSSL", "1.0.1l"), inv("Mozilla", "Mozilla Firefox (x64 en-US)", "38.0"),
		inv("Adobe Systems Incorporated", "Adobe Flash Player 17 ActiveX", "17.0.0.134")}
	if res := w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("pc-1", items...)); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	want := 0
	for _, p := range decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", "/api/products?per_page=200", nil)).Items {
		want += p.VulnerabilityCount
	}
	all := allFindings(t, w.alice, "")
	if len(all) != want || want == 0 {
		t.Fatalf("findings %d, want the products' %d", len(all), want)
	}
	rows := csvRows(t, w.alice.do(t, "GET", "/api/findings?format=csv", nil), findingRowCSVHeader)
	if len(rows) != len(all) {
		t.Fatalf("CSV rows %d, JSON findings %d", len(rows), len(all))
	}
	for i, f := range all {
		if rows[i][0] != fmt.Sprint(f.MatchID) || rows[i][8] != f.CVEID || rows[i][3] != f.Product || rows[i][11] != fmt.Sprint(f.KEV) {
			t.Errorf("row %d = %v, want %+v", i, rows[i], f)
		}
	}
	kev := allFindings(t, w.alice, "kev=true")
	if len(kev) == 0 || slices.ContainsFunc(kev, func(f findingRowJSON) bool { return !f.KEV }) {
		t.Errorf("kev=true: %d findings, all in KEV expected", len(kev))
	}
	crit := allFindings(t, w.alice, "severity=critical")
	if len(crit) == 0 || slices.ContainsFunc(crit, func(f findingRowJSON) bool { return f.Severity != "critical" }) {
		t.Error("severity=critical lists other severities")
	}
	if got := csvRows(t, w.alice.do(t, "GET", "/api/findings?format=csv&kev=true", nil), findingRowCSVHeader); len(got) != len(kev) {
		t.Errorf("CSV kev=true: %d rows, want %d", len(got), len(kev))
	}
	// A rule suppressing one CVE for the organization takes it out, unless asked.
	cve := all[0].CVEID
	rule := ruleBody(cve, "organization", "false_positive", map[string]any{"note": "scanner noise"})
	if res := w.alice.do(t, "POST", "/api/triage/rules", rule); res.Status != 201 {
		t.Fatalf("rule: %d %s", res.Status, res.Body)
	}
	if got := allFindings(t, w.alice, ""); slices.ContainsFunc(got, func(f findingRowJSON) bool { return f.CVEID == cve }) {
		t.Errorf("%s still listed after a false_positive rule", cve)
	}
	if got := allFindings(t, w.alice, "include_suppressed=true"); len(got) != len(all) {
		t.Errorf("include_suppressed: %d, want %d", len(got), len(all))
	}
	runScenarios(t, []scenario{
		{"another organization", "GET", "/api/findings", nil, w.carol, 200, func(t *testing.T, res response) {
			if l := decodeBody[listResponse[findingRowJSON]](t, res); l.Total != 0 {
				t.Errorf("globex sees %d findings", l.Total)
			}
		}},
		{"bad severity", "GET", "/api/findings?severity=urgent", nil, w.alice, 400, wantField("severity")},
		{"bad format", "GET", "/api/findings?format=xml", nil, w.alice, 400, wantField("format")},
		{"unknown parameter", "GET", "/api/findings?sort=cve", nil, w.alice, 400, wantField("sort")},
		{"agent key", "GET", "/api/findings", nil, w.acme, 401, nil},
	})
}

func allFindings(t *testing.T, c *client, query string) []findingRowJSON {
	t.Helper()
	var out []findingRowJSON
	for page := 1; ; page++ {
		l := decodeBody[listResponse[findingRowJSON]](t, c.do(t, "GET", fmt.Sprintf("/api/findings?per_page=200&page=%d&%s", page, query), nil))
		out = append(out, l.Items...)
		if page >= l.Pages {
			return out
		}
	}
}

// BenchmarkFindingsExport streams 100,000 findings (2,000 installed products × 50 real CVEs)
// as CSV through the real handler and reports rows/s and the server's heap growth.
func BenchmarkFindingsExport(b *testing.B) {
	w := newInvWorld(b, catalogMini, nvd2015)
	ctx := context.Background()
	org, err := w.Accounts.Organization(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	var cves []string
	_ = w.Store.EachCVEConfiguration(ctx, func(id string, _ []byte) error { cves = append(cves, id); return nil })
	now := time.Now().UTC()
	err = w.Store.InTx(ctx, func(tx appliance.Tx) error {
		host, err := tx.CreateAsset(ctx, appliance.Asset{OrganizationID: org.ID, Hostname: "big", CreatedAt: now, LastSeenAt: now})
		if err != nil {
			return err
		}
		var ins []appliance.Installation
		for i := range 2000 {
			id, err := tx.CreateProduct(ctx, appliance.Product{OrganizationID: org.ID, Vendor: "v", Name: fmt.Sprintf("p%d", i), Version: "1",
				Criticality: 2, CreatedAt: now, UpdatedAt: now, Resolution: appliance.ResolutionExact,
				Identity: appliance.Identity{Part: "a", Vendor: "v", Product: fmt.Sprintf("p%d", i)}})
			if err != nil {
				return err
			}
			ms := make([]appliance.MatchInput, 50)
			for j := range ms {
				ms[j] = appliance.MatchInput{CVEID: cves[(i*50+j)%len(cves)], Criteria: "cpe:2.3:a:v:p:*"}
			}
			if _, err := tx.ReplaceMatches(ctx, id, ms, 1, now); err != nil {
				return err
			}
			ins = append(ins, appliance.Installation{AssetID: host, ProductID: id, CreatedAt: now})
		}
		return tx.CreateInstallations(ctx, ins)
	})
	if err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rows := 0
	for b.Loop() {
		req, _ := http.NewRequest("GET", w.URL+"/api/findings?format=csv", nil)
		res, err := w.alice.http.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		r := csv.NewReader(res.Body)
		n := -1
		for {
			if _, err := r.Read(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			n++
		}
		res.Body.Close()
		if n != 100000 {
			b.Fatalf("%d rows, want 100000", n)
		}
		rows += n
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<20), "heap-growth-MB")
}

// TestHostsCSVExport: the hosts export holds the rows of the JSON list, filters applied, and
// reads past its first page.
func TestHostsCSVExport(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvd2015)
	for i := range 7 {
		if res := w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody(fmt.Sprintf("pc-%d", i), inv("OpenSSL Project", "OpenSSL", "1.0.1l"))); res.Status != 200 {
			t.Fatalf("inventory: %d %s", res.Status, res.Body)
		}
	}
	list := decodeBody[listResponse[assetJSON]](t, w.alice.do(t, "GET", "/api/assets?per_page=200", nil))
	defer func(n int) { assetsExportPage = n }(assetsExportPage)
	assetsExportPage = 3 // three pages of hosts
	rows := csvRows(t, w.alice.do(t, "GET", "/api/assets?format=csv", nil), assetCSVHeader)
	if len(rows) != 7 || len(rows) != list.Total {
		t.Fatalf("CSV %d rows, JSON %d hosts", len(rows), list.Total)
	}
	for i, a := range list.Items {
		if rows[i][1] != a.Hostname || rows[i][2] != "host" || rows[i][12] != fmt.Sprint(a.Findings.Total) {
			t.Errorf("row %d = %v, want %s with %d findings", i, rows[i], a.Hostname, a.Findings.Total)
		}
	}
	if got := csvRows(t, w.alice.do(t, "GET", "/api/assets?format=csv&search=pc-3", nil), assetCSVHeader); len(got) != 1 || got[0][1] != "pc-3" {
		t.Errorf("search=pc-3: %v", got)
	}
	if res := w.alice.do(t, "GET", "/api/assets?format=pdf", nil); res.Status != 400 {
		t.Errorf("format=pdf: %d", res.Status)
	}
}

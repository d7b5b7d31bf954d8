package report

import (
	"slices"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Findings fall in the age column of the days since they appeared (a bucket's bound is
// inclusive), count past the SLA only once older than the severity's window, and KEV
// findings are listed earliest due first, the ones without a due date last.
func TestComplianceAggregate(t *testing.T) {
	now := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	policy := appliance.SLAPolicy{Critical: 15, High: 30, Medium: 90, Low: 180}
	a := newAggregate(now, policy)
	day := func(n int) time.Time { return now.AddDate(0, 0, -n).Add(-3 * time.Hour) }
	findings := []appliance.OpenFinding{
		{ProductID: 1, ProductName: "openssl", CVEID: "CVE-1", Severity: "CRITICAL", FirstSeen: day(15)},
		{ProductID: 1, ProductName: "openssl", CVEID: "CVE-2", Severity: "critical", FirstSeen: day(16), KEV: true, KEVDue: now.AddDate(0, 0, -1)},
		{ProductID: 2, ProductName: "log4j", CVEID: "CVE-3", Severity: "high", FirstSeen: day(30), KEV: true},
		{ProductID: 2, ProductName: "log4j", CVEID: "CVE-4", Severity: "", FirstSeen: day(181), KEV: true, KEVDue: now.AddDate(0, 0, 5)},
		{ProductID: 3, ProductName: "zlib", CVEID: "CVE-5", Severity: "medium", FirstSeen: day(31)},
	}
	for _, f := range findings {
		if err := a.add(f); err != nil {
			t.Fatal(err)
		}
	}
	var c Compliance
	a.fill(&c)
	want := map[string]SeverityRow{
		"critical": {Severity: "critical", Open: 2, Ages: []int{2, 0, 0, 0}, SLADays: 15, PastSLA: 1},
		"high":     {Severity: "high", Open: 1, Ages: []int{1, 0, 0, 0}, SLADays: 30, PastSLA: 0},
		"medium":   {Severity: "medium", Open: 1, Ages: []int{0, 1, 0, 0}, SLADays: 90, PastSLA: 0},
		"low":      {Severity: "low", Ages: []int{0, 0, 0, 0}, SLADays: 180},
		"unknown":  {Severity: "unknown", Open: 1, Ages: []int{0, 0, 0, 1}, SLADays: 180, PastSLA: 1},
	}
	for _, row := range c.Severities {
		w := want[row.Severity]
		if row.Open != w.Open || !slices.Equal(row.Ages, w.Ages) || row.SLADays != w.SLADays || row.PastSLA != w.PastSLA {
			t.Errorf("%s: %+v, want %+v", row.Severity, row, w)
		}
	}
	if c.TotalOpen != 5 || c.PastSLA != 2 {
		t.Errorf("total %d, past SLA %d", c.TotalOpen, c.PastSLA)
	}
	var order []string
	for _, k := range c.KEV {
		order = append(order, k.CVEID)
	}
	if !slices.Equal(order, []string{"CVE-2", "CVE-4", "CVE-3"}) || !c.KEV[0].Overdue || c.KEV[1].Overdue {
		t.Errorf("KEV %+v", c.KEV)
	}
	if len(c.TopProducts) != 3 || c.TopProducts[0].Name != "openssl" || c.TopProducts[0].Critical != 2 || c.TopProducts[1].KEV != 2 {
		t.Errorf("top products %+v", c.TopProducts)
	}
}

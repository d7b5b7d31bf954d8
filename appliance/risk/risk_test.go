package risk

import (
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// The README's worked examples, and the fallbacks it documents.
func TestScoreAsDocumented(t *testing.T) {
	cvss := &appliance.CVSS{Version: "3.1", Score: 9.8, Source: "NVD"}
	due := time.Date(2026, 2, 16, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   Input
		want int
	}{
		{"KEV on a criticality-4 product", Input{CVSS: cvss, KEV: &appliance.KEVStatus{DueDate: due}, Criticality: 4}, 89},
		{"no exploit evidence at criticality 2", Input{CVSS: cvss, Criticality: 2}, 54},
		{"ransomware adds 5", Input{CVSS: cvss, KEV: &appliance.KEVStatus{Ransomware: true}, Criticality: 1}, 79},
		{"KEV outweighs EPSS", Input{CVSS: cvss, KEV: &appliance.KEVStatus{}, EPSS: &appliance.EPSSScore{Score: 0.9}, Criticality: 1}, 74},
		{"EPSS without KEV", Input{CVSS: cvss, EPSS: &appliance.EPSSScore{Score: 0.5}, Criticality: 1}, 62},
		{"severity without a score", Input{Severity: "high", Criticality: 1}, 38},
		{"nothing known", Input{Criticality: 1}, 25},
		{"capped at 100", Input{CVSS: &appliance.CVSS{Score: 10}, KEV: &appliance.KEVStatus{Ransomware: true}, Criticality: 5}, 100},
	}
	for _, tt := range tests {
		r := Score(tt.in)
		if r.Score != tt.want {
			t.Errorf("%s: %d, want %d (%+v)", tt.name, r.Score, tt.want, r.Factors)
		}
	}
	r := Score(Input{CVSS: cvss, KEV: &appliance.KEVStatus{DueDate: due}, Criticality: 4})
	if len(r.Factors) != 3 || r.Factors[1].Detail != "listed in CISA KEV (known exploited), due 2026-02-16" {
		t.Errorf("factors = %+v", r.Factors)
	}
}

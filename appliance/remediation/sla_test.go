package remediation

import (
	"testing"
	"time"
)

func date(s string) time.Time {
	d, err := time.Parse(DueDateLayout, s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		field  string // "" means valid
	}{
		{"default", DefaultPolicy(), ""},
		{"unordered is fine", Policy{Critical: 30, High: 7, Medium: 1, Low: 3650}, ""},
		{"zero critical", Policy{Critical: 0, High: 30, Medium: 90, Low: 180}, "sla.critical"},
		{"negative high", Policy{Critical: 15, High: -1, Medium: 90, Low: 180}, "sla.high"},
		{"medium too long", Policy{Critical: 15, High: 30, Medium: 3651, Low: 180}, "sla.medium"},
		{"low missing", Policy{Critical: 15, High: 30, Medium: 90}, "sla.low"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			requireValidation(t, err, tt.field, "range")
		})
	}
}

func TestDefaultPolicy(t *testing.T) {
	if p := DefaultPolicy(); p != (Policy{Critical: 15, High: 30, Medium: 90, Low: 180}) {
		t.Fatalf("DefaultPolicy() = %+v", p)
	}
}

func TestDueDate(t *testing.T) {
	// Late evening west of UTC is already the next UTC day: due dates count UTC days.
	now := time.Date(2026, 3, 1, 22, 30, 0, 0, time.FixedZone("EST", -5*3600))
	custom := Policy{Critical: 20, High: 10, Medium: 5, Low: 3}
	tests := []struct {
		name    string
		policy  Policy
		finding Finding
		want    string
	}{
		{"critical", DefaultPolicy(), Finding{Severity: "critical"}, "2026-03-17"},
		{"high", DefaultPolicy(), Finding{Severity: "high"}, "2026-04-01"},
		{"medium", DefaultPolicy(), Finding{Severity: "medium"}, "2026-05-31"},
		{"low", DefaultPolicy(), Finding{Severity: "low"}, "2026-08-29"},
		{"none gets the low window", DefaultPolicy(), Finding{Severity: "none"}, "2026-08-29"},
		{"empty gets the low window", DefaultPolicy(), Finding{}, "2026-08-29"},
		{"unknown gets the low window", DefaultPolicy(), Finding{Severity: "severe"}, "2026-08-29"},
		{"uppercase is tolerated", DefaultPolicy(), Finding{Severity: "HIGH"}, "2026-04-01"},
		{"KEV low gets the critical window", DefaultPolicy(), Finding{Severity: "low", KEV: true}, "2026-03-17"},
		{"KEV without severity", DefaultPolicy(), Finding{KEV: true}, "2026-03-17"},
		{"KEV keeps a shorter own window", custom, Finding{Severity: "low", KEV: true}, "2026-03-05"},
		{"KEV due date earlier", DefaultPolicy(), Finding{Severity: "high", KEV: true, KEVDue: date("2026-03-10")}, "2026-03-10"},
		{"KEV due date today", DefaultPolicy(), Finding{Severity: "high", KEV: true, KEVDue: date("2026-03-02")}, "2026-03-02"},
		{"KEV due date later", DefaultPolicy(), Finding{Severity: "high", KEV: true, KEVDue: date("2026-06-01")}, "2026-03-17"},
		{"KEV due date past is ignored", DefaultPolicy(), Finding{Severity: "high", KEV: true, KEVDue: date("2022-01-10")}, "2026-03-17"},
		{"KEV due date without KEV is ignored", DefaultPolicy(), Finding{Severity: "high", KEVDue: date("2026-03-10")}, "2026-04-01"},
		{"custom policy", custom, Finding{Severity: "medium"}, "2026-03-07"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DueDate(tt.policy, tt.finding, now)
			if !got.Equal(date(tt.want)) || got.Location() != time.UTC {
				t.Fatalf("DueDate = %v, want %s UTC", got, tt.want)
			}
		})
	}
}

func TestMostSevere(t *testing.T) {
	kevSoon := Finding{Severity: "medium", KEV: true, KEVDue: date("2026-03-05")}
	kevLater := Finding{Severity: "medium", KEV: true, KEVDue: date("2026-04-05")}
	tests := []struct {
		name     string
		findings []Finding
		want     Finding
	}{
		{"none", nil, Finding{}},
		{"one", []Finding{{Severity: "low"}}, Finding{Severity: "low"}},
		{"highest severity", []Finding{{Severity: "low"}, {Severity: "critical"}, {Severity: "high"}}, Finding{Severity: "critical"}},
		{"unknown ranks lowest", []Finding{{Severity: ""}, {Severity: "none"}, {Severity: "low"}}, Finding{Severity: "low"}},
		{"KEV low beats high", []Finding{{Severity: "high"}, {Severity: "low", KEV: true}}, Finding{Severity: "low", KEV: true}},
		{"KEV beats plain critical", []Finding{{Severity: "critical"}, {Severity: "medium", KEV: true}}, Finding{Severity: "medium", KEV: true}},
		{"earlier CISA date wins", []Finding{kevLater, kevSoon}, kevSoon},
		{"dated KEV beats undated", []Finding{{Severity: "high", KEV: true}, kevLater}, kevLater},
		{"ties keep the first", []Finding{{Severity: "high", KEV: false}, {Severity: "HIGH"}}, Finding{Severity: "high"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MostSevere(tt.findings); got != tt.want {
				t.Fatalf("MostSevere = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDueDateOfMostSevere(t *testing.T) {
	findings := []Finding{{Severity: "high"}, {Severity: "medium"}, {Severity: "low", KEV: true}}
	now := date("2026-01-01")
	if got := DueDate(DefaultPolicy(), MostSevere(findings), now); !got.Equal(date("2026-01-16")) {
		t.Fatalf("due %v, want 2026-01-16 (critical window from the KEV finding)", got)
	}
}

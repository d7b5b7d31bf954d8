package remediation

import (
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestParseDueDate(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time // zero means refused
	}{
		{"2031-01-31", time.Date(2031, 1, 31, 0, 0, 0, 0, time.UTC)},
		{"2028-02-29", time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"2027-02-29", time.Time{}},
		{"2031-13-01", time.Time{}},
		{"2031-1-31", time.Time{}},
		{"31-01-2031", time.Time{}},
		{"2031/01/31", time.Time{}},
		{"2031-01-31T00:00:00Z", time.Time{}},
		{" 2031-01-31", time.Time{}},
		{"", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDueDate(tt.in)
			if tt.want.IsZero() {
				requireValidation(t, err, "due_date", "format")
				return
			}
			if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Fatalf("ParseDueDate = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestOverdue(t *testing.T) {
	due := date("2026-03-10")
	tests := []struct {
		name   string
		status appliance.AssignmentStatus
		due    time.Time
		now    time.Time
		want   bool
	}{
		{"open before", appliance.AssignmentOpen, due, time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC), false},
		{"open on the due day", appliance.AssignmentOpen, due, time.Date(2026, 3, 10, 23, 59, 0, 0, time.UTC), false},
		{"open the day after", appliance.AssignmentOpen, due, time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC), true},
		{"in progress after", appliance.AssignmentInProgress, due, time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), true},
		{"resolved after", appliance.AssignmentResolved, due, time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), false},
		{"accepted risk after", appliance.AssignmentAcceptedRisk, due, time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), false},
		{"false positive after", appliance.AssignmentFalsePositive, due, time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), false},
		{"no due date", appliance.AssignmentOpen, time.Time{}, time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), false},
		{"local evening is next UTC day", appliance.AssignmentOpen, due, time.Date(2026, 3, 10, 20, 0, 0, 0, time.FixedZone("EST", -5*3600)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Overdue(tt.status, tt.due, tt.now); got != tt.want {
				t.Fatalf("Overdue = %v, want %v", got, tt.want)
			}
		})
	}
}

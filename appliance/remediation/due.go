package remediation

import (
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// DueDateLayout is the ISO calendar-date form of due dates on the wire.
const DueDateLayout = "2006-01-02"

// ParseDueDate accepts an ISO date only ("2031-01-31") and returns midnight UTC of that day.
func ParseDueDate(s string) (time.Time, error) {
	due, err := time.Parse(DueDateLayout, s)
	if err != nil {
		return time.Time{}, appliance.Invalid("due_date", "format", "due_date must be a date of the form YYYY-MM-DD")
	}
	return due, nil
}

// Overdue reports whether an active (open or in-progress) assignment has passed its due date.
// A due date is a whole UTC day: the assignment becomes overdue once that day is over.
// A zero due date never makes an assignment overdue.
func Overdue(status appliance.AssignmentStatus, due time.Time, now time.Time) bool {
	if !status.Active() || due.IsZero() {
		return false
	}
	return day(now).After(day(due))
}

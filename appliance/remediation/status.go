// Package remediation holds the rules of remediation assignments: the status workflow,
// priorities, and the SLA policy that derives due dates from the findings a target covers.
package remediation

import (
	"slices"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Status is where an assignment stands in the remediation workflow.
type Status string

// Statuses. Open and in_progress are active: the SLA clock runs. The other three close the
// assignment; accepted_risk and false_positive record a decision and so need a note saying why.
const (
	StatusOpen          Status = "open"
	StatusInProgress    Status = "in_progress"
	StatusResolved      Status = "resolved"
	StatusAcceptedRisk  Status = "accepted_risk"
	StatusFalsePositive Status = "false_positive"
)

// Statuses lists every status in workflow order.
func Statuses() []Status {
	return []Status{StatusOpen, StatusInProgress, StatusResolved, StatusAcceptedRisk, StatusFalsePositive}
}

// ParseStatus accepts exactly one of the status names.
func ParseStatus(s string) (Status, error) {
	status := Status(s)
	if !status.valid() {
		return "", appliance.Invalid("status", "enum", "status must be one of %s", joinStatuses(Statuses()))
	}
	return status, nil
}

func (s Status) valid() bool { return slices.Contains(Statuses(), s) }

// Active reports whether work is still due: open or in progress.
func (s Status) Active() bool { return s == StatusOpen || s == StatusInProgress }

// NeedsNote reports whether entering s requires a justification.
func (s Status) NeedsNote() bool { return s == StatusAcceptedRisk || s == StatusFalsePositive }

func joinStatuses(statuses []Status) string {
	names := make([]string, len(statuses))
	for i, s := range statuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

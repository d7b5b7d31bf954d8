// Package remediation holds the rules of remediation assignments: the status workflow,
// priorities, and the SLA policy that derives due dates from the findings a target covers.
package remediation

import (
	"slices"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Statuses lists every status in workflow order.
func Statuses() []appliance.AssignmentStatus {
	return []appliance.AssignmentStatus{appliance.AssignmentOpen, appliance.AssignmentInProgress, appliance.AssignmentResolved, appliance.AssignmentAcceptedRisk, appliance.AssignmentFalsePositive}
}

// ParseStatus accepts exactly one of the status names.
func ParseStatus(s string) (appliance.AssignmentStatus, error) {
	status := appliance.AssignmentStatus(s)
	if !slices.Contains(Statuses(), status) {
		return "", appliance.Invalid("status", "enum", "status must be one of %s", joinStatuses(Statuses()))
	}
	return status, nil
}

func joinStatuses(statuses []appliance.AssignmentStatus) string {
	names := make([]string, len(statuses))
	for i, s := range statuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

package remediation

import "github.com/vulnkeeper/vulnkeeper/appliance"

// Priority orders assignments for the people working on them.
type Priority string

// Priorities; an assignment created without one gets DefaultPriority.
const (
	PriorityCritical Priority = "critical"
	PriorityHigh     Priority = "high"
	PriorityMedium   Priority = "medium"
	PriorityLow      Priority = "low"

	DefaultPriority = PriorityMedium
)

// ParsePriority accepts exactly one of the lowercase priority names; empty means the default.
func ParsePriority(s string) (Priority, error) {
	switch p := Priority(s); p {
	case "":
		return DefaultPriority, nil
	case PriorityCritical, PriorityHigh, PriorityMedium, PriorityLow:
		return p, nil
	}
	return "", appliance.Invalid("priority", "enum", "priority must be one of critical, high, medium, low")
}

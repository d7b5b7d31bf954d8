package remediation

import (
	"slices"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// NextStatuses is the transition table: the statuses an assignment may move to from one.
//
//	from \ to       open  in_progress  resolved  accepted_risk  false_positive
//	open             -        yes        yes       yes (note)     yes (note)
//	in_progress     yes        -         yes       yes (note)     yes (note)
//	resolved        yes        no         -           no             no
//	accepted_risk   yes       yes        yes           -             no
//	false_positive  yes        no         no          no              -
//
// Every closed status can be reopened (the fix regressed, the acceptance was revoked, the
// triage was wrong). A closed assignment does not jump to another closed status: it is
// reopened first, so the history shows why the decision changed. An accepted risk may still
// be worked on or fixed later, hence accepted_risk -> in_progress and -> resolved.
func NextStatuses(from Status) []Status {
	switch from {
	case StatusOpen:
		return []Status{StatusInProgress, StatusResolved, StatusAcceptedRisk, StatusFalsePositive}
	case StatusInProgress:
		return []Status{StatusOpen, StatusResolved, StatusAcceptedRisk, StatusFalsePositive}
	case StatusResolved, StatusFalsePositive:
		return []Status{StatusOpen}
	case StatusAcceptedRisk:
		return []Status{StatusOpen, StatusInProgress, StatusResolved}
	}
	return nil
}

// Transition checks a status change. Staying in the same status is always allowed (an
// update of other fields). A forbidden change is a "status"/"transition" ValidationError;
// entering accepted_risk or false_positive with a blank note is a "notes"/"required" one.
func Transition(from, to Status, note string) error {
	if !from.valid() || !to.valid() {
		return appliance.Invalid("status", "enum", "status must be one of %s", joinStatuses(Statuses()))
	}
	if from == to {
		return nil
	}
	if !slices.Contains(NextStatuses(from), to) {
		return appliance.Invalid("status", "transition", "cannot change status from %s to %s (allowed: %s)",
			from, to, joinStatuses(NextStatuses(from)))
	}
	if to.NeedsNote() && strings.TrimSpace(note) == "" {
		return appliance.Invalid("notes", "required", "a note explaining why is required to set status %s", to)
	}
	return nil
}

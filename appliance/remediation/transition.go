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
func NextStatuses(from appliance.AssignmentStatus) []appliance.AssignmentStatus {
	switch from {
	case appliance.AssignmentOpen:
		return []appliance.AssignmentStatus{appliance.AssignmentInProgress, appliance.AssignmentResolved, appliance.AssignmentAcceptedRisk, appliance.AssignmentFalsePositive}
	case appliance.AssignmentInProgress:
		return []appliance.AssignmentStatus{appliance.AssignmentOpen, appliance.AssignmentResolved, appliance.AssignmentAcceptedRisk, appliance.AssignmentFalsePositive}
	case appliance.AssignmentResolved, appliance.AssignmentFalsePositive:
		return []appliance.AssignmentStatus{appliance.AssignmentOpen}
	case appliance.AssignmentAcceptedRisk:
		return []appliance.AssignmentStatus{appliance.AssignmentOpen, appliance.AssignmentInProgress, appliance.AssignmentResolved}
	}
	return nil
}

// Transition checks a status change. Staying in the same status is always allowed (an
// update of other fields). A forbidden change is a "status"/"transition" ValidationError;
// entering accepted_risk or false_positive with a blank note is a "notes"/"required" one.
func Transition(from, to appliance.AssignmentStatus, note string) error {
	if !slices.Contains(Statuses(), from) || !slices.Contains(Statuses(), to) {
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

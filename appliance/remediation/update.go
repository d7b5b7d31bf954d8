package remediation

import (
	"context"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

var assignmentSorts = map[string]bool{"due_date": true, "priority": true, "created_at": true, "updated_at": true}

// ValidateAssignmentFilter checks the enumerated filters and the sort key; page bounds are
// the caller's.
func ValidateAssignmentFilter(f appliance.AssignmentFilter) error {
	if f.Status != "" {
		if _, err := ParseStatus(string(f.Status)); err != nil {
			return err
		}
	}
	if f.Priority != "" {
		if _, err := ParsePriority(f.Priority); err != nil {
			return err
		}
	}
	if f.Sort != "" && !assignmentSorts[f.Sort] {
		return appliance.Invalid("sort", "enum", "sort must be one of due_date, priority, created_at, updated_at")
	}
	return nil
}

// List returns one page of the organization's assignments.
func (r *Remediation) List(ctx context.Context, f appliance.AssignmentFilter) ([]Record, int, error) {
	if err := ValidateAssignmentFilter(f); err != nil {
		return nil, 0, err
	}
	f.Today = r.now().UTC()
	items, total, err := r.store.ListAssignments(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Record, len(items))
	for i, a := range items {
		out[i] = r.record(a)
	}
	return out, total, nil
}

// Each streams the assignments the filter selects, pages ignored (exports).
func (r *Remediation) Each(ctx context.Context, f appliance.AssignmentFilter, fn func(Record) error) error {
	if err := ValidateAssignmentFilter(f); err != nil {
		return err
	}
	f.Today = r.now().UTC()
	return r.store.EachAssignment(ctx, f, func(a appliance.Assignment) error { return fn(r.record(a)) })
}

// Update changes status (by the workflow's rules), assignee, priority, due date and notes;
// any member of the organization may. The targets of an assignment are fixed.
func (r *Remediation) Update(ctx context.Context, actor appliance.User, id int64, in Input) (Record, error) {
	if err := immutableTargets(in); err != nil {
		return Record{}, err
	}
	a, err := r.store.AssignmentByID(ctx, actor.OrganizationID, id)
	if err != nil {
		return Record{}, assignmentErr(err, id)
	}
	from := a.Status
	if err := r.apply(ctx, &a, in); err != nil {
		return Record{}, err
	}
	now := r.now().UTC()
	a.UpdatedAt = now
	if a.Status != from {
		a.ResolvedAt = closedAt(a.Status, now)
	}
	err = r.store.InTx(ctx, func(tx appliance.Tx) error {
		if err := tx.UpdateAssignment(ctx, a); err != nil {
			return err
		}
		if a.Status == from {
			return nil
		}
		if err := tx.AddAssignmentEvent(ctx, appliance.AssignmentEvent{AssignmentID: a.ID, At: now, From: from, To: a.Status,
			Note: deref(in.Notes), By: actor.ID}); err != nil {
			return err
		}
		if r.onStatus == nil {
			return nil
		}
		return r.onStatus(ctx, tx, actor, a)
	})
	if err != nil {
		return Record{}, assignmentErr(err, id)
	}
	return r.Get(ctx, actor.OrganizationID, id)
}

// closedAt is when an assignment entering status was closed: now, or zero when reopened.
func closedAt(status appliance.AssignmentStatus, now time.Time) time.Time {
	if status.Active() {
		return time.Time{}
	}
	return now
}

func immutableTargets(in Input) error {
	for field, given := range map[string]bool{"match_id": in.MatchID != nil, "product_id": in.ProductID != nil, "cve_id": in.CVEID != nil} {
		if given {
			return appliance.Invalid(field, "immutable", "the target of an assignment cannot change; create a new one")
		}
	}
	return nil
}

// apply validates and sets the given fields on a.
func (r *Remediation) apply(ctx context.Context, a *appliance.Assignment, in Input) error {
	if in.Notes != nil {
		notes, err := checkNotes(in.Notes)
		if err != nil {
			return err
		}
		a.Notes = notes
	}
	if in.Status != nil {
		to, err := ParseStatus(*in.Status)
		if err != nil {
			return err
		}
		if err := Transition(a.Status, to, a.Notes); err != nil {
			return err
		}
		a.Status = to
	}
	return r.applyFields(ctx, a, in)
}

func (r *Remediation) applyFields(ctx context.Context, a *appliance.Assignment, in Input) error {
	if in.AssignedTo != nil {
		u, err := r.assignee(ctx, a.OrganizationID, in.AssignedTo)
		if err != nil {
			return err
		}
		a.AssignedTo = u.ID
	}
	if in.Priority != nil {
		p, err := ParsePriority(*in.Priority)
		if err != nil {
			return err
		}
		a.Priority = string(p)
	}
	if in.DueDate != nil {
		due, err := ParseDueDate(*in.DueDate)
		if err != nil {
			return err
		}
		a.DueDate = due
	}
	return nil
}

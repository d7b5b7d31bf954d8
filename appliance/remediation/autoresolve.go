package remediation

import (
	"context"
	"fmt"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// AutoResolve moves every open or in-progress assignment whose finding has disappeared
// (match removed, product deleted or no longer installed, CVE neither matched nor scanned in
// the organization) to resolved, with a system event in its history. Call it after an
// inventory submission, a re-match or a product deletion; container scans call it themselves.
func (r *Remediation) AutoResolve(ctx context.Context) (int, error) {
	return ResolveVanished(ctx, r.store, r.now)
}

// ResolveVanished is AutoResolve for callers that hold no Remediation (container scans).
func ResolveVanished(ctx context.Context, store VanishingStore, now func() time.Time) (int, error) {
	candidates, err := store.VanishedAssignments(ctx)
	if err != nil || len(candidates) == 0 {
		return 0, err
	}
	resolved := 0
	at := now().UTC()
	err = store.InTx(ctx, func(tx appliance.Tx) error {
		vanished, err := tx.VanishedAssignments(ctx) // again, under the write lock
		if err != nil {
			return err
		}
		for _, a := range vanished {
			if err := resolveVanished(ctx, tx, a, at); err != nil {
				return err
			}
		}
		resolved = len(vanished)
		return nil
	})
	return resolved, err
}

func resolveVanished(ctx context.Context, tx appliance.Tx, a appliance.Assignment, at time.Time) error {
	from := a.Status
	a.Status, a.ResolvedAt, a.UpdatedAt = appliance.AssignmentResolved, at, at
	if err := tx.UpdateAssignment(ctx, a); err != nil {
		return fmt.Errorf("resolve assignment %d: %w", a.ID, err)
	}
	return tx.AddAssignmentEvent(ctx, appliance.AssignmentEvent{AssignmentID: a.ID, At: at, From: from, To: a.Status,
		Note: vanishedNote(a)})
}

// vanishedNote says, in the history, why the system closed the assignment.
func vanishedNote(a appliance.Assignment) string {
	const prefix = "resolved automatically: "
	switch {
	case a.MatchID != 0:
		return fmt.Sprintf("%sthe finding (match %d, %s) is gone: match removed or product no longer installed", prefix, a.MatchID, a.CVEID)
	case a.ProductID != 0:
		return fmt.Sprintf("%sproduct %d is deleted or no longer installed", prefix, a.ProductID)
	}
	return fmt.Sprintf("%s%s is no longer matched or scanned in this organization", prefix, a.CVEID)
}

package remediation

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Remediation manages remediation assignments and the organization's SLA policy.
// Store is what the remediation service reads, and the transaction it writes in.
type Store interface {
	appliance.RemediationReader
	targetReader
	UserInOrganization(ctx context.Context, orgID int64, username string) (appliance.User, error)
	appliance.Transactor
}

// VanishingStore is what closing vanished assignments needs.
type VanishingStore interface {
	VanishedAssignments(ctx context.Context) ([]appliance.Assignment, error)
	appliance.Transactor
}

type Remediation struct {
	store Store
	log   *slog.Logger
	now   func() time.Time
	// onStatus runs in the transaction of a status change (triage turns false_positive and
	// accepted_risk into rules).
	onStatus StatusHook
}

// StatusHook runs inside the transaction that changes an assignment's status; its error
// rolls the change back.
type StatusHook func(ctx context.Context, tx appliance.Tx, actor appliance.User, a appliance.Assignment) error

// OnStatusChange registers fn to run inside the transaction of every status change.
func (r *Remediation) OnStatusChange(fn StatusHook) { r.onStatus = fn }

// NewRemediation builds the service; log may be nil.
func NewRemediation(store Store, log *slog.Logger) *Remediation {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Remediation{store: store, log: log, now: time.Now}
}

// Record is an assignment as shown: with its derived overdue flag and, from Get, its history.
type Record struct {
	appliance.Assignment
	Overdue bool
	History []appliance.AssignmentEvent
}

// Input is a create or a partial update; nil fields are absent.
type Input struct {
	AssignedTo *string
	MatchID    *int64
	ProductID  *int64
	CVEID      *string
	Priority   *string
	DueDate    *string
	Notes      *string
	Status     *string
}

// Remediation list bounds.
const (
	DefaultAssignmentsPerPage = 25
	MaxAssignmentsPerPage     = 100
	maxNotes                  = 10000
	maxCVEID                  = 64
)

var errAdminOnly = appliance.Forbidden("only an organization admin may do this")

func requireAdmin(actor appliance.User) error {
	if actor.Role != appliance.RoleOrgAdmin {
		return errAdminOnly
	}
	return nil
}

func (r *Remediation) record(a appliance.Assignment) Record {
	return Record{Assignment: a, Overdue: Overdue(a.Status, a.DueDate, r.now())}
}

// Create hands a finding to a person of the actor's organization (org_admin only). Without a
// due date one is derived from the most severe finding the target covers.
func (r *Remediation) Create(ctx context.Context, actor appliance.User, in Input) (Record, error) {
	if err := requireAdmin(actor); err != nil {
		return Record{}, err
	}
	orgID := actor.OrganizationID
	assignee, err := r.assignee(ctx, orgID, in.AssignedTo)
	if err != nil {
		return Record{}, err
	}
	priority, err := ParsePriority(deref(in.Priority))
	if err != nil {
		return Record{}, err
	}
	notes, err := checkNotes(in.Notes)
	if err != nil {
		return Record{}, err
	}
	t, err := resolveTarget(ctx, r.store, orgID, in)
	if err != nil {
		return Record{}, err
	}
	now := r.now().UTC()
	a := appliance.Assignment{OrganizationID: orgID, Status: appliance.AssignmentOpen, AssignedTo: assignee.ID,
		MatchID: t.matchID, ProductID: t.productID, CVEID: t.cveID, Priority: string(priority), Notes: notes,
		WatchFinding: t.present, CreatedBy: actor.ID, CreatedAt: now, UpdatedAt: now}
	if a.DueDate, a.KEVDueDate, err = r.dueDate(ctx, orgID, in.DueDate, t.findings, now); err != nil {
		return Record{}, err
	}
	err = r.store.InTx(ctx, func(tx appliance.Tx) error {
		if a.ID, err = tx.CreateAssignment(ctx, a); err != nil {
			return err
		}
		return tx.AddAssignmentEvent(ctx, appliance.AssignmentEvent{AssignmentID: a.ID, At: now, To: a.Status,
			Note: "assigned to " + assignee.Username, By: actor.ID})
	})
	if err != nil {
		return Record{}, err
	}
	return r.Get(ctx, orgID, a.ID)
}

// assignee finds a username among the users of the organization.
func (r *Remediation) assignee(ctx context.Context, orgID int64, name *string) (appliance.User, error) {
	username := strings.TrimSpace(deref(name))
	if username == "" {
		return appliance.User{}, appliance.Invalid("assigned_to", "required", "assigned_to (a username) is required")
	}
	u, err := r.store.UserInOrganization(ctx, orgID, username)
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.User{}, appliance.Invalid("assigned_to", "exists", "no user %q in your organization", username)
	}
	return u, err
}

func checkNotes(notes *string) (string, error) {
	n := strings.TrimSpace(deref(notes))
	if len([]rune(n)) > maxNotes {
		return "", appliance.Invalid("notes", "max_length", "notes must have at most %d characters", maxNotes)
	}
	return n, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Get returns one assignment of the organization with its history.
func (r *Remediation) Get(ctx context.Context, orgID, id int64) (Record, error) {
	a, err := r.store.AssignmentByID(ctx, orgID, id)
	if err != nil {
		return Record{}, assignmentErr(err, id)
	}
	history, err := r.store.AssignmentEvents(ctx, orgID, id)
	if err != nil {
		return Record{}, err
	}
	rec := r.record(a)
	rec.History = history
	return rec, nil
}

func assignmentErr(err error, id int64) error {
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.NotFound("assignment %d does not exist", id)
	}
	return err
}

// Delete removes an assignment and its history (org_admin only).
func (r *Remediation) Delete(ctx context.Context, actor appliance.User, id int64) error {
	if err := requireAdmin(actor); err != nil {
		return err
	}
	err := r.store.InTx(ctx, func(tx appliance.Tx) error { return tx.DeleteAssignment(ctx, actor.OrganizationID, id) })
	return assignmentErr(err, id)
}

// SetClock makes the service read the time from now instead of the wall clock (tests and
// replays).
func (x *Remediation) SetClock(now func() time.Time) { x.now = now }

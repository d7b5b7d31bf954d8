package appliance

import (
	"context"
	"time"
)

// Assignment is a remediation task: a finding handed to a person with a due date. Status and
// Priority hold the values of the remediation package.
type Assignment struct {
	ID             int64
	OrganizationID int64
	Status         AssignmentStatus
	AssignedTo     int64
	AssignedToName string // username; read only
	MatchID        int64  // 0 when not targeted
	ProductID      int64  // 0 when not targeted
	CVEID          string // "" when not targeted
	ProductName    string // read only
	Priority       string
	DueDate        time.Time
	KEVDueDate     time.Time // CISA's federal due date of the driving CVE; shown, not used
	Notes          string
	WatchFinding   bool // the finding was present at creation; its disappearance resolves
	CreatedBy      int64
	CreatedByName  string // read only
	CreatedAt      time.Time
	UpdatedAt      time.Time
	ResolvedAt     time.Time
}

// AssignmentEvent is one line of an assignment's history; By is 0 for the system.
type AssignmentEvent struct {
	AssignmentID int64
	At           time.Time
	From, To     AssignmentStatus
	Note         string
	By           int64
}

// AssignmentFilter selects and orders one organization's assignments. Overdue keeps active
// assignments whose due date lies before Today.
type AssignmentFilter struct {
	OrganizationID int64
	Status         AssignmentStatus
	Priority       string
	AssignedTo     string // username
	CVEID          string
	ProductID      int64
	Overdue        bool
	Today          time.Time
	Search         string // notes, CVE id, product name
	Sort           string // due_date, priority, created_at, updated_at
	Desc           bool
	Page, PerPage  int
}

// SLAPolicy is an organization's stored remediation windows in days.
type SLAPolicy struct {
	OrganizationID              int64
	Critical, High, Medium, Low int
	UpdatedAt                   time.Time
}

// FindingFacts is what the SLA needs of one vulnerability.
type FindingFacts struct {
	CVEID    string
	Severity string // CVSS severity as stored (any case); empty when unknown
	KEV      bool
	KEVDue   time.Time
}

// MatchRef is a stored match of a live product of an organization.
type MatchRef struct {
	ID, ProductID int64
	CVEID         string
}

// RemediationReader looks up assignments, SLA policies and the facts of findings.
type RemediationReader interface {
	AssignmentByID(ctx context.Context, orgID, id int64) (Assignment, error)
	ListAssignments(ctx context.Context, f AssignmentFilter) ([]Assignment, int, error)
	// EachAssignment streams every assignment the filter selects (pages ignored), in list order.
	EachAssignment(ctx context.Context, f AssignmentFilter, fn func(Assignment) error) error
	AssignmentEvents(ctx context.Context, orgID, id int64) ([]AssignmentEvent, error)
	// SLAPolicy is ErrNotFound while the organization has not stored one.
	SLAPolicy(ctx context.Context, orgID int64) (SLAPolicy, error)
	// MatchInOrganization finds a match of a non-deleted product of the organization.
	MatchInOrganization(ctx context.Context, orgID, matchID int64) (MatchRef, error)
	// CVEFacts reads severity and KEV listing of a CVE; ErrNotFound when neither the CVE
	// data nor the KEV catalogue knows it.
	CVEFacts(ctx context.Context, cveID string) (FindingFacts, error)
	// CVEMatchedInOrganization reports whether a live, installed product of the organization
	// matches cveID.
	CVEMatchedInOrganization(ctx context.Context, orgID int64, cveID string) (bool, error)
	// VanishedAssignments lists active, watched assignments (all organizations) whose
	// finding is gone: match removed, product deleted or no longer installed, CVE neither
	// matched nor scanned in the organization.
	VanishedAssignments(ctx context.Context) ([]Assignment, error)
}

// RemediationWriter changes assignments and SLA policies.
type RemediationWriter interface {
	CreateAssignment(ctx context.Context, a Assignment) (int64, error)
	// UpdateAssignment writes status, assignee, priority, due date, notes, updated_at and
	// resolved_at of a within its organization.
	UpdateAssignment(ctx context.Context, a Assignment) error
	DeleteAssignment(ctx context.Context, orgID, id int64) error
	AddAssignmentEvent(ctx context.Context, e AssignmentEvent) error
	SaveSLAPolicy(ctx context.Context, p SLAPolicy) error
}

// AssignmentStatus is where an assignment stands in the remediation workflow (the transitions
// between them are appliance/remediation's rules).
type AssignmentStatus string

// The statuses. Open and in_progress are active: the SLA clock runs. The other three close the
// assignment; accepted_risk and false_positive record a decision and so need a note saying why.
const (
	AssignmentOpen          AssignmentStatus = "open"
	AssignmentInProgress    AssignmentStatus = "in_progress"
	AssignmentResolved      AssignmentStatus = "resolved"
	AssignmentAcceptedRisk  AssignmentStatus = "accepted_risk"
	AssignmentFalsePositive AssignmentStatus = "false_positive"
)

// Active reports whether work is still due: open or in progress.
func (s AssignmentStatus) Active() bool { return s == AssignmentOpen || s == AssignmentInProgress }

// NeedsNote reports whether entering s requires a justification.
func (s AssignmentStatus) NeedsNote() bool {
	return s == AssignmentAcceptedRisk || s == AssignmentFalsePositive
}

// OpenFinding is one finding of an installed product that nobody dismissed (accepted risk or
// false positive), with what the compliance report needs.
type OpenFinding struct {
	ProductID                   int64
	ProductName, ProductVersion string
	CVEID, Severity             string
	FirstSeen                   time.Time // when the match appeared
	KEV                         bool
	KEVDue                      time.Time
}

// HostFindings counts one host's open findings.
type HostFindings struct {
	Hostname       string
	Open, Critical int
}

// AssignmentOutcomes are an organization's assignment counts: closed (resolved) and of those
// closed by their due date; open or in progress and of those past their due date today.
type AssignmentOutcomes struct {
	Closed, ClosedOnTime, Open, Overdue int
}

// ReportReader reads what the reports aggregate.
type ReportReader interface {
	EachOpenFinding(ctx context.Context, orgID int64, fn func(OpenFinding) error) error
	TopHosts(ctx context.Context, orgID int64, limit int) ([]HostFindings, error)
	AssignmentOutcomes(ctx context.Context, orgID int64, today time.Time) (AssignmentOutcomes, error)
}

package appliance

import (
	"context"
	"time"
)

// TriageRule is a person's (or a vendor's) standing decision about findings: for one CVE (or
// every CVE of a product), on a scope, the state is State because Justification, until
// ExpiresAt. Values of Scope, State and Justification are the triage package's.
type TriageRule struct {
	ID             int64
	OrganizationID int64
	CVEID          string // "" for every CVE of the product
	Scope          string
	Product        string // version-less identity: "cpe:2.3:a:vendor:product", "pkg:npm/name", "product:vendor/name"
	VersionStart   string // inclusive, "" for no lower bound (version_range scope)
	VersionEnd     string // exclusive, "" for no upper bound (version_range scope)
	AssetID        int64  // host scope
	Tag            string // tag scope
	State          string
	Justification  string
	Note           string
	Author         string // who decided: a username, or the vendor of an imported VEX document
	ExpiresAt      time.Time
	CreatedBy      int64
	CreatedAt      time.Time
	UpdatedBy      int64
	UpdatedAt      time.Time
	DeletedAt      time.Time
}

// TriageEvent is one line of a rule's audit trail: the rule as it was after Action.
type TriageEvent struct {
	ID     int64
	RuleID int64
	At     time.Time
	Action string // created, updated, deleted
	By     int64
	ByName string // read only
	Rule   TriageRule
}

// TriageState is the decision in force on one finding (product, CVE).
type TriageState struct {
	RuleID        int64
	State         string
	Justification string
	ExpiresAt     time.Time
	Suppresses    bool // the finding leaves counts, lists and SLAs
}

// SuppressedAt reports whether the state hides its finding at now.
func (t *TriageState) SuppressedAt(now time.Time) bool {
	return t != nil && t.Suppresses && (t.ExpiresAt.IsZero() || now.Before(t.ExpiresAt))
}

// TriageFinding is a current finding with what rules need to decide about it: a product's
// match, or a package of a scanned container image (ContainerImageID set; Product then holds
// the package: Vendor the scanner's package type, Name the package, Version the installed one).
type TriageFinding struct {
	ProductID        int64
	ContainerImageID int64
	Product          Product // lean: identity, version, package facts
	CVEID            string
	AssetIDs         []int64            // hosts that have the product (or run the image) now
	HostTags         map[int64][]string // the tags of those hosts (shared between findings; read only)
}

// AppliedTriage is a decision recorded on one finding: of a product (ProductID, CVEID) or of
// a container image's package (ContainerImageID, CVEID, PackageName).
type AppliedTriage struct {
	ProductID        int64
	ContainerImageID int64
	PackageName      string
	CVEID            string
	TriageState
}

// TriageReader reads rules, their history and the findings they decide about.
type TriageReader interface {
	// TriageRules lists the organization's live rules (deleted ones keep only their history).
	TriageRules(ctx context.Context, orgID int64) ([]TriageRule, error)
	TriageRule(ctx context.Context, orgID, id int64) (TriageRule, error)
	// TriageEvents is the history of a rule of the organization, deleted or not, oldest first.
	TriageEvents(ctx context.Context, orgID, ruleID int64) ([]TriageEvent, error)
	// TriageFindings lists the organization's current findings (matches of live products).
	TriageFindings(ctx context.Context, orgID int64) ([]TriageFinding, error)
	// TriageOrganizations lists the organizations with live rules or recorded decisions.
	TriageOrganizations(ctx context.Context) ([]int64, error)
	// TriageExpiredBy lists organizations with a recorded decision whose expiry is not after now.
	TriageExpiredBy(ctx context.Context, now time.Time) ([]int64, error)
	// TriageHost finds a host of the organization.
	TriageHost(ctx context.Context, orgID, assetID int64) (AssetRef, error)
}

// TriageWriter changes rules and the decisions in force.
type TriageWriter interface {
	CreateTriageRule(ctx context.Context, r TriageRule) (int64, error)
	// UpdateTriageRule writes a rule's current state; its history is appended separately.
	UpdateTriageRule(ctx context.Context, r TriageRule) error
	AddTriageEvent(ctx context.Context, e TriageEvent) error
	// ReplaceAppliedTriage makes the organization's recorded decisions exactly ds.
	ReplaceAppliedTriage(ctx context.Context, orgID int64, ds []AppliedTriage) error
}

// Package report builds the per-organization reports: the one-page compliance summary of
// open findings, their age and SLA standing, KEV due dates and the most affected hosts and
// products.
package report

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
)

// Store is what the reports read.
type Store interface {
	OrganizationByID(ctx context.Context, id int64) (appliance.Organization, error)
	EachOpenFinding(ctx context.Context, orgID int64, fn func(appliance.OpenFinding) error) error
	TopHosts(ctx context.Context, orgID int64, limit int) ([]appliance.HostFindings, error)
	AssignmentOutcomes(ctx context.Context, orgID int64, today time.Time) (appliance.AssignmentOutcomes, error)
}

// PolicyFunc returns the organization's SLA policy (remediation's, defaults included).
type PolicyFunc func(ctx context.Context, orgID int64) (appliance.SLAPolicy, error)

// Reports builds reports over the store.
type Reports struct {
	store  Store
	policy PolicyFunc
	Now    func() time.Time
}

// New builds the reports service.
func New(store Store, policy PolicyFunc) *Reports {
	return &Reports{store: store, policy: policy, Now: time.Now}
}

// Severities in report order; findings without a severity count as unknown.
var Severities = []string{"critical", "high", "medium", "low", "unknown"}

// AgeBuckets are the upper bounds (days since the finding appeared) of each age column; the
// last column takes everything older.
var AgeBuckets = []int{30, 90, 180}

// Limits of the report's lists.
const (
	TopN     = 10
	KEVLimit = 25
)

// SeverityRow is one severity's open findings.
type SeverityRow struct {
	Severity string
	Open     int
	Ages     []int // one count per AgeBuckets entry, then the older ones
	SLADays  int   // the policy's window
	PastSLA  int   // open longer than SLADays
}

// SLA is the standing of the remediation assignments.
type SLA struct {
	Closed, ClosedOnTime int
	OnTimePercent        float64 // of Closed; meaningless when Closed is 0
	Open, OverdueNow     int
}

// KEVItem is one open finding of a CVE in CISA's KEV catalogue.
type KEVItem struct {
	CVEID, Product, Version string
	DueDate                 time.Time // zero: KEV names none
	Overdue                 bool
}

// ProductRow is one of the most affected products.
type ProductRow struct {
	Name, Version       string
	Open, Critical, KEV int
}

// Compliance is the one-page report of one organization.
type Compliance struct {
	Organization appliance.Organization
	GeneratedAt  time.Time
	Policy       appliance.SLAPolicy
	TotalOpen    int
	PastSLA      int
	Severities   []SeverityRow
	SLA          SLA
	KEV          []KEVItem
	KEVTotal     int
	TopHosts     []appliance.HostFindings
	TopProducts  []ProductRow
}

// Compliance builds the report of the organization now.
func (r *Reports) Compliance(ctx context.Context, orgID int64) (Compliance, error) {
	now := r.Now().UTC()
	org, err := r.store.OrganizationByID(ctx, orgID)
	if err != nil {
		return Compliance{}, err
	}
	policy, err := r.policy(ctx, orgID)
	if err != nil {
		return Compliance{}, err
	}
	c := Compliance{Organization: org, GeneratedAt: now, Policy: policy}
	agg := newAggregate(now, policy)
	if err := r.store.EachOpenFinding(ctx, orgID, agg.add); err != nil {
		return Compliance{}, err
	}
	agg.fill(&c)
	if c.TopHosts, err = r.store.TopHosts(ctx, orgID, TopN); err != nil {
		return Compliance{}, err
	}
	out, err := r.store.AssignmentOutcomes(ctx, orgID, now)
	if err != nil {
		return Compliance{}, err
	}
	c.SLA = SLA{Closed: out.Closed, ClosedOnTime: out.ClosedOnTime, Open: out.Open, OverdueNow: out.Overdue}
	if out.Closed > 0 {
		c.SLA.OnTimePercent = 100 * float64(out.ClosedOnTime) / float64(out.Closed)
	}
	return c, nil
}

// aggregate folds the open findings into the report's tables.
type aggregate struct {
	today    time.Time
	policy   appliance.SLAPolicy
	rows     map[string]*SeverityRow
	products map[int64]*ProductRow
	kev      []KEVItem
}

func newAggregate(now time.Time, policy appliance.SLAPolicy) *aggregate {
	a := &aggregate{today: now.Truncate(24 * time.Hour), policy: policy, rows: map[string]*SeverityRow{}, products: map[int64]*ProductRow{}}
	for _, s := range Severities {
		a.rows[s] = &SeverityRow{Severity: s, Ages: make([]int, len(AgeBuckets)+1), SLADays: slaDays(policy, s)}
	}
	return a
}

// slaDays is the policy's window for a severity (remediation's rule: unknown takes the low window).
func slaDays(p appliance.SLAPolicy, severity string) int {
	return remediation.Policy{Critical: p.Critical, High: p.High, Medium: p.Medium, Low: p.Low}.Days(severity)
}

func (a *aggregate) add(f appliance.OpenFinding) error {
	sev := strings.ToLower(f.Severity)
	row, ok := a.rows[sev]
	if !ok {
		row = a.rows["unknown"]
	}
	age := int(a.today.Sub(f.FirstSeen.UTC().Truncate(24*time.Hour)).Hours() / 24)
	row.Open++
	row.Ages[ageBucket(age)]++
	if age > row.SLADays {
		row.PastSLA++
	}
	p := a.products[f.ProductID]
	if p == nil {
		p = &ProductRow{Name: f.ProductName, Version: f.ProductVersion}
		a.products[f.ProductID] = p
	}
	p.Open++
	if row.Severity == "critical" {
		p.Critical++
	}
	if f.KEV {
		p.KEV++
		due := f.KEVDue
		a.kev = append(a.kev, KEVItem{CVEID: f.CVEID, Product: f.ProductName, Version: f.ProductVersion, DueDate: due,
			Overdue: !due.IsZero() && due.Before(a.today)})
	}
	return nil
}

func ageBucket(days int) int {
	for i, limit := range AgeBuckets {
		if days <= limit {
			return i
		}
	}
	return len(AgeBuckets)
}

func (a *aggregate) fill(c *Compliance) {
	for _, s := range Severities {
		row := *a.rows[s]
		c.Severities = append(c.Severities, row)
		c.TotalOpen += row.Open
		c.PastSLA += row.PastSLA
	}
	// Earliest due first; entries without a due date last.
	slices.SortFunc(a.kev, func(x, y KEVItem) int {
		if x.DueDate.IsZero() != y.DueDate.IsZero() {
			return cmp.Compare(boolInt(x.DueDate.IsZero()), boolInt(y.DueDate.IsZero()))
		}
		return cmp.Or(x.DueDate.Compare(y.DueDate), cmp.Compare(x.CVEID, y.CVEID), cmp.Compare(x.Product, y.Product))
	})
	c.KEVTotal, c.KEV = len(a.kev), a.kev[:min(len(a.kev), KEVLimit)]
	for _, p := range a.products {
		c.TopProducts = append(c.TopProducts, *p)
	}
	slices.SortFunc(c.TopProducts, func(x, y ProductRow) int {
		return cmp.Or(cmp.Compare(y.Open, x.Open), cmp.Compare(y.Critical, x.Critical), cmp.Compare(x.Name, y.Name), cmp.Compare(x.Version, y.Version))
	})
	c.TopProducts = c.TopProducts[:min(len(c.TopProducts), TopN)]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

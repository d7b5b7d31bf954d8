package sqlitestore

import (
	"context"
	"database/sql"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// openMatch keeps the matches m of products p that are open: the product is installed on a
// host now, no assignment dismissed the finding (accepted risk, false positive) and no triage
// decision suppresses it.
const openMatch = `p.deleted_at IS NULL
	AND EXISTS (SELECT 1 FROM installations i WHERE i.product_id = p.id AND i.removed_at IS NULL)
	AND NOT EXISTS (SELECT 1 FROM remediation_assignments ra WHERE ra.match_id = m.id
		AND ra.status IN ('accepted_risk', 'false_positive'))
	AND ` + notSuppressed

func (q *queries) EachOpenFinding(ctx context.Context, orgID int64, fn func(appliance.OpenFinding) error) error {
	return eachRow(ctx, q, `SELECT p.id, p.name, p.version, m.cve_id, coalesce(c.severity, ''), m.created_at,
		k.cve_id IS NOT NULL, k.due_date
		FROM matches m JOIN products p ON p.id = m.product_id
		LEFT JOIN cves c ON c.id = m.cve_id LEFT JOIN kev k ON k.cve_id = m.cve_id
		WHERE p.organization_id = ? AND `+openMatch+` ORDER BY m.id`, []any{orgID},
		func(rows *sql.Rows) (appliance.OpenFinding, error) {
			var f appliance.OpenFinding
			var seen string
			var due sql.NullString
			err := rows.Scan(&f.ProductID, &f.ProductName, &f.ProductVersion, &f.CVEID, &f.Severity, &seen, &f.KEV, &due)
			f.FirstSeen, f.KEVDue = parseTime(seen), parseDate(due)
			return f, err
		}, fn)
}

func (q *queries) TopHosts(ctx context.Context, orgID int64, limit int) ([]appliance.HostFindings, error) {
	out := []appliance.HostFindings{}
	err := eachRow(ctx, q, `SELECT a.hostname, count(DISTINCT m.id),
		count(DISTINCT CASE WHEN lower(c.severity) = 'critical' THEN m.id END)
		FROM assets a JOIN installations i ON i.asset_id = a.id AND i.removed_at IS NULL
		JOIN products p ON p.id = i.product_id JOIN matches m ON m.product_id = p.id
		LEFT JOIN cves c ON c.id = m.cve_id
		WHERE a.organization_id = ? AND `+openMatch+`
		GROUP BY a.id ORDER BY 2 DESC, 3 DESC, a.hostname LIMIT ?`, []any{orgID, limit},
		func(rows *sql.Rows) (appliance.HostFindings, error) {
			var h appliance.HostFindings
			return h, rows.Scan(&h.Hostname, &h.Open, &h.Critical)
		}, func(h appliance.HostFindings) error { out = append(out, h); return nil })
	return out, err
}

func (q *queries) AssignmentOutcomes(ctx context.Context, orgID int64, today time.Time) (appliance.AssignmentOutcomes, error) {
	var o appliance.AssignmentOutcomes
	err := q.queryRow(ctx, `SELECT
		coalesce(sum(status = 'resolved'), 0),
		coalesce(sum(status = 'resolved' AND substr(resolved_at, 1, 10) <= due_date), 0),
		coalesce(sum(status IN ('open', 'in_progress')), 0),
		coalesce(sum(status IN ('open', 'in_progress') AND due_date < ?), 0)
		FROM remediation_assignments WHERE organization_id = ?`, today.UTC().Format(dateLayout), orgID).
		Scan(&o.Closed, &o.ClosedOnTime, &o.Open, &o.Overdue)
	return o, translate(err)
}

package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// findingColumns are a finding row: the product's facts, the match's, the CVE data's.
const findingColumns = `p.id, p.vendor, p.name, p.version, p.cpe_part, p.cpe_vendor, p.cpe_product, p.criticality, ` + productHosts + `,
	m.id, m.cve_id, coalesce(c.severity, ''), c.score, k.cve_id IS NOT NULL, k.due_date,
	m.source, m.basis, m.fixed_version, m.fix_state, m.pro_only, ` + epssColumns

const findingFrom = ` FROM matches m JOIN products p ON p.id = m.product_id
	LEFT JOIN cves c ON c.id = m.cve_id LEFT JOIN kev k ON k.cve_id = m.cve_id LEFT JOIN epss e ON e.cve_id = m.cve_id`

// findingWhere is the filter as a condition: installed products of the organization, and no
// finding a triage decision suppresses unless asked.
func findingWhere(f appliance.FindingFilter) (string, []any) {
	where := []string{"p.organization_id = ?", "p.deleted_at IS NULL", productHosts + " > 0"}
	args := []any{f.OrganizationID}
	if !f.IncludeSuppressed {
		where = append(where, notSuppressed)
	}
	if f.Search != "" {
		like := "%" + likeEscape(f.Search) + "%"
		where = append(where, `(m.cve_id LIKE ? ESCAPE '\' OR p.name LIKE ? ESCAPE '\')`)
		args = append(args, like, like)
	}
	where, args = cveConditions(where, args, f.Severity, f.KEV, f.FixAvailable, "m.fix_state = 'fixed'")
	return strings.Join(where, " AND "), args
}

func (q *queries) ListFindings(ctx context.Context, f appliance.FindingFilter) ([]appliance.FindingRow, int, error) {
	cond, args := findingWhere(f)
	var total int
	if err := q.queryRow(ctx, `SELECT count(*)`+findingFrom+` WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count findings: %w", err)
	}
	out, err := queryAll(ctx, q, scanFinding, `SELECT `+findingColumns+findingFrom+` WHERE `+cond+` ORDER BY m.id LIMIT ? OFFSET ?`,
		append(args, f.PerPage, (f.Page-1)*f.PerPage)...)
	return out, total, err
}

// EachFinding calls fn with every finding the filter selects, in the list's order, as rows are
// read: an export holds one row at a time.
func (q *queries) EachFinding(ctx context.Context, f appliance.FindingFilter, fn func(appliance.FindingRow) error) error {
	cond, args := findingWhere(f)
	rows, err := q.query(ctx, `SELECT `+findingColumns+findingFrom+` WHERE `+cond+` ORDER BY m.id`, args...)
	if err != nil {
		return fmt.Errorf("read findings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanFinding(rows)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

func scanFinding(s scanner) (appliance.FindingRow, error) {
	var r appliance.FindingRow
	var score sql.NullFloat64
	var due sql.NullString
	var epss nullEPSS
	p := &r.Product
	err := s.Scan(append([]any{&p.ID, &p.Vendor, &p.Name, &p.Version, &p.Identity.Part, &p.Identity.Vendor, &p.Identity.Product,
		&p.Criticality, &p.AssetCount, &r.MatchID, &r.CVEID, &r.Severity, &score, &r.KEV, &due,
		&r.Source, &r.Basis, &r.FixedVersion, &r.FixState, &r.ProOnly}, epss.dest()...)...)
	r.Score, r.HasScore, r.KEVDue, r.EPSS = score.Float64, score.Valid, nullTime(due), epss.value(r.CVEID)
	return r, err
}

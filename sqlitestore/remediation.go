package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const dateLayout = "2006-01-02"

func dateOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(dateLayout)
}

func parseDate(s sql.NullString) time.Time {
	if !s.Valid {
		return time.Time{}
	}
	if t, err := time.Parse(dateLayout, s.String); err == nil {
		return t
	}
	return parseTime(s.String) // KEV dates are stored as timestamps
}

func nullInt(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

const assignmentColumns = `a.id, a.organization_id, a.status, a.assigned_to, coalesce(au.username, ''), a.match_id,
	a.product_id, a.cve_id, coalesce(p.name, ''), a.priority, a.due_date, coalesce(k.due_date, a.kev_due_date), a.notes,
	a.watch_finding, a.created_by, coalesce(cu.username, ''), a.created_at, a.updated_at, a.resolved_at`

const assignmentFrom = ` FROM remediation_assignments a
	LEFT JOIN users au ON au.id = a.assigned_to
	LEFT JOIN users cu ON cu.id = a.created_by
	LEFT JOIN products p ON p.id = a.product_id AND p.organization_id = a.organization_id
	LEFT JOIN kev k ON k.cve_id = a.cve_id`

func scanAssignment(s scanner) (appliance.Assignment, error) {
	var a appliance.Assignment
	var assignee, match, product, creator sql.NullInt64
	var cve, due, kevDue, resolved sql.NullString
	var created, updated string
	err := s.Scan(&a.ID, &a.OrganizationID, &a.Status, &assignee, &a.AssignedToName, &match, &product, &cve,
		&a.ProductName, &a.Priority, &due, &kevDue, &a.Notes, &a.WatchFinding, &creator, &a.CreatedByName,
		&created, &updated, &resolved)
	a.AssignedTo, a.MatchID, a.ProductID, a.CreatedBy = assignee.Int64, match.Int64, product.Int64, creator.Int64
	a.CVEID, a.DueDate, a.KEVDueDate = cve.String, parseDate(due), parseDate(kevDue)
	a.CreatedAt, a.UpdatedAt, a.ResolvedAt = parseTime(created), parseTime(updated), nullTime(resolved)
	return a, err
}

func (q *queries) assignments(ctx context.Context, query string, args ...any) ([]appliance.Assignment, error) {
	return queryAll(ctx, q, scanAssignment, query, args...)
}

func (q *queries) AssignmentByID(ctx context.Context, orgID, id int64) (appliance.Assignment, error) {
	a, err := scanAssignment(q.queryRow(ctx, `SELECT `+assignmentColumns+assignmentFrom+`
		WHERE a.id = ? AND a.organization_id = ?`, id, orgID))
	return a, translate(err)
}

var assignmentSorts = map[string]string{
	"due_date": "a.due_date", "created_at": "a.created_at", "updated_at": "a.updated_at",
	"priority": "CASE a.priority WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 ELSE 1 END",
}

func (q *queries) ListAssignments(ctx context.Context, f appliance.AssignmentFilter) ([]appliance.Assignment, int, error) {
	cond, args := assignmentConditions(f)
	var total int
	if err := q.queryRow(ctx, `SELECT count(*)`+assignmentFrom+` WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	query := fmt.Sprintf(`SELECT %s%s WHERE %s ORDER BY %s LIMIT ? OFFSET ?`, assignmentColumns, assignmentFrom, cond, assignmentOrder(f))
	items, err := q.assignments(ctx, query, append(args, f.PerPage, (f.Page-1)*f.PerPage)...)
	return items, total, err
}

// EachAssignment calls fn with every assignment the filter selects (pages ignored), in list
// order, as rows are read.
func (q *queries) EachAssignment(ctx context.Context, f appliance.AssignmentFilter, fn func(appliance.Assignment) error) error {
	cond, args := assignmentConditions(f)
	query := fmt.Sprintf(`SELECT %s%s WHERE %s ORDER BY %s`, assignmentColumns, assignmentFrom, cond, assignmentOrder(f))
	return eachRow(ctx, q, query, args, func(rows *sql.Rows) (appliance.Assignment, error) { return scanAssignment(rows) }, fn)
}

func assignmentOrder(f appliance.AssignmentFilter) string {
	order, ok := assignmentSorts[f.Sort]
	if !ok {
		order = assignmentSorts["due_date"]
	}
	dir := "ASC"
	if f.Desc {
		dir = "DESC"
	}
	return fmt.Sprintf("%s %s, a.id %s", order, dir, dir)
}

func assignmentConditions(f appliance.AssignmentFilter) (string, []any) {
	where := []string{"a.organization_id = ?"}
	args := []any{f.OrganizationID}
	add := func(cond string, values ...any) {
		where = append(where, cond)
		args = append(args, values...)
	}
	if f.Status != "" {
		add("a.status = ?", f.Status)
	}
	if f.Priority != "" {
		add("a.priority = ?", f.Priority)
	}
	if f.AssignedTo != "" {
		add("au.username = ? COLLATE NOCASE", f.AssignedTo)
	}
	if f.CVEID != "" {
		add("a.cve_id = ? COLLATE NOCASE", f.CVEID)
	}
	if f.ProductID != 0 {
		add("a.product_id = ?", f.ProductID)
	}
	if f.Overdue {
		add("a.status IN ('open', 'in_progress') AND a.due_date < ?", f.Today.UTC().Format(dateLayout))
	}
	if f.Search != "" {
		pattern := "%" + likeEscape(f.Search) + "%"
		add(`(a.notes LIKE ? ESCAPE '\' OR a.cve_id LIKE ? ESCAPE '\' OR p.name LIKE ? ESCAPE '\')`, pattern, pattern, pattern)
	}
	return strings.Join(where, " AND "), args
}

func (q *queries) AssignmentEvents(ctx context.Context, orgID, id int64) ([]appliance.AssignmentEvent, error) {
	rows, err := q.query(ctx, `SELECT e.assignment_id, e.at, e.from_status, e.to_status, e.note, e.by_user
		FROM remediation_events e JOIN remediation_assignments a ON a.id = e.assignment_id
		WHERE e.assignment_id = ? AND a.organization_id = ? ORDER BY e.at, e.id`, id, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.AssignmentEvent{}
	for rows.Next() {
		var e appliance.AssignmentEvent
		var at string
		var by sql.NullInt64
		if err := rows.Scan(&e.AssignmentID, &at, &e.From, &e.To, &e.Note, &by); err != nil {
			return nil, err
		}
		e.At, e.By = parseTime(at), by.Int64
		out = append(out, e)
	}
	return out, rows.Err()
}

func (q *queries) SLAPolicy(ctx context.Context, orgID int64) (appliance.SLAPolicy, error) {
	p := appliance.SLAPolicy{OrganizationID: orgID}
	var updated string
	err := q.queryRow(ctx, `SELECT critical_days, high_days, medium_days, low_days, updated_at
		FROM sla_policies WHERE organization_id = ?`, orgID).Scan(&p.Critical, &p.High, &p.Medium, &p.Low, &updated)
	p.UpdatedAt = parseTime(updated)
	return p, translate(err)
}

func (q *queries) MatchInOrganization(ctx context.Context, orgID, matchID int64) (appliance.MatchRef, error) {
	var m appliance.MatchRef
	err := q.queryRow(ctx, `SELECT m.id, m.product_id, m.cve_id FROM matches m JOIN products p ON p.id = m.product_id
		WHERE m.id = ? AND p.organization_id = ? AND p.deleted_at IS NULL`, matchID, orgID).Scan(&m.ID, &m.ProductID, &m.CVEID)
	return m, translate(err)
}

func (q *queries) CVEFacts(ctx context.Context, cveID string) (appliance.FindingFacts, error) {
	f := appliance.FindingFacts{CVEID: cveID}
	var known bool
	var due sql.NullString
	err := q.queryRow(ctx, `SELECT c.id IS NOT NULL, coalesce(c.severity, ''), k.cve_id IS NOT NULL, k.due_date
		FROM (SELECT ? AS id) x LEFT JOIN cves c ON c.id = x.id LEFT JOIN kev k ON k.cve_id = x.id`, cveID).Scan(
		&known, &f.Severity, &f.KEV, &due)
	if err != nil {
		return f, err
	}
	if !known && !f.KEV {
		return f, appliance.ErrNotFound
	}
	f.KEVDue = parseDate(due)
	return f, nil
}

// liveProduct is the condition that product p counts: not deleted and installed somewhere.
const liveProduct = `p.deleted_at IS NULL AND EXISTS (SELECT 1 FROM installations i WHERE i.product_id = p.id AND i.removed_at IS NULL)`

func (q *queries) CVEMatchedInOrganization(ctx context.Context, orgID int64, cveID string) (bool, error) {
	var found bool
	err := q.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM matches m JOIN products p ON p.id = m.product_id
		WHERE m.cve_id = ? AND p.organization_id = ? AND `+liveProduct+`)`, cveID, orgID).Scan(&found)
	return found, err
}

// vanished is true for an assignment a whose most specific target no longer exists.
const vanished = `CASE
	WHEN a.match_id IS NOT NULL THEN NOT EXISTS (SELECT 1 FROM matches m JOIN products p ON p.id = m.product_id
		WHERE m.id = a.match_id AND p.organization_id = a.organization_id AND ` + liveProduct + `)
	WHEN a.product_id IS NOT NULL THEN NOT EXISTS (SELECT 1 FROM products p
		WHERE p.id = a.product_id AND p.organization_id = a.organization_id AND ` + liveProduct + `)
	ELSE NOT EXISTS (SELECT 1 FROM matches m JOIN products p ON p.id = m.product_id
		WHERE m.cve_id = a.cve_id AND p.organization_id = a.organization_id AND ` + liveProduct + `)
	AND NOT EXISTS (SELECT 1 FROM container_vulnerabilities v JOIN container_images ci ON ci.id = v.container_image_id
		WHERE v.cve_id = a.cve_id AND ci.organization_id = a.organization_id)
	END`

func (q *queries) VanishedAssignments(ctx context.Context) ([]appliance.Assignment, error) {
	return q.assignments(ctx, `SELECT `+assignmentColumns+assignmentFrom+`
		WHERE a.status IN ('open', 'in_progress') AND a.watch_finding = 1 AND `+vanished+` ORDER BY a.id`)
}

func (q *queries) CreateAssignment(ctx context.Context, a appliance.Assignment) (int64, error) {
	return q.insert(ctx, `INSERT INTO remediation_assignments (organization_id, status, assigned_to, match_id, product_id,
		cve_id, priority, due_date, kev_due_date, notes, watch_finding, created_by, created_at, updated_at, resolved_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.OrganizationID, a.Status, nullInt(a.AssignedTo), nullInt(a.MatchID), nullInt(a.ProductID), nullText(a.CVEID),
		a.Priority, dateOrNull(a.DueDate), dateOrNull(a.KEVDueDate), a.Notes, a.WatchFinding, nullInt(a.CreatedBy),
		fmtTime(a.CreatedAt), fmtTime(a.UpdatedAt), timeOrNull(a.ResolvedAt))
}

func (q *queries) UpdateAssignment(ctx context.Context, a appliance.Assignment) error {
	return q.execOne(ctx, `UPDATE remediation_assignments SET status = ?, assigned_to = ?, priority = ?, due_date = ?,
		notes = ?, updated_at = ?, resolved_at = ? WHERE id = ? AND organization_id = ?`,
		a.Status, nullInt(a.AssignedTo), a.Priority, dateOrNull(a.DueDate), a.Notes, fmtTime(a.UpdatedAt),
		timeOrNull(a.ResolvedAt), a.ID, a.OrganizationID)
}

func (q *queries) DeleteAssignment(ctx context.Context, orgID, id int64) error {
	return q.execOne(ctx, `DELETE FROM remediation_assignments WHERE id = ? AND organization_id = ?`, id, orgID)
}

func (q *queries) AddAssignmentEvent(ctx context.Context, e appliance.AssignmentEvent) error {
	_, err := q.exec(ctx, `INSERT INTO remediation_events (assignment_id, at, from_status, to_status, note, by_user)
		VALUES (?, ?, ?, ?, ?, ?)`, e.AssignmentID, fmtTime(e.At), e.From, e.To, e.Note, nullInt(e.By))
	return translate(err)
}

func (q *queries) SaveSLAPolicy(ctx context.Context, p appliance.SLAPolicy) error {
	_, err := q.exec(ctx, `INSERT INTO sla_policies (organization_id, critical_days, high_days, medium_days, low_days,
		updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (organization_id) DO UPDATE SET critical_days = excluded.critical_days,
		high_days = excluded.high_days, medium_days = excluded.medium_days, low_days = excluded.low_days,
		updated_at = excluded.updated_at`, p.OrganizationID, p.Critical, p.High, p.Medium, p.Low, fmtTime(p.UpdatedAt))
	return translate(err)
}

package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const triageRuleColumns = `r.id, r.organization_id, r.cve_id, r.scope, r.product, r.version_start, r.version_end,
	coalesce(r.asset_id, 0), r.tag, r.state, r.justification, r.note, r.author, r.expires_at, coalesce(r.created_by, 0), r.created_at,
	coalesce(r.updated_by, 0), r.updated_at, r.deleted_at`

func scanTriageRule(s scanner) (appliance.TriageRule, error) {
	var r appliance.TriageRule
	var expires, deleted sql.NullString
	var created, updated string
	err := s.Scan(&r.ID, &r.OrganizationID, &r.CVEID, &r.Scope, &r.Product, &r.VersionStart, &r.VersionEnd, &r.AssetID, &r.Tag,
		&r.State, &r.Justification, &r.Note, &r.Author, &expires, &r.CreatedBy, &created, &r.UpdatedBy, &updated, &deleted)
	r.ExpiresAt, r.DeletedAt = nullTime(expires), nullTime(deleted)
	r.CreatedAt, r.UpdatedAt = parseTime(created), parseTime(updated)
	return r, err
}

// TriageRules lists the organization's live rules, oldest first.
func (q *queries) TriageRules(ctx context.Context, orgID int64) ([]appliance.TriageRule, error) {
	rows, err := q.query(ctx, `SELECT `+triageRuleColumns+` FROM triage_rules r
		WHERE r.organization_id = ? AND r.deleted_at IS NULL ORDER BY r.id`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.TriageRule{}
	for rows.Next() {
		r, err := scanTriageRule(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TriageRule finds a live rule of the organization.
func (q *queries) TriageRule(ctx context.Context, orgID, id int64) (appliance.TriageRule, error) {
	r, err := scanTriageRule(q.queryRow(ctx, `SELECT `+triageRuleColumns+` FROM triage_rules r
		WHERE r.id = ? AND r.organization_id = ? AND r.deleted_at IS NULL`, id, orgID))
	return r, translate(err)
}

func (q *queries) CreateTriageRule(ctx context.Context, r appliance.TriageRule) (int64, error) {
	return q.insert(ctx, `INSERT INTO triage_rules (organization_id, cve_id, scope, product, version_start, version_end,
		asset_id, tag, state, justification, note, author, expires_at, created_by, created_at, updated_by, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.OrganizationID, r.CVEID, r.Scope, r.Product, r.VersionStart, r.VersionEnd, nullInt(r.AssetID), r.Tag, r.State,
		r.Justification, r.Note, r.Author, timeOrNull(r.ExpiresAt), nullInt(r.CreatedBy), fmtTime(r.CreatedAt),
		nullInt(r.UpdatedBy), fmtTime(r.UpdatedAt))
}

func (q *queries) UpdateTriageRule(ctx context.Context, r appliance.TriageRule) error {
	return q.execOne(ctx, `UPDATE triage_rules SET cve_id = ?, scope = ?, product = ?, version_start = ?, version_end = ?,
		asset_id = ?, tag = ?, state = ?, justification = ?, note = ?, author = ?, expires_at = ?, updated_by = ?, updated_at = ?,
		deleted_at = ? WHERE id = ? AND organization_id = ? AND deleted_at IS NULL`,
		r.CVEID, r.Scope, r.Product, r.VersionStart, r.VersionEnd, nullInt(r.AssetID), r.Tag, r.State, r.Justification, r.Note,
		r.Author, timeOrNull(r.ExpiresAt), nullInt(r.UpdatedBy), fmtTime(r.UpdatedAt), timeOrNull(r.DeletedAt), r.ID, r.OrganizationID)
}

// triageSnapshot is a rule as its history stores it.
type triageSnapshot struct {
	CVEID         string `json:"cve_id"`
	Scope         string `json:"scope"`
	Product       string `json:"product"`
	VersionStart  string `json:"version_start"`
	VersionEnd    string `json:"version_end"`
	AssetID       int64  `json:"asset_id"`
	Tag           string `json:"tag,omitempty"`
	State         string `json:"state"`
	Justification string `json:"justification"`
	Note          string `json:"note"`
	Author        string `json:"author"`
	ExpiresAt     string `json:"expires_at"`
}

func (q *queries) AddTriageEvent(ctx context.Context, e appliance.TriageEvent) error {
	r := e.Rule
	snap := triageSnapshot{r.CVEID, r.Scope, r.Product, r.VersionStart, r.VersionEnd, r.AssetID, r.Tag, r.State, r.Justification,
		r.Note, r.Author, ""}
	if !r.ExpiresAt.IsZero() {
		snap.ExpiresAt = fmtTime(r.ExpiresAt)
	}
	doc, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `INSERT INTO triage_rule_events (rule_id, at, action, by_user, rule) VALUES (?, ?, ?, ?, ?)`,
		e.RuleID, fmtTime(e.At), e.Action, nullInt(e.By), string(doc))
	return translate(err)
}

// TriageEvents returns the history of one rule of the organization, deleted or not, oldest first.
func (q *queries) TriageEvents(ctx context.Context, orgID, ruleID int64) ([]appliance.TriageEvent, error) {
	rows, err := q.query(ctx, `SELECT e.id, e.rule_id, e.at, e.action, coalesce(e.by_user, 0), coalesce(u.username, ''), e.rule,
		r.organization_id FROM triage_rule_events e JOIN triage_rules r ON r.id = e.rule_id LEFT JOIN users u ON u.id = e.by_user
		WHERE e.rule_id = ? AND r.organization_id = ? ORDER BY e.id`, ruleID, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []appliance.TriageEvent
	for rows.Next() {
		var e appliance.TriageEvent
		var at, doc string
		if err := rows.Scan(&e.ID, &e.RuleID, &at, &e.Action, &e.By, &e.ByName, &doc, &e.Rule.OrganizationID); err != nil {
			return nil, err
		}
		var s triageSnapshot
		if err := json.Unmarshal([]byte(doc), &s); err != nil {
			return nil, fmt.Errorf("triage event %d: %w", e.ID, err)
		}
		e.At = parseTime(at)
		e.Rule.ID, e.Rule.CVEID, e.Rule.Scope, e.Rule.Product = e.RuleID, s.CVEID, s.Scope, s.Product
		e.Rule.VersionStart, e.Rule.VersionEnd, e.Rule.AssetID, e.Rule.State = s.VersionStart, s.VersionEnd, s.AssetID, s.State
		e.Rule.Justification, e.Rule.Note, e.Rule.Author, e.Rule.Tag = s.Justification, s.Note, s.Author, s.Tag
		if s.ExpiresAt != "" {
			e.Rule.ExpiresAt = parseTime(s.ExpiresAt)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// TriageFindings lists the organization's findings on live products with the hosts that have
// each product now.
func (q *queries) TriageFindings(ctx context.Context, orgID int64) ([]appliance.TriageFinding, error) {
	rows, err := q.query(ctx, `SELECT m.product_id, m.cve_id, `+leanProductColumns+`,
		coalesce((SELECT group_concat(i.asset_id) FROM installations i WHERE i.product_id = p.id AND i.removed_at IS NULL), '')
		FROM matches m JOIN products p ON p.id = m.product_id
		WHERE p.organization_id = ? AND p.deleted_at IS NULL ORDER BY m.product_id, m.cve_id`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []appliance.TriageFinding
	for rows.Next() {
		var f appliance.TriageFinding
		var hosts string
		p, err := scanProductWith(rows, []any{&f.ProductID, &f.CVEID}, []any{&hosts})
		if err != nil {
			return nil, err
		}
		f.Product = p
		for _, h := range strings.Split(hosts, ",") {
			if id, err := strconv.ParseInt(h, 10, 64); err == nil {
				f.AssetIDs = append(f.AssetIDs, id)
			}
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	images, err := q.containerTriageFindings(ctx, orgID)
	if err != nil {
		return nil, err
	}
	out = append(out, images...)
	tags, err := q.hostTags(ctx, orgID)
	for i := range out {
		out[i].HostTags = tags
	}
	return out, err
}

// hostTags maps each tagged host of the organization to its tags.
func (q *queries) hostTags(ctx context.Context, orgID int64) (map[int64][]string, error) {
	rows, err := q.query(ctx, `SELECT t.asset_id, t.tag FROM asset_tags t JOIN assets a ON a.id = t.asset_id
		WHERE a.organization_id = ? ORDER BY t.asset_id, t.tag`, orgID)
	if err != nil {
		return nil, fmt.Errorf("read host tags: %w", err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var id int64
		var tag string
		if err := rows.Scan(&id, &tag); err != nil {
			return nil, err
		}
		out[id] = append(out[id], tag)
	}
	return out, rows.Err()
}

// containerTriageFindings lists the organization's container findings, one per (image, CVE,
// package), with the host of the image when one reported an inventory.
func (q *queries) containerTriageFindings(ctx context.Context, orgID int64) ([]appliance.TriageFinding, error) {
	rows, err := q.query(ctx, `SELECT v.container_image_id, v.cve_id, v.package_name, min(v.installed_version), min(v.type),
		coalesce((SELECT a.id FROM assets a WHERE a.organization_id = ci.organization_id AND a.hostname = ci.hostname), 0)
		FROM container_vulnerabilities v JOIN container_images ci ON ci.id = v.container_image_id
		WHERE ci.organization_id = ? GROUP BY v.container_image_id, v.cve_id, v.package_name
		ORDER BY v.container_image_id, v.cve_id, v.package_name`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []appliance.TriageFinding
	for rows.Next() {
		f := appliance.TriageFinding{Product: appliance.Product{OrganizationID: orgID}}
		var host int64
		if err := rows.Scan(&f.ContainerImageID, &f.CVEID, &f.Product.Name, &f.Product.Version, &f.Product.Vendor, &host); err != nil {
			return nil, err
		}
		if host != 0 {
			f.AssetIDs = []int64{host}
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// TriageOrganizations lists the organizations with live rules or recorded decisions.
func (q *queries) TriageOrganizations(ctx context.Context) ([]int64, error) {
	return q.ids(ctx, `SELECT organization_id FROM triage_rules WHERE deleted_at IS NULL
		UNION SELECT p.organization_id FROM triage_findings t JOIN products p ON p.id = t.product_id
		UNION SELECT ci.organization_id FROM triage_container_findings t JOIN container_images ci ON ci.id = t.container_image_id
		ORDER BY 1`)
}

func (q *queries) ReplaceAppliedTriage(ctx context.Context, orgID int64, ds []appliance.AppliedTriage) error {
	// The products whose suppressed findings may change have their kept counts refreshed.
	touched, err := q.ids(ctx, `SELECT DISTINCT t.product_id FROM triage_findings t JOIN products p ON p.id = t.product_id
		WHERE p.organization_id = ? AND t.suppresses = 1`, orgID)
	if err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM triage_findings WHERE product_id IN (SELECT id FROM products WHERE organization_id = ?)`, orgID); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM triage_container_findings
		WHERE container_image_id IN (SELECT id FROM container_images WHERE organization_id = ?)`, orgID); err != nil {
		return err
	}
	for _, d := range ds {
		var err error
		if d.ContainerImageID != 0 {
			_, err = q.exec(ctx, `INSERT INTO triage_container_findings (container_image_id, cve_id, package_name, rule_id, state,
				justification, expires_at, suppresses) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, d.ContainerImageID, d.CVEID, d.PackageName,
				d.RuleID, d.State, d.Justification, timeOrNull(d.ExpiresAt), d.Suppresses)
		} else {
			_, err = q.exec(ctx, `INSERT INTO triage_findings (product_id, cve_id, rule_id, state, justification, expires_at, suppresses)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, d.ProductID, d.CVEID, d.RuleID, d.State, d.Justification, timeOrNull(d.ExpiresAt),
				d.Suppresses)
		}
		if err != nil {
			return translate(err)
		}
		if d.ContainerImageID == 0 && d.Suppresses {
			touched = append(touched, d.ProductID)
		}
	}
	slices.Sort(touched)
	for _, id := range slices.Compact(touched) {
		if err := q.refreshProductCounts(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

func (q *queries) TriageExpiredBy(ctx context.Context, now time.Time) ([]int64, error) {
	at := fmtTime(now)
	return q.ids(ctx, `SELECT p.organization_id FROM triage_findings t JOIN products p ON p.id = t.product_id
		WHERE t.expires_at IS NOT NULL AND t.expires_at <= ?
		UNION SELECT ci.organization_id FROM triage_container_findings t JOIN container_images ci ON ci.id = t.container_image_id
		WHERE t.expires_at IS NOT NULL AND t.expires_at <= ? ORDER BY 1`, at, at)
}

// ids runs a query of one integer column.
func (q *queries) ids(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (q *queries) TriageHost(ctx context.Context, orgID, assetID int64) (appliance.AssetRef, error) {
	var a appliance.AssetRef
	err := q.queryRow(ctx, `SELECT id, hostname FROM assets WHERE id = ? AND organization_id = ?`, assetID, orgID).Scan(&a.ID, &a.Hostname)
	return a, translate(err)
}

// triageColumns are the decision joined as t beside a finding (NULL when none).
const triageColumns = `t.rule_id, coalesce(t.state, ''), coalesce(t.justification, ''), t.expires_at, coalesce(t.suppresses, 0)`

// triageScan receives triageColumns.
type triageScan struct {
	rule    sql.NullInt64
	expires sql.NullString
	st      appliance.TriageState
}

func (s *triageScan) dest() []any {
	return []any{&s.rule, &s.st.State, &s.st.Justification, &s.expires, &s.st.Suppresses}
}

// state is the decision scanned, nil when none.
func (s *triageScan) state() *appliance.TriageState {
	if !s.rule.Valid {
		return nil
	}
	st := s.st
	st.RuleID, st.ExpiresAt = s.rule.Int64, nullTime(s.expires)
	return &st
}

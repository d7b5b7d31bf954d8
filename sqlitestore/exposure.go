package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Host-, CVE- and dashboard-centred reads, over the counters of counts.go.

const exposureAssetColumns = `a.id, a.organization_id, a.hostname, a.fqdn, a.ip_address, a.os_name, a.os_version, a.os_kernel,
	a.agent_id, a.agent_version, a.created_at, a.last_seen_at, a.last_inventory_at,
	a.os_id, a.os_version_id, a.os_codename, a.os_build, a.os_arch, a.os_inferred, a.kind,
	a.product_count, a.finding_count, a.finding_critical, a.finding_high, a.finding_medium, a.finding_low, a.finding_kev,
	coalesce((SELECT group_concat(tag, ',') FROM (SELECT tag FROM asset_tags WHERE asset_id = a.id ORDER BY tag)), '')`

func scanExposureAsset(s scanner) (appliance.Asset, error) {
	var a appliance.Asset
	var created, seen string
	var inv sql.NullString
	var tags string
	c := &a.Findings
	err := s.Scan(&a.ID, &a.OrganizationID, &a.Hostname, &a.FQDN, &a.IPAddress, &a.OSName, &a.OSVersion, &a.OSKernel,
		&a.AgentID, &a.AgentVersion, &created, &seen, &inv,
		&a.OS.ID, &a.OS.VersionID, &a.OS.Codename, &a.OS.Build, &a.OS.Arch, &a.OS.Inferred, &a.Kind,
		&a.ProductCount, &c.Total, &c.Critical, &c.High, &c.Medium, &c.Low, &c.KEV, &tags)
	a.Tags = splitTags(tags)
	a.CreatedAt, a.LastSeenAt, a.LastInventoryAt = parseTime(created), parseTime(seen), nullTime(inv)
	rank := 0
	switch {
	case c.Critical > 0:
		rank = 4
	case c.High > 0:
		rank = 3
	case c.Medium > 0:
		rank = 2
	case c.Low > 0:
		rank = 1
	}
	findingCountsOf(c, rank)
	return a, err
}

func (q *queries) exposureAssets(ctx context.Context, query string, args ...any) ([]appliance.Asset, error) {
	return queryAll(ctx, q, scanExposureAsset, query, args...)
}

var assetSorts = map[string][]string{
	"hostname":  {"a.hostname"},
	"last_seen": {"a.last_seen_at"},
	"findings":  {"a.finding_count", "a.finding_critical", "a.finding_high"},
	"risk":      {"a.finding_kev", "a.finding_critical", "a.finding_high", "a.finding_medium", "a.finding_low"},
}

// ListAssets pages the organization's hosts; every filter and sort reads the host row only.
func (q *queries) ListAssets(ctx context.Context, f appliance.AssetFilter) ([]appliance.Asset, int, error) {
	where := []string{"a.organization_id = ?"}
	args := []any{f.OrganizationID}
	if f.Search != "" {
		like := "%" + likeEscape(f.Search) + "%"
		where = append(where, `(a.hostname LIKE ? ESCAPE '\' OR a.fqdn LIKE ? ESCAPE '\' OR a.ip_address LIKE ? ESCAPE '\')`)
		args = append(args, like, like, like)
	}
	if f.OS != "" {
		where = append(where, `(a.os_name LIKE ? ESCAPE '\' OR a.os_id = ? COLLATE NOCASE)`)
		args = append(args, "%"+likeEscape(f.OS)+"%", f.OS)
	}
	if f.Kind != "" {
		where = append(where, "a.kind = ?")
		args = append(args, f.Kind)
	}
	if f.Tag != "" {
		where = append(where, "EXISTS (SELECT 1 FROM asset_tags t WHERE t.asset_id = a.id AND t.tag = ?)")
		args = append(args, f.Tag)
	}
	if f.HasVulnerabilities != nil {
		if *f.HasVulnerabilities {
			where = append(where, "a.finding_count > 0")
		} else {
			where = append(where, "a.finding_count = 0")
		}
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := q.queryRow(ctx, `SELECT count(*) FROM assets a WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count hosts: %w", err)
	}
	if total <= (f.Page-1)*f.PerPage {
		return []appliance.Asset{}, total, nil
	}
	items, err := q.exposureAssets(ctx, `SELECT `+exposureAssetColumns+` FROM assets a WHERE `+cond+
		` ORDER BY `+orderBy(assetSorts, f.Sort, "hostname", f.Desc, "a.hostname", "a.id")+` LIMIT ? OFFSET ?`, append(args, f.PerPage, (f.Page-1)*f.PerPage)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list hosts: %w", err)
	}
	return items, total, nil
}

// AssetByID finds a host of the organization.
func (q *queries) AssetByID(ctx context.Context, orgID, id int64) (appliance.Asset, error) {
	a, err := scanExposureAsset(q.queryRow(ctx, `SELECT `+exposureAssetColumns+` FROM assets a
		WHERE a.id = ? AND a.organization_id = ?`, id, orgID))
	return a, translate(err)
}

func (q *queries) assetInstallations(ctx context.Context, query string, args ...any) ([]appliance.AssetInstallation, error) {
	return queryAll(ctx, q, scanAssetInstallation, query, args...)
}

// scanAssetInstallation reads installationColumns and a product's columns with its counts.
func scanAssetInstallation(s scanner) (appliance.AssetInstallation, error) {
	var ai appliance.AssetInstallation
	var created, updated string
	var removed sql.NullString
	var err error
	ai.Product, err = scanProductAfter(s, &ai.ID, &ai.AssetID, &ai.ProductID, &ai.Path, &created, &updated, &removed)
	ai.CreatedAt, ai.UpdatedAt, ai.RemovedAt = parseTime(created), parseTime(updated), nullTime(removed)
	return ai, err
}

const installationColumns = `i.id, i.asset_id, i.product_id, i.path, i.created_at, i.updated_at, i.removed_at`

// AssetProducts pages the host's live installations of products not deleted, worst first.
func (q *queries) AssetProducts(ctx context.Context, orgID, assetID int64, page, perPage int) ([]appliance.AssetInstallation, int, error) {
	const from = ` FROM installations i JOIN products p ON p.id = i.product_id
		WHERE i.asset_id = ? AND i.removed_at IS NULL AND p.organization_id = ? AND p.deleted_at IS NULL`
	var total int
	if err := q.queryRow(ctx, `SELECT count(*)`+from, assetID, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count products of host %d: %w", assetID, err)
	}
	items, err := q.assetInstallations(ctx, `SELECT `+installationColumns+`, `+productColumns+from+`
		ORDER BY p.kev_count > 0 DESC, p.max_severity DESC, p.max_score DESC, p.vuln_count DESC, p.name COLLATE NOCASE, p.id
		LIMIT ? OFFSET ?`, assetID, orgID, perPage, (page-1)*perPage)
	if err != nil {
		return nil, 0, fmt.Errorf("list products of host %d: %w", assetID, err)
	}
	return items, total, nil
}

// AssetHistory pages every installation of the host, the latest installed or removed first.
func (q *queries) AssetHistory(ctx context.Context, orgID, assetID int64, page, perPage int) ([]appliance.AssetInstallation, int, error) {
	const from = ` FROM installations i JOIN products p ON p.id = i.product_id WHERE i.asset_id = ? AND p.organization_id = ?`
	var total int
	if err := q.queryRow(ctx, `SELECT count(*)`+from, assetID, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count history of host %d: %w", assetID, err)
	}
	items, err := q.assetInstallations(ctx, `SELECT `+installationColumns+`, `+leanProductColumns+from+`
		ORDER BY coalesce(i.removed_at, i.created_at) DESC, i.id DESC LIMIT ? OFFSET ?`, assetID, orgID, perPage, (page-1)*perPage)
	if err != nil {
		return nil, 0, fmt.Errorf("list history of host %d: %w", assetID, err)
	}
	return items, total, nil
}

// DeleteAsset removes the host; its installations go with it (foreign key cascade) and the
// products it had count one host less.
func (q *queries) DeleteAsset(ctx context.Context, orgID, id int64) error {
	if _, err := q.exec(ctx, `UPDATE product_hosts SET hosts = hosts - 1 WHERE product_id IN
		(SELECT i.product_id FROM installations i JOIN assets a ON a.id = i.asset_id
		 WHERE i.asset_id = ? AND a.organization_id = ? AND i.removed_at IS NULL)`, id, orgID); err != nil {
		return fmt.Errorf("update host counts of host %d's products: %w", id, err)
	}
	if _, err := q.exec(ctx, `UPDATE reported_names SET host_count = host_count - 1 WHERE (organization_id, vendor, name) IN
		(SELECT DISTINCT p.organization_id, p.vendor, p.name FROM installations i JOIN products p ON p.id = i.product_id
		 JOIN assets a ON a.id = i.asset_id WHERE i.asset_id = ? AND a.organization_id = ? AND i.removed_at IS NULL)`, id, orgID); err != nil {
		return fmt.Errorf("update host counts of host %d's reported names: %w", id, err)
	}
	if err := q.execOne(ctx, `DELETE FROM assets WHERE id = ? AND organization_id = ?`, id, orgID); err != nil {
		return fmt.Errorf("delete host %d: %w", id, err)
	}
	return nil
}

// SetAssetTags replaces the host's tags.
func (q *queries) SetAssetTags(ctx context.Context, orgID, id int64, tags []string) error {
	var found int
	if err := q.queryRow(ctx, `SELECT count(*) FROM assets WHERE id = ? AND organization_id = ?`, id, orgID).Scan(&found); err != nil {
		return fmt.Errorf("find host %d: %w", id, err)
	}
	if found == 0 {
		return appliance.ErrNotFound
	}
	if _, err := q.exec(ctx, `DELETE FROM asset_tags WHERE asset_id = ?`, id); err != nil {
		return fmt.Errorf("clear tags of host %d: %w", id, err)
	}
	for _, tag := range tags {
		if _, err := q.exec(ctx, `INSERT OR IGNORE INTO asset_tags (asset_id, tag) VALUES (?, ?)`, id, tag); err != nil {
			return fmt.Errorf("tag host %d: %w", id, err)
		}
	}
	return nil
}

// splitTags reads a comma-joined list of tags (tags hold no commas).
func splitTags(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// orgCVEs is, per CVE, the organization's installed products it affects: how many, the sum
// of their host counts, and whether any has a fix.
const orgCVEs = `SELECT m.cve_id AS cve_id, count(*) AS products, sum(` + productHosts + `) AS hosts,
	max(m.fix_state = 'fixed') AS fix
	FROM products p JOIN matches m ON m.product_id = p.id
	WHERE p.organization_id = ? AND p.deleted_at IS NULL AND ` + productHosts + ` > 0 GROUP BY m.cve_id`

const vulnSeverity = `CASE coalesce(c.severity, '') WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END`

var vulnSorts = map[string][]string{
	"severity": {vulnSeverity, "coalesce(c.score, -1)"}, "score": {"coalesce(c.score, -1)", vulnSeverity},
	"cve_id": {"e.cve_id"}, "hosts": {"e.hosts"}, "products": {"e.products"}, "published": {"coalesce(c.published, '')"},
}

const vulnColumns = `e.cve_id, coalesce(c.description, ''), coalesce(c.severity, ''), c.score, c.published, c.modified,
	k.cve_id IS NOT NULL, k.due_date, e.products, e.hosts, e.fix`

func scanVulnerability(s scanner, extra ...any) (appliance.VulnerabilitySummary, error) {
	var v appliance.VulnerabilitySummary
	var score sql.NullFloat64
	var published, modified, due sql.NullString
	err := s.Scan(append([]any{&v.CVEID, &v.Description, &v.Severity, &score, &published, &modified, &v.KEV, &due,
		&v.ProductCount, &v.HostCount, &v.FixAvailable}, extra...)...)
	v.Score, v.HasScore = score.Float64, score.Valid
	v.Published, v.Modified, v.KEVDue = nullTime(published), nullTime(modified), nullTime(due)
	return v, err
}

// cveConditions adds the filters the CVE and finding lists share, on cves c and kev k: a
// severity (unknown: none of the four), in KEV or not, and a fix known or not (fixed is the
// condition that holds when one is).
func cveConditions(where []string, args []any, severity string, kev, fix *bool, fixed string) ([]string, []any) {
	switch severity {
	case "":
	case "unknown":
		where = append(where, "coalesce(c.severity, '') NOT IN ('critical', 'high', 'medium', 'low')")
	default:
		where, args = append(where, "c.severity = ?"), append(args, severity)
	}
	if kev != nil {
		where = append(where, map[bool]string{true: "k.cve_id IS NOT NULL", false: "k.cve_id IS NULL"}[*kev])
	}
	if fix != nil {
		where = append(where, map[bool]string{true: fixed, false: "NOT (" + fixed + ")"}[*fix])
	}
	return where, args
}

// ListVulnerabilities pages the CVEs affecting the organization's installed products.
func (q *queries) ListVulnerabilities(ctx context.Context, f appliance.VulnerabilityFilter) ([]appliance.VulnerabilitySummary, int, error) {
	var where []string
	args := []any{f.OrganizationID}
	if f.Search != "" {
		like := "%" + likeEscape(f.Search) + "%"
		where = append(where, `(e.cve_id LIKE ? ESCAPE '\' OR c.description LIKE ? ESCAPE '\')`)
		args = append(args, like, like)
	}
	where, args = cveConditions(where, args, f.Severity, f.KEV, f.FixAvailable, "e.fix = 1")
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	// The window counts every row of the filter before the page is cut; the sort reads the
	// CVE's rank columns only (cves_rank_idx covers them), the page's rows their text.
	order := orderBy(vulnSorts, f.Sort, "severity", f.Desc, "e.cve_id")
	rows, err := q.query(ctx, `WITH e AS MATERIALIZED (`+orgCVEs+`),
		pg AS (SELECT e.*, count(*) OVER () AS total FROM e LEFT JOIN cves c ON c.id = e.cve_id LEFT JOIN kev k ON k.cve_id = e.cve_id`+
		cond+` ORDER BY `+order+` LIMIT ? OFFSET ?)
		SELECT `+vulnColumns+`, e.total FROM pg e LEFT JOIN cves c ON c.id = e.cve_id LEFT JOIN kev k ON k.cve_id = e.cve_id
		ORDER BY `+order, append(args, f.PerPage, (f.Page-1)*f.PerPage)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list vulnerabilities: %w", err)
	}
	defer rows.Close()
	out := []appliance.VulnerabilitySummary{}
	total := 0
	for rows.Next() {
		v, err := scanVulnerability(rows, &total)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if len(out) == 0 && f.Page > 1 { // past the end: count alone
		if err := q.queryRow(ctx, `WITH e AS (`+orgCVEs+`) SELECT count(*) FROM e LEFT JOIN cves c ON c.id = e.cve_id
			LEFT JOIN kev k ON k.cve_id = e.cve_id`+cond, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("count vulnerabilities: %w", err)
		}
	}
	return out, total, nil
}

// VulnerabilityByID reads one CVE with the organization's exposure to it.
func (q *queries) VulnerabilityByID(ctx context.Context, orgID int64, cveID string) (appliance.VulnerabilityDetail, error) {
	var d appliance.VulnerabilityDetail
	var added sql.NullString
	var known bool
	v, err := scanVulnerability(q.queryRow(ctx, `WITH e AS (SELECT ? AS cve_id, count(*) AS products, coalesce(sum(`+productHosts+`), 0) AS hosts,
			coalesce(max(m.fix_state = 'fixed'), 0) AS fix
			FROM matches m JOIN products p ON p.id = m.product_id
			WHERE m.cve_id = ? AND p.organization_id = ? AND p.deleted_at IS NULL AND `+productHosts+` > 0)
		SELECT `+vulnColumns+`, c.id IS NOT NULL, coalesce(c.vector, ''), coalesce(c.score_version, ''), coalesce(c.status, ''),
			coalesce(k.name, ''), k.date_added, coalesce(k.ransomware, '')
		FROM e LEFT JOIN cves c ON c.id = e.cve_id LEFT JOIN kev k ON k.cve_id = e.cve_id`, cveID, cveID, orgID),
		&known, &d.Vector, &d.ScoreVersion, &d.Status, &d.KEVName, &added, &d.Ransomware)
	if err != nil {
		return d, fmt.Errorf("read vulnerability %s: %w", cveID, translate(err))
	}
	if !known && v.ProductCount == 0 {
		return d, appliance.ErrNotFound
	}
	d.VulnerabilitySummary, d.Known, d.KEVAdded = v, known, nullTime(added)
	return d, nil
}

// VulnerabilityProducts pages the organization's installed products the CVE affects, most installed first.
func (q *queries) VulnerabilityProducts(ctx context.Context, orgID int64, cveID string, page, perPage int) ([]appliance.AffectedProduct, int, error) {
	const from = ` FROM matches m JOIN products p ON p.id = m.product_id
		WHERE m.cve_id = ? AND p.organization_id = ? AND p.deleted_at IS NULL AND ` + productHosts + ` > 0`
	var total int
	if err := q.queryRow(ctx, `SELECT count(*)`+from, cveID, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count products of %s: %w", cveID, err)
	}
	out, err := queryAll(ctx, q, scanAffectedProduct, `SELECT `+productColumns+`, m.id, m.criteria, m.source, m.basis,
		m.fixed_version, m.fix_state, m.pro_only, m.advisories`+from+` ORDER BY `+productHosts+` DESC, p.name COLLATE NOCASE, p.id
		LIMIT ? OFFSET ?`, cveID, orgID, perPage, (page-1)*perPage)
	if err != nil {
		return nil, 0, fmt.Errorf("list products of %s: %w", cveID, err)
	}
	return out, total, nil
}

// scanAffectedProduct reads a product's columns with its counts, then the match's.
func scanAffectedProduct(s scanner) (appliance.AffectedProduct, error) {
	var a appliance.AffectedProduct
	var err error
	a.Product, err = scanProductBefore(s, &a.MatchID, &a.Criteria, &a.Source, &a.Basis, &a.FixedVersion, &a.FixState, &a.ProOnly, &a.Advisories)
	return a, err
}

// affectedHosts are the ids of the organization's hosts having a product the CVE affects now.
const affectedHosts = `SELECT DISTINCT i.asset_id AS id FROM matches m
	JOIN products p ON p.id = m.product_id AND p.organization_id = ? AND p.deleted_at IS NULL
	JOIN installations i ON i.product_id = m.product_id AND i.removed_at IS NULL
	WHERE m.cve_id = ?`

// VulnerabilityHosts pages the hosts having a product the CVE affects, each once, by hostname.
func (q *queries) VulnerabilityHosts(ctx context.Context, orgID int64, cveID string, page, perPage int) ([]appliance.Asset, int, error) {
	var total int
	if err := q.queryRow(ctx, `SELECT count(*) FROM (`+affectedHosts+`)`, orgID, cveID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count hosts of %s: %w", cveID, err)
	}
	if total <= (page-1)*perPage {
		return []appliance.Asset{}, total, nil
	}
	items, err := q.exposureAssets(ctx, `SELECT `+exposureAssetColumns+` FROM (`+affectedHosts+`) h
		JOIN assets a ON a.id = h.id ORDER BY a.hostname, a.id LIMIT ? OFFSET ?`, orgID, cveID, perPage, (page-1)*perPage)
	if err != nil {
		return nil, 0, fmt.Errorf("list hosts of %s: %w", cveID, err)
	}
	return items, total, nil
}

// ProductAssetsPage pages the hosts having the product now, by hostname.
func (q *queries) ProductAssetsPage(ctx context.Context, orgID, productID int64, page, perPage int) ([]appliance.AssetRef, int, error) {
	var total int
	if err := q.queryRow(ctx, `SELECT h.hosts FROM product_hosts h JOIN products p ON p.id = h.product_id
		WHERE p.id = ? AND p.organization_id = ?`, productID, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count hosts of product %d: %w", productID, translate(err))
	}
	rows, err := q.query(ctx, `SELECT a.id, a.hostname FROM installations i JOIN assets a ON a.id = i.asset_id
		WHERE i.product_id = ? AND i.removed_at IS NULL AND a.organization_id = ? ORDER BY a.hostname, a.id LIMIT ? OFFSET ?`,
		productID, orgID, perPage, (page-1)*perPage)
	if err != nil {
		return nil, 0, fmt.Errorf("list hosts of product %d: %w", productID, err)
	}
	defer rows.Close()
	out := []appliance.AssetRef{}
	for rows.Next() {
		var a appliance.AssetRef
		if err := rows.Scan(&a.ID, &a.Hostname); err != nil {
			return nil, 0, err
		}
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// Dashboard reads an organization's headline numbers in a few indexed queries.
func (q *queries) Dashboard(ctx context.Context, orgID int64, silentBefore, today time.Time) (appliance.DashboardFigures, error) {
	var d appliance.DashboardFigures
	c := &d.Findings
	err := q.queryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE last_seen_at >= ?), coalesce(sum(finding_count), 0),
		coalesce(sum(finding_critical), 0), coalesce(sum(finding_high), 0), coalesce(sum(finding_medium), 0),
		coalesce(sum(finding_low), 0), coalesce(sum(finding_kev), 0) FROM assets WHERE organization_id = ?`,
		fmtTime(silentBefore), orgID).Scan(&d.Hosts, &d.ReportingHosts, &c.Total, &c.Critical, &c.High, &c.Medium, &c.Low, &c.KEV)
	if err != nil {
		return d, fmt.Errorf("count hosts and findings: %w", err)
	}
	d.SilentHosts = d.Hosts - d.ReportingHosts
	rank := 0
	for i, n := range []int{c.Low, c.Medium, c.High, c.Critical} {
		if n > 0 {
			rank = i + 1
		}
	}
	findingCountsOf(c, rank)
	if err := q.queryRow(ctx, `SELECT count(*) FROM remediation_assignments WHERE organization_id = ? AND due_date < ?
		AND status IN ('open', 'in_progress')`, orgID, today.UTC().Format(dateLayout)).Scan(&d.OverdueAssignments); err != nil {
		return d, fmt.Errorf("count overdue assignments: %w", err)
	}
	if err := q.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM products p WHERE p.organization_id = ? AND p.deleted_at IS NULL
		AND p.resolution = 'unresolved' GROUP BY p.vendor, p.name)`, orgID).Scan(&d.UnresolvedNames); err != nil {
		return d, fmt.Errorf("count unresolved names: %w", err)
	}
	var modified, imported sql.NullString
	if err := q.queryRow(ctx, `SELECT (SELECT max(modified) FROM cves), (SELECT max(imported_at) FROM cves)`).Scan(&modified, &imported); err != nil {
		return d, fmt.Errorf("read CVE data age: %w", err)
	}
	d.NewestCVEModified, d.NewestCVEImported = nullTime(modified), nullTime(imported)
	return d, nil
}

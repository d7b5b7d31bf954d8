package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// productHosts is how many hosts have the product p now (kept in product_hosts, counts.go).
const productHosts = `(SELECT h.hosts FROM product_hosts h WHERE h.product_id = p.id)`

// productBaseColumns are a product's columns with its kept counts, without its risk.
const productBaseColumns = `p.id, p.organization_id, p.vendor, p.name, p.version, p.cpe_part, p.cpe_vendor, p.cpe_product,
	p.cpe_update, p.resolution, p.resolution_confidence, p.criticality, p.criticality_set, p.match_generation, p.created_at, p.updated_at,
	p.deleted_at, ` + productHosts + `, p.vuln_count, ` + packageColumns + `,
	EXISTS (SELECT 1 FROM matches m WHERE m.product_id = p.id AND m.fix_state = 'fixed' AND ` + notSuppressed + `),
	p.vuln_critical, p.vuln_high, p.vuln_medium, p.vuln_low, p.kev_count, p.max_severity, p.max_score`

// productColumns leave the risk out (NULL): matching and reconciliation do not need it.
const productColumns = productBaseColumns + `, NULL`

// shownProductColumns add the risk, for what people read: lists, exports and details.
var shownProductColumns = productBaseColumns + `, ` + productRisk

// The kept finding counts (vuln_count and the rest, counts.go) leave out what triage
// suppresses; a list asked to include suppressed findings counts them live instead.
const allFindingsCount = `(SELECT count(*) FROM matches m WHERE m.product_id = p.id AND p.deleted_at IS NULL)`

// notSuppressed holds for a match m that no triage decision takes out of counts (triage.go).
const notSuppressed = `NOT EXISTS (SELECT 1 FROM triage_findings t WHERE t.product_id = m.product_id
	AND t.cve_id = m.cve_id AND t.suppresses = 1)`

// withSuppressed drops the triage conditions (notSuppressed, imageNotSuppressed) from a query
// part, and reads the live count of every finding instead of the kept one, to count
// suppressed findings too.
func withSuppressed(part string, include bool) string {
	if !include {
		return part
	}
	part = strings.ReplaceAll(part, " AND "+notSuppressed, "")
	part = strings.ReplaceAll(part, "p.vuln_count", allFindingsCount)
	return strings.ReplaceAll(part, " AND "+imageNotSuppressed, "")
}

func scanProduct(s scanner) (appliance.Product, error) { return scanProductAfter(s) }

// scanProductAfter reads the columns before (dest), then productColumns.
func scanProductAfter(s scanner, dest ...any) (appliance.Product, error) {
	return scanProductWith(s, dest, nil)
}

// scanProductBefore reads productColumns, then the columns after (dest).
func scanProductBefore(s scanner, dest ...any) (appliance.Product, error) {
	return scanProductWith(s, nil, dest)
}

func scanProductWith(s scanner, before, after []any) (appliance.Product, error) {
	var p appliance.Product
	var created, updated string
	var deleted sql.NullString
	var rank int
	dest := append(append(before, productDest(&p, &created, &updated, &deleted)...), productCountDest(&p, &rank)...)
	dest = append(dest, &p.Risk)
	err := s.Scan(append(dest, after...)...)
	p.CreatedAt, p.UpdatedAt, p.DeletedAt = parseTime(created), parseTime(updated), nullTime(deleted)
	p.Findings.Total = p.VulnerabilityCount
	findingCountsOf(&p.Findings, rank)
	return p, err
}

// productCountDest are the scan destinations of the finding counts ending productColumns.
func productCountDest(p *appliance.Product, rank *int) []any {
	c := &p.Findings
	return []any{&c.Critical, &c.High, &c.Medium, &c.Low, &c.KEV, rank, &c.MaxScore}
}

// productDest are the scan destinations of productColumns (and leanProductColumns).
func productDest(p *appliance.Product, created, updated *string, deleted *sql.NullString) []any {
	return []any{&p.ID, &p.OrganizationID, &p.Vendor, &p.Name, &p.Version, &p.Identity.Part, &p.Identity.Vendor,
		&p.Identity.Product, &p.Update, &p.Resolution, &p.ResolutionConfidence, &p.Criticality, &p.CriticalitySet, &p.MatchGeneration,
		created, updated, deleted, &p.AssetCount, &p.VulnerabilityCount, &p.Package.Source, &p.Package.Release,
		&p.Package.SourcePackage, &p.Package.SourceVersion, &p.Package.PURL, &p.Package.Arch, &p.Package.BundleID,
		&p.Package.Inferred, &p.FixAvailable}
}

func (q *queries) products(ctx context.Context, query string, args ...any) ([]appliance.Product, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []appliance.Product
	for rows.Next() {
		p, err := scanProduct(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// decisionProductColumns are what reconciliation decides on: a product without its counts
// and risk (scanDecisionProduct). Reconciliation reads hundreds of products per host, and the
// driver locks the connection for every column it hands out, so fewer columns is faster.
const decisionProductColumns = `p.id, p.organization_id, p.vendor, p.name, p.version, p.cpe_part, p.cpe_vendor, p.cpe_product,
	p.cpe_update, p.resolution, p.resolution_confidence, p.criticality, p.criticality_set, p.match_generation, p.created_at, p.updated_at,
	p.deleted_at, ` + packageColumns

// scanDecisionProduct reads the columns before (dest), then decisionProductColumns.
func scanDecisionProduct(s scanner, before ...any) (appliance.Product, error) {
	var p appliance.Product
	var created, updated string
	var deleted sql.NullString
	k := &p.Package
	err := s.Scan(append(before, &p.ID, &p.OrganizationID, &p.Vendor, &p.Name, &p.Version, &p.Identity.Part, &p.Identity.Vendor,
		&p.Identity.Product, &p.Update, &p.Resolution, &p.ResolutionConfidence, &p.Criticality, &p.CriticalitySet, &p.MatchGeneration,
		&created, &updated, &deleted, &k.Source, &k.Release, &k.SourcePackage, &k.SourceVersion, &k.PURL, &k.Arch, &k.BundleID,
		&k.Inferred)...)
	p.CreatedAt, p.UpdatedAt, p.DeletedAt = parseTime(created), parseTime(updated), nullTime(deleted)
	return p, err
}

// leanProductColumns skip the counts, in the shape of productColumns (scanProduct).
const leanProductColumns = `p.id, p.organization_id, p.vendor, p.name, p.version, p.cpe_part, p.cpe_vendor, p.cpe_product,
	p.cpe_update, p.resolution, p.resolution_confidence, p.criticality, p.criticality_set, p.match_generation, p.created_at, p.updated_at,
	p.deleted_at, 0, 0, ` + packageColumns + `, 0, 0, 0, 0, 0, 0, 0, 0, NULL`

// packageColumns are a product's package facts (appliance.PackageInfo).
const packageColumns = `p.pkg_source, p.pkg_release, p.source_package, p.source_version, p.purl, p.pkg_arch,
	p.bundle_id, p.pkg_inferred`

// ProductsByKeys finds the organization's products, deleted or not, with the given natural
// keys, in one query.
func (q *queries) ProductsByKeys(ctx context.Context, orgID int64, keys []appliance.ProductKey) (map[appliance.ProductKey]appliance.Product, error) {
	out := make(map[appliance.ProductKey]appliance.Product, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	triples := make([][4]string, len(keys))
	for i, k := range keys {
		triples[i] = [4]string{k.Vendor, k.Name, k.Version, k.Release}
	}
	doc, err := json.Marshal(triples)
	if err != nil {
		return nil, err
	}
	// CROSS JOIN keeps the keys as the outer loop, so each is one lookup in the unique index.
	rows, err := q.query(ctx, `WITH k(vendor, name, version, rel) AS MATERIALIZED
		(SELECT value->>0, value->>1, value->>2, value->>3 FROM json_each(?))
		SELECT `+decisionProductColumns+` FROM k CROSS JOIN products p
		WHERE p.organization_id = ? AND p.vendor = k.vendor AND p.name = k.name AND p.version = k.version
		AND p.pkg_release = k.rel`,
		string(doc), orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanDecisionProduct(rows)
		if err != nil {
			return nil, err
		}
		out[p.Key()] = p
	}
	return out, rows.Err()
}

func (q *queries) ProductChangeSerial(ctx context.Context) (int64, error) {
	var serial int64
	err := q.queryRow(ctx, `SELECT serial FROM product_changes`).Scan(&serial)
	return serial, err
}

// ProductByID finds a live product of the organization.
func (q *queries) ProductByID(ctx context.Context, orgID, id int64) (appliance.Product, error) {
	p, err := scanProduct(q.queryRow(ctx, `SELECT `+shownProductColumns+` FROM products p
		WHERE p.id = ? AND p.organization_id = ? AND p.deleted_at IS NULL`, id, orgID))
	return p, translate(err)
}

// productSorts are the ORDER BY terms of each sort; the direction applies to every term.
var productSorts = map[string][]string{
	"name": {"p.name COLLATE NOCASE"}, "vendor": {"p.vendor COLLATE NOCASE"}, "created_at": {"p.created_at"},
	"criticality": {"p.criticality"}, "updated_at": {"p.updated_at"}, "version": {"p.version"},
	"vulnerability_count": {"p.vuln_count"}, "max_severity": {"p.max_severity", "p.max_score"},
	"kev":  {"p.kev_count", "p.max_severity"},
	"risk": {"coalesce(" + productRisk + ", -1)"},
}

func (q *queries) ListProducts(ctx context.Context, f appliance.ProductFilter) ([]appliance.Product, int, error) {
	cond, args := productWhere(f)
	var total int
	if err := q.queryRow(ctx, `SELECT count(*) FROM products p WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	query := fmt.Sprintf(`SELECT %s FROM products p WHERE %s ORDER BY %s LIMIT ? OFFSET ?`,
		withSuppressed(shownProductColumns, f.IncludeSuppressed), cond, productOrder(f))
	items, err := q.products(ctx, query, append(args, f.PerPage, (f.Page-1)*f.PerPage)...)
	return items, total, err
}

// EachProduct calls fn with every product the filter selects (pages ignored), in list order,
// as rows are read: an export holds one product at a time.
func (q *queries) EachProduct(ctx context.Context, f appliance.ProductFilter, fn func(appliance.Product) error) error {
	cond, args := productWhere(f)
	rows, err := q.query(ctx, fmt.Sprintf(`SELECT %s FROM products p WHERE %s ORDER BY %s`,
		withSuppressed(shownProductColumns, f.IncludeSuppressed), cond, productOrder(f)), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanProduct(rows)
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	return rows.Err()
}

// productWhere is the list filter as a condition on products p.
func productWhere(f appliance.ProductFilter) (string, []any) {
	where := []string{"p.organization_id = ?", "p.deleted_at IS NULL"}
	args := []any{f.OrganizationID}
	if f.Search != "" {
		where = append(where, "p.name LIKE ? ESCAPE '\\'")
		args = append(args, "%"+likeEscape(f.Search)+"%")
	}
	if f.Vendor != "" {
		where = append(where, "p.vendor = ? COLLATE NOCASE")
		args = append(args, f.Vendor)
	}
	if f.Criticality != 0 {
		where = append(where, "p.criticality = ?")
		args = append(args, f.Criticality)
	}
	if f.HasVulnerabilities != nil {
		cond := withSuppressed("p.vuln_count > 0", f.IncludeSuppressed)
		if !*f.HasVulnerabilities {
			cond = "NOT " + cond
		}
		where = append(where, cond)
	}
	if f.Installed != nil {
		cond := productHosts + " > 0"
		if !*f.Installed {
			cond = "NOT " + cond
		}
		where = append(where, cond)
	}
	if f.Resolution != "" {
		where = append(where, "p.resolution = ?")
		args = append(args, f.Resolution)
	}
	if f.FixAvailable != nil {
		cond := withSuppressed("EXISTS (SELECT 1 FROM matches m WHERE m.product_id = p.id AND m.fix_state = 'fixed' AND "+notSuppressed+")", f.IncludeSuppressed)
		if !*f.FixAvailable {
			cond = "NOT " + cond
		}
		where = append(where, cond)
	}
	return strings.Join(where, " AND "), args
}

// productOrder is the list's ORDER BY: the chosen sort, then the id.
func productOrder(f appliance.ProductFilter) string {
	return withSuppressed(orderBy(productSorts, f.Sort, "name", f.Desc, "p.id"), f.IncludeSuppressed)
}

// orderBy is the ORDER BY list of the sort named key in sorts (def when absent), every term
// then the tie-breaking terms, each in the direction desc says.
func orderBy(sorts map[string][]string, key, def string, desc bool, tieBreak ...string) string {
	terms, ok := sorts[key]
	if !ok {
		terms = sorts[def]
	}
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	out := make([]string, 0, len(terms)+len(tieBreak))
	for _, t := range append(append([]string{}, terms...), tieBreak...) {
		out = append(out, t+dir)
	}
	return strings.Join(out, ", ")
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func (q *queries) ProductVulnerabilities(ctx context.Context, orgID, productID int64) ([]appliance.ProductVulnerability, error) {
	rows, err := q.query(ctx, `SELECT m.id, m.cve_id, coalesce(c.severity, ''), c.score, k.cve_id IS NOT NULL,
		k.due_date, m.criteria, m.platform, coalesce(c.description, ''), m.source, m.basis, m.fixed_version, m.fix_state, m.pro_only, m.advisories, `+epssColumns+`,
		`+cveFactColumns+`, `+triageColumns+`
		FROM matches m JOIN products p ON p.id = m.product_id
		LEFT JOIN cves c ON c.id = m.cve_id LEFT JOIN kev k ON k.cve_id = m.cve_id LEFT JOIN epss e ON e.cve_id = m.cve_id
		LEFT JOIN triage_findings t ON t.product_id = m.product_id AND t.cve_id = m.cve_id
		WHERE m.product_id = ? AND p.organization_id = ?
		ORDER BY c.score IS NULL, c.score DESC, m.cve_id`, productID, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.ProductVulnerability{}
	for rows.Next() {
		var v appliance.ProductVulnerability
		var score sql.NullFloat64
		var due sql.NullString
		var epss nullEPSS
		var tr triageScan
		var facts nullCVEFacts
		dest := append([]any{&v.MatchID, &v.CVEID, &v.Severity, &score, &v.KEV, &due, &v.Criteria, &v.Platform, &v.Description,
			&v.Source, &v.Basis, &v.FixedVersion, &v.FixState, &v.ProOnly, &v.Advisories}, epss.dest()...)
		if err := rows.Scan(append(append(dest, facts.dest()...), tr.dest()...)...); err != nil {
			return nil, err
		}
		v.Triage = tr.state()
		v.Score, v.HasScore, v.KEVDue, v.EPSS = score.Float64, score.Valid, nullTime(due), epss.value(v.CVEID)
		v.CVEFacts = facts.value()
		out = append(out, v)
	}
	return out, rows.Err()
}

func (q *queries) CreateProduct(ctx context.Context, p appliance.Product) (int64, error) {
	k := p.Package
	id, err := q.insert(ctx, `INSERT INTO products (organization_id, vendor, name, version, cpe_part, cpe_vendor, cpe_product,
		cpe_update, resolution, resolution_confidence, criticality, criticality_set, match_generation, created_at, updated_at,
		pkg_source, pkg_release, source_package, source_version, purl, pkg_arch, bundle_id, pkg_inferred)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.OrganizationID, p.Vendor, p.Name, p.Version, p.Identity.Part, p.Identity.Vendor, p.Identity.Product, p.Update,
		p.Resolution, p.ResolutionConfidence, p.Criticality, p.CriticalitySet, fmtTime(p.CreatedAt), fmtTime(p.UpdatedAt),
		k.Source, k.Release, k.SourcePackage, k.SourceVersion, k.PURL, k.Arch, k.BundleID, k.Inferred)
	if err != nil || p.Resolution != appliance.ResolutionUnresolved {
		return id, err
	}
	return id, q.trackName(ctx, p.OrganizationID, p.Vendor, p.Name)
}

func (q *queries) UpdateProduct(ctx context.Context, p appliance.Product) error {
	var wasDeleted bool
	var oldVendor, oldName string
	if err := q.queryRow(ctx, `SELECT deleted_at IS NOT NULL, vendor, name FROM products WHERE id = ? AND organization_id = ?`,
		p.ID, p.OrganizationID).Scan(&wasDeleted, &oldVendor, &oldName); err != nil {
		return translate(err)
	}
	err := q.execOne(ctx, `UPDATE products SET vendor = ?, name = ?, version = ?, cpe_part = ?, cpe_vendor = ?, cpe_product = ?,
		cpe_update = ?, resolution = ?, resolution_confidence = ?, criticality = ?, criticality_set = ?, match_generation = ?,
		updated_at = ?, deleted_at = ? WHERE id = ? AND organization_id = ?`,
		p.Vendor, p.Name, p.Version, p.Identity.Part, p.Identity.Vendor, p.Identity.Product, p.Update, p.Resolution,
		p.ResolutionConfidence, p.Criticality, p.CriticalitySet, p.MatchGeneration, fmtTime(p.UpdatedAt), timeOrNull(p.DeletedAt), p.ID, p.OrganizationID)
	if err != nil {
		return err
	}
	if err := q.deletedChanged(ctx, p.ID, wasDeleted, !p.DeletedAt.IsZero()); err != nil {
		return err
	}
	if oldVendor != p.Vendor || oldName != p.Name { // renamed: its hosts move from one reported name to the other
		if err := q.recountName(ctx, p.OrganizationID, oldVendor, oldName, false); err != nil {
			return err
		}
		if err := q.recountName(ctx, p.OrganizationID, p.Vendor, p.Name, p.Resolution == appliance.ResolutionUnresolved); err != nil {
			return err
		}
	} else if p.Resolution == appliance.ResolutionUnresolved {
		if err := q.trackName(ctx, p.OrganizationID, p.Vendor, p.Name); err != nil {
			return err
		}
	}
	return q.refreshProductCounts(ctx, p.ID) // a deleted product has no findings on its hosts
}

func (q *queries) ReplaceMatches(ctx context.Context, productID int64, ms []appliance.MatchInput, generation int64, at time.Time) (int, error) {
	existing := map[string]bool{}
	rows, err := q.query(ctx, `SELECT cve_id FROM matches WHERE product_id = ?`, productID)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		existing[id] = true
	}
	rows.Close()
	want := map[string]bool{}
	for _, m := range ms {
		want[m.CVEID] = true
		if existing[m.CVEID] {
			if _, err := q.exec(ctx, `UPDATE matches SET criteria = ?, platform = ?, source = ?, basis = ?, fixed_version = ?,
				fix_state = ?, pro_only = ?, advisories = ? WHERE product_id = ? AND cve_id = ?`,
				m.Criteria, m.Platform, m.Source, m.Basis, m.FixedVersion, m.FixState, m.ProOnly, m.Advisories,
				productID, m.CVEID); err != nil {
				return 0, err
			}
			continue
		}
		if _, err := q.exec(ctx, `INSERT INTO matches (product_id, cve_id, criteria, platform, created_at, source, basis,
			fixed_version, fix_state, pro_only, advisories) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			productID, m.CVEID, m.Criteria, m.Platform, fmtTime(at), m.Source, m.Basis, m.FixedVersion, m.FixState,
			m.ProOnly, m.Advisories); err != nil {
			return 0, translate(err)
		}
	}
	removed := 0
	for id := range existing {
		if !want[id] {
			if _, err := q.exec(ctx, `DELETE FROM matches WHERE product_id = ? AND cve_id = ?`, productID, id); err != nil {
				return 0, err
			}
			removed++
		}
	}
	if _, err = q.exec(ctx, `UPDATE products SET match_generation = ? WHERE id = ?`, generation, productID); err != nil {
		return 0, err
	}
	return removed, q.refreshProductCounts(ctx, productID)
}

func (q *queries) ProductsToMatch(ctx context.Context, generation int64, after int64, limit int) ([]appliance.Product, error) {
	return q.products(ctx, `SELECT `+productColumns+` FROM products p
		WHERE p.deleted_at IS NULL AND p.id > ? AND (? < 0 OR p.match_generation <> ?) ORDER BY p.id LIMIT ?`,
		after, generation, generation, limit)
}

func (q *queries) UnresolvedProducts(ctx context.Context, after int64, limit int) ([]appliance.Product, error) {
	return q.products(ctx, `SELECT `+productColumns+` FROM products p
		WHERE p.deleted_at IS NULL AND p.resolution = 'unresolved' AND p.id > ? ORDER BY p.id LIMIT ?`, after, limit)
}

func (q *queries) ProductsWithReported(ctx context.Context, orgID int64, vendor, name string) ([]appliance.Product, error) {
	return q.products(ctx, `SELECT `+productColumns+` FROM products p
		WHERE p.organization_id = ? AND p.vendor = ? AND p.name = ?`, orgID, vendor, name)
}

func (q *queries) ReportedNames(ctx context.Context, orgID int64, method appliance.ResolutionMethod) ([][2]string, error) {
	query, args := `SELECT DISTINCT vendor, name FROM products WHERE organization_id = ?`, []any{orgID}
	if method != "" {
		query, args = query+` AND resolution = ?`, append(args, method)
	}
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read reported names: %w", err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var pair [2]string
		if err := rows.Scan(&pair[0], &pair[1]); err != nil {
			return nil, err
		}
		out = append(out, pair)
	}
	return out, rows.Err()
}

// ReviewQueue returns one page of the organization's unresolved reported pairs, most
// installed first, and how many pairs there are. Host counts are the kept counts of
// reported names (a host with two versions counts once), so no installation is read.
func (q *queries) ReviewQueue(ctx context.Context, orgID int64, page, perPage int) ([]appliance.ReviewItem, int, error) {
	const unresolved = `FROM products p WHERE p.organization_id = ? AND p.deleted_at IS NULL AND p.resolution = 'unresolved'`
	var total int
	if err := q.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 `+unresolved+` GROUP BY p.vendor, p.name)`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count review queue: %w", err)
	}
	if total <= (page-1)*perPage {
		return nil, total, nil
	}
	items, err := q.reviewPage(ctx, `SELECT g.vendor, g.name, g.ids, coalesce(r.host_count, 0) AS hosts
		FROM (SELECT p.organization_id AS org, p.vendor AS vendor, p.name AS name, group_concat(p.id) AS ids `+unresolved+`
			GROUP BY p.vendor, p.name) AS g
		LEFT JOIN reported_names r ON r.organization_id = g.org AND r.vendor = g.vendor AND r.name = g.name
		ORDER BY hosts DESC, g.name, g.vendor LIMIT ? OFFSET ?`, orgID, perPage, (page-1)*perPage)
	if err != nil {
		return nil, 0, fmt.Errorf("read review queue: %w", err)
	}
	return items, total, nil
}

func (q *queries) reviewPage(ctx context.Context, query string, args ...any) ([]appliance.ReviewItem, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []appliance.ReviewItem
	for rows.Next() {
		var it appliance.ReviewItem
		var ids string
		if err := rows.Scan(&it.Vendor, &it.Name, &ids, &it.HostCount); err != nil {
			return nil, err
		}
		for _, s := range strings.Split(ids, ",") {
			var id int64
			fmt.Sscan(s, &id)
			it.ProductIDs = append(it.ProductIDs, id)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

func (q *queries) OverrideFor(ctx context.Context, orgID int64, vendorKey, productKey string) (appliance.Override, error) {
	o := appliance.Override{OrganizationID: orgID, VendorKey: vendorKey, ProductKey: productKey}
	var created string
	var by sql.NullInt64
	err := q.queryRow(ctx, `SELECT reported_vendor, reported_name, cpe_part, cpe_vendor, cpe_product, not_tracked, created_by, created_at
		FROM resolution_overrides WHERE organization_id = ? AND vendor_key = ? AND product_key = ?`, orgID, vendorKey, productKey).Scan(
		&o.ReportedVendor, &o.ReportedName, &o.Identity.Part, &o.Identity.Vendor, &o.Identity.Product, &o.NotTracked, &by, &created)
	o.CreatedBy, o.CreatedAt = by.Int64, parseTime(created)
	return o, translate(err)
}

// SaveOverride stores the organization's decision for a pair, replacing an earlier one; a
// "not tracked" decision keeps no identity.
func (q *queries) SaveOverride(ctx context.Context, o appliance.Override) error {
	var by any
	if o.CreatedBy != 0 {
		by = o.CreatedBy
	}
	if o.NotTracked {
		o.Identity = appliance.Identity{}
	}
	_, err := q.exec(ctx, `INSERT INTO resolution_overrides (organization_id, vendor_key, product_key, reported_vendor,
		reported_name, cpe_part, cpe_vendor, cpe_product, not_tracked, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id, vendor_key, product_key) DO UPDATE SET cpe_part = excluded.cpe_part,
		cpe_vendor = excluded.cpe_vendor, cpe_product = excluded.cpe_product, not_tracked = excluded.not_tracked,
		created_by = excluded.created_by, created_at = excluded.created_at, pushed_at = NULL`,
		o.OrganizationID, o.VendorKey, o.ProductKey, o.ReportedVendor, o.ReportedName, o.Identity.Part, o.Identity.Vendor,
		o.Identity.Product, o.NotTracked, by, fmtTime(o.CreatedAt))
	return translate(err)
}

func (q *queries) DeleteOverride(ctx context.Context, orgID int64, vendorKey, productKey string) error {
	_, err := q.exec(ctx, `DELETE FROM resolution_overrides WHERE organization_id = ? AND vendor_key = ? AND product_key = ?`,
		orgID, vendorKey, productKey)
	return err
}

// ProductByKey finds one product, deleted or not, by its natural key (counts not filled).
func (q *queries) ProductByKey(ctx context.Context, orgID int64, k appliance.ProductKey) (appliance.Product, error) {
	found, err := q.ProductsByKeys(ctx, orgID, []appliance.ProductKey{k})
	if err != nil {
		return appliance.Product{}, err
	}
	p, ok := found[k]
	if !ok {
		return appliance.Product{}, appliance.ErrNotFound
	}
	return p, nil
}

// OverridesFor returns the organization's overrides among the given normalized pairs, in one query.
func (q *queries) OverridesFor(ctx context.Context, orgID int64, keys [][2]string) (map[[2]string]appliance.Override, error) {
	out := map[[2]string]appliance.Override{}
	if len(keys) == 0 {
		return out, nil
	}
	doc, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	rows, err := q.query(ctx, `WITH k(v, p) AS MATERIALIZED (SELECT value->>0, value->>1 FROM json_each(?))
		SELECT o.vendor_key, o.product_key, o.cpe_part, o.cpe_vendor, o.cpe_product, o.not_tracked FROM k CROSS JOIN resolution_overrides o
		WHERE o.organization_id = ? AND o.vendor_key = k.v AND o.product_key = k.p`, string(doc), orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		o := appliance.Override{OrganizationID: orgID}
		if err := rows.Scan(&o.VendorKey, &o.ProductKey, &o.Identity.Part, &o.Identity.Vendor, &o.Identity.Product, &o.NotTracked); err != nil {
			return nil, err
		}
		out[[2]string{o.VendorKey, o.ProductKey}] = o
	}
	return out, rows.Err()
}

// HasOverrides reports whether the organization confirmed any identity.
func (q *queries) HasOverrides(ctx context.Context, orgID int64) (bool, error) {
	var ok bool
	err := q.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM resolution_overrides WHERE organization_id = ?)`, orgID).Scan(&ok)
	return ok, err
}

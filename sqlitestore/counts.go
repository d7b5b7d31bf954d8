package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// The counters of migration 0010 are kept here, in the transaction of the change: a product's
// finding counts when its matches or its deleted state change (and the difference on every
// host that has it now), a product's host count and a host's sums when installations come
// and go. What each counter means is the query of CountDrift, which recomputes them all.

// productCounts are the counter columns of one product.
type productCounts struct {
	total, critical, high, medium, low, kev, maxSeverity int
	maxScore                                             float64
}

const severityRank = `CASE c.severity WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END`

// refreshProductCounts recomputes the product's finding counts from its matches (zero while
// it is deleted; findings a triage decision suppresses left out) and adds what changed to the
// hosts that have it now.
func (q *queries) refreshProductCounts(ctx context.Context, productID int64) error {
	var old, cur productCounts
	err := q.queryRow(ctx, `SELECT vuln_count, vuln_critical, vuln_high, vuln_medium, vuln_low, kev_count, max_severity, max_score
		FROM products WHERE id = ?`, productID).Scan(&old.total, &old.critical, &old.high, &old.medium, &old.low, &old.kev,
		&old.maxSeverity, &old.maxScore)
	if err != nil {
		return fmt.Errorf("read counts of product %d: %w", productID, translate(err))
	}
	err = q.queryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE c.severity = 'critical'), count(*) FILTER (WHERE c.severity = 'high'),
		count(*) FILTER (WHERE c.severity = 'medium'), count(*) FILTER (WHERE c.severity = 'low'), count(k.cve_id),
		coalesce(max(`+severityRank+`), 0), coalesce(max(c.score), 0)
		FROM matches m JOIN products p ON p.id = m.product_id AND p.deleted_at IS NULL
		LEFT JOIN cves c ON c.id = m.cve_id LEFT JOIN kev k ON k.cve_id = m.cve_id
		WHERE m.product_id = ? AND `+notSuppressed, productID).Scan(&cur.total, &cur.critical, &cur.high, &cur.medium, &cur.low, &cur.kev,
		&cur.maxSeverity, &cur.maxScore)
	if err != nil {
		return fmt.Errorf("count findings of product %d: %w", productID, err)
	}
	if cur == old {
		return nil
	}
	if _, err := q.exec(ctx, `UPDATE products SET vuln_count = ?, vuln_critical = ?, vuln_high = ?, vuln_medium = ?, vuln_low = ?,
		kev_count = ?, max_severity = ?, max_score = ? WHERE id = ?`,
		cur.total, cur.critical, cur.high, cur.medium, cur.low, cur.kev, cur.maxSeverity, cur.maxScore, productID); err != nil {
		return fmt.Errorf("store counts of product %d: %w", productID, err)
	}
	d := productCounts{total: cur.total - old.total, critical: cur.critical - old.critical, high: cur.high - old.high,
		medium: cur.medium - old.medium, low: cur.low - old.low, kev: cur.kev - old.kev}
	if d == (productCounts{}) {
		return nil
	}
	_, err = q.exec(ctx, `UPDATE assets SET finding_count = finding_count + ?, finding_critical = finding_critical + ?,
		finding_high = finding_high + ?, finding_medium = finding_medium + ?, finding_low = finding_low + ?, finding_kev = finding_kev + ?
		WHERE id IN (SELECT asset_id FROM installations WHERE product_id = ? AND removed_at IS NULL)`,
		d.total, d.critical, d.high, d.medium, d.low, d.kev, productID)
	if err != nil {
		return fmt.Errorf("update host counts for product %d: %w", productID, err)
	}
	return nil
}

// pairSource is a SELECT of (aid, pid) pairs — asset id, product id — whose parameters are
// bound from ?2 on, for installationsChanged to read as "pairs".
type pairSource struct {
	query string
	args  []any
}

// listedPairs are pairs given as a list (bound as one JSON array).
func listedPairs(pairs [][2]int64) (pairSource, error) {
	doc, err := json.Marshal(pairs)
	if err != nil {
		return pairSource{}, err
	}
	return pairSource{`SELECT value->>0 AS aid, value->>1 AS pid FROM json_each(?2)`, []any{string(doc)}}, nil
}

// insertedPairs are the installations whose ids run from first to last.
func insertedPairs(first, last int64) pairSource {
	return pairSource{`SELECT asset_id AS aid, product_id AS pid FROM installations WHERE id BETWEEN ?2 AND ?3`, []any{first, last}}
}

// installationsChanged adds (sign 1) or subtracts (sign -1) installations of products on hosts
// to the products' host counts and the hosts' sums.
func (q *queries) installationsChanged(ctx context.Context, pairs [][2]int64, sign int) error {
	if len(pairs) == 0 {
		return nil
	}
	src, err := listedPairs(pairs)
	if err != nil {
		return err
	}
	return q.pairsChanged(ctx, src, sign)
}

func (q *queries) pairsChanged(ctx context.Context, src pairSource, sign int) error {
	args := append([]any{sign}, src.args...)
	with := `WITH pairs AS (` + src.query + `) `
	if _, err := q.exec(ctx, with+`UPDATE product_hosts SET hosts = hosts + d.n * ?1
		FROM (SELECT pid, count(*) AS n FROM pairs GROUP BY 1) AS d WHERE product_hosts.product_id = d.pid`, args...); err != nil {
		return fmt.Errorf("update host counts of products: %w", err)
	}
	_, err := q.exec(ctx, with+`UPDATE assets SET product_count = product_count + d.n * ?1, finding_count = finding_count + d.t * ?1,
		finding_critical = finding_critical + d.c * ?1, finding_high = finding_high + d.h * ?1,
		finding_medium = finding_medium + d.m * ?1, finding_low = finding_low + d.l * ?1, finding_kev = finding_kev + d.k * ?1
		FROM (SELECT j.aid AS aid, sum(p.deleted_at IS NULL) AS n, sum(p.vuln_count) AS t, sum(p.vuln_critical) AS c, sum(p.vuln_high) AS h,
			sum(p.vuln_medium) AS m, sum(p.vuln_low) AS l, sum(p.kev_count) AS k
			FROM pairs j JOIN products p ON p.id = j.pid GROUP BY 1) AS d
		WHERE assets.id = d.aid`, args...)
	if err != nil {
		return fmt.Errorf("update finding counts of hosts: %w", err)
	}
	return q.namesChanged(ctx, with, args)
}

// namesChanged moves the host counts of reported names after the installations of the pairs
// (with: the pairs' WITH clause, args its parameters after the sign) were added (sign 1) or
// removed (-1): a host counts for a name when the pairs are all the live installations of that
// name it has now (added: it had none before; removed: none is left). Only tracked names are
// counted (see trackName).
func (q *queries) namesChanged(ctx context.Context, with string, args []any) error {
	_, err := q.exec(ctx, with+`UPDATE reported_names SET host_count = host_count + d.hosts * ?1 FROM (
			SELECT org, vendor, name, count(*) AS hosts FROM (
				SELECT j.aid AS aid, p.organization_id AS org, p.vendor AS vendor, p.name AS name, count(*) AS n
				FROM pairs j JOIN products p ON p.id = j.pid
				JOIN reported_names r ON r.organization_id = p.organization_id AND r.vendor = p.vendor AND r.name = p.name
				GROUP BY 1, 2, 3, 4) AS b
			WHERE (SELECT count(*) FROM products p2 JOIN installations i ON i.product_id = p2.id AND i.asset_id = b.aid AND i.removed_at IS NULL
				WHERE p2.organization_id = b.org AND p2.vendor = b.vendor AND p2.name = b.name) = CASE WHEN ?1 > 0 THEN b.n ELSE 0 END
			GROUP BY 1, 2, 3) AS d
		WHERE reported_names.organization_id = d.org AND reported_names.vendor = d.vendor AND reported_names.name = d.name`, args...)
	if err != nil {
		return fmt.Errorf("update host counts of reported names: %w", err)
	}
	return nil
}

// trackName starts counting the hosts of a reported name once one of its products is
// unresolved (the review queue lists only those); a tracked name stays tracked.
func (q *queries) trackName(ctx context.Context, orgID int64, vendor, name string) error {
	var tracked bool
	if err := q.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM reported_names WHERE organization_id = ? AND vendor = ? AND name = ?)`,
		orgID, vendor, name).Scan(&tracked); err != nil || tracked {
		return err
	}
	return q.recountName(ctx, orgID, vendor, name, true)
}

// recountName recomputes the host count of one reported name if it is tracked, or tracks
// it when track says so.
func (q *queries) recountName(ctx context.Context, orgID int64, vendor, name string, track bool) error {
	_, err := q.exec(ctx, `INSERT INTO reported_names (organization_id, vendor, name, host_count)
		SELECT ?1, ?2, ?3, (SELECT count(DISTINCT i.asset_id) FROM products p JOIN installations i ON i.product_id = p.id
			AND i.removed_at IS NULL WHERE p.organization_id = ?1 AND p.vendor = ?2 AND p.name = ?3)
		WHERE ?4 OR EXISTS (SELECT 1 FROM reported_names WHERE organization_id = ?1 AND vendor = ?2 AND name = ?3)
		ON CONFLICT (organization_id, vendor, name) DO UPDATE SET host_count = excluded.host_count`, orgID, vendor, name, track)
	if err != nil {
		return fmt.Errorf("count hosts of %q %q: %w", vendor, name, err)
	}
	return nil
}

// severityName names a max_severity rank for a product with findings.
func severityName(rank, total int) string {
	if total == 0 {
		return ""
	}
	return [...]string{"unknown", "low", "medium", "high", "critical"}[min(max(rank, 0), 4)]
}

// findingCountsOf fills the severity counts not stored (unknown) and the worst severity.
func findingCountsOf(c *appliance.FindingCounts, rank int) {
	c.Unknown = c.Total - c.Critical - c.High - c.Medium - c.Low
	c.MaxSeverity = severityName(rank, c.Total)
}

// deletedChanged moves a product's hosts' product counts when the product is deleted
// (wasDeleted false, now true) or comes back: a host counts the products not deleted.
func (q *queries) deletedChanged(ctx context.Context, productID int64, wasDeleted, isDeleted bool) error {
	if wasDeleted == isDeleted {
		return nil
	}
	d := 1
	if isDeleted {
		d = -1
	}
	_, err := q.exec(ctx, `UPDATE assets SET product_count = product_count + ?
		WHERE id IN (SELECT asset_id FROM installations WHERE product_id = ? AND removed_at IS NULL)`, d, productID)
	if err != nil {
		return fmt.Errorf("update product counts of product %d's hosts: %w", productID, err)
	}
	return nil
}

// freshProductCounts recomputes every product's counters from installations and matches.
const freshProductCounts = `SELECT p.id AS id,
	(SELECT count(*) FROM installations i WHERE i.product_id = p.id AND i.removed_at IS NULL) AS asset_count,
	count(m.id) AS total, count(*) FILTER (WHERE c.severity = 'critical') AS critical,
	count(*) FILTER (WHERE c.severity = 'high') AS high, count(*) FILTER (WHERE c.severity = 'medium') AS medium,
	count(*) FILTER (WHERE c.severity = 'low') AS low, count(k.cve_id) AS kev,
	coalesce(max(CASE WHEN m.id IS NOT NULL THEN ` + severityRank + ` END), 0) AS max_severity, coalesce(max(c.score), 0) AS max_score
	FROM products p LEFT JOIN matches m ON m.product_id = p.id AND p.deleted_at IS NULL AND ` + notSuppressed + `
	LEFT JOIN cves c ON c.id = m.cve_id LEFT JOIN kev k ON k.cve_id = m.cve_id GROUP BY p.id`

// CountDrift recomputes every kept counter from scratch (installations, matches, CVE and KEV
// data) and describes each stored value that differs; none after any sequence of writes.
func (s *Store) CountDrift(ctx context.Context) ([]string, error) {
	var out []string
	rows, err := s.reader.QueryContext(ctx, `WITH f AS (`+freshProductCounts+`)
		SELECT p.id, h.hosts, p.vuln_count, p.vuln_critical, p.vuln_high, p.vuln_medium, p.vuln_low, p.kev_count,
			p.max_severity, p.max_score, f.asset_count, f.total, f.critical, f.high, f.medium, f.low, f.kev, f.max_severity, f.max_score
		FROM products p JOIN f ON f.id = p.id JOIN product_hosts h ON h.product_id = p.id
		WHERE (h.hosts, p.vuln_count, p.vuln_critical, p.vuln_high, p.vuln_medium, p.vuln_low, p.kev_count, p.max_severity,
			p.max_score) IS NOT (f.asset_count, f.total, f.critical, f.high, f.medium, f.low, f.kev, f.max_severity, f.max_score)`)
	if err != nil {
		return nil, fmt.Errorf("recompute product counts: %w", err)
	}
	if out, err = driftRows(rows, "product", out); err != nil {
		return nil, err
	}
	rows, err = s.reader.QueryContext(ctx, `WITH f AS (SELECT a.id AS id,
			count(p.id) AS products, coalesce(sum(p.total), 0) AS total, coalesce(sum(p.critical), 0) AS critical,
			coalesce(sum(p.high), 0) AS high, coalesce(sum(p.medium), 0) AS medium, coalesce(sum(p.low), 0) AS low,
			coalesce(sum(p.kev), 0) AS kev
		FROM assets a LEFT JOIN installations i ON i.asset_id = a.id AND i.removed_at IS NULL
		LEFT JOIN (`+freshProductCounts+`) p ON p.id = i.product_id AND p.id IN (SELECT id FROM products WHERE deleted_at IS NULL)
		GROUP BY a.id)
		SELECT a.id, a.product_count, a.finding_count, a.finding_critical, a.finding_high, a.finding_medium, a.finding_low, a.finding_kev,
			f.products, f.total, f.critical, f.high, f.medium, f.low, f.kev
		FROM assets a JOIN f ON f.id = a.id
		WHERE (a.product_count, a.finding_count, a.finding_critical, a.finding_high, a.finding_medium, a.finding_low, a.finding_kev)
			IS NOT (f.products, f.total, f.critical, f.high, f.medium, f.low, f.kev)`)
	if err != nil {
		return nil, fmt.Errorf("recompute host counts: %w", err)
	}
	if out, err = driftRows(rows, "host", out); err != nil {
		return nil, err
	}
	rows, err = s.reader.QueryContext(ctx, `WITH f AS (SELECT p.organization_id AS org, p.vendor AS vendor, p.name AS name,
			count(DISTINCT i.asset_id) AS hosts, max(p.resolution = 'unresolved') AS must_track
		FROM products p LEFT JOIN installations i ON i.product_id = p.id AND i.removed_at IS NULL GROUP BY 1, 2, 3)
		SELECT f.org || ' ' || f.vendor || ' ' || f.name, coalesce(r.host_count, 'untracked'), f.hosts
		FROM f LEFT JOIN reported_names r ON r.organization_id = f.org AND r.vendor = f.vendor AND r.name = f.name
		WHERE (r.host_count IS NULL AND f.must_track) OR r.host_count <> f.hosts
		UNION ALL SELECT r.organization_id || ' ' || r.vendor || ' ' || r.name, r.host_count, 0 FROM reported_names r
		WHERE r.host_count <> 0 AND NOT EXISTS (SELECT 1 FROM products p WHERE p.organization_id = r.organization_id
			AND p.vendor = r.vendor AND p.name = r.name)`)
	if err != nil {
		return nil, fmt.Errorf("recompute host counts of reported names: %w", err)
	}
	return driftRows(rows, "reported name", out)
}

// driftRows describes each row of id, stored values and recomputed values.
func driftRows(rows *sql.Rows, what string, out []string) ([]string, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	n := (len(cols) - 1) / 2
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%s %v: stored %v, recomputed %v", what, vals[0], vals[1:1+n], vals[1+n:]))
	}
	return out, rows.Err()
}

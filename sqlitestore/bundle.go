package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// nowText is SQLite's clock in timeLayout, for rows whose writers carry no time of their own.
const nowText = `strftime('%Y-%m-%dT%H:%M:%f000Z', 'now')`

// sinceText is the lower bound of a change query: every row when since is zero, including
// rows written before their table had a change time.
func sinceText(since time.Time) string {
	if since.IsZero() {
		return ""
	}
	return fmtTime(since)
}

// eachRow runs a query and hands fn every row that scan reads.
func eachRow[T any](ctx context.Context, q *queries, query string, args []any, scan func(*sql.Rows) (T, error), fn func(T) error) error {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (q *queries) EachChangedCVE(ctx context.Context, since time.Time, fn func(appliance.CVERecord) error) error {
	return eachRow(ctx, q, `SELECT id, description, status, published, modified, score, vector, severity, score_version,
		configurations FROM cves WHERE imported_at >= ? ORDER BY id`, []any{sinceText(since)},
		func(rows *sql.Rows) (appliance.CVERecord, error) {
			var c appliance.CVERecord
			var published, modified sql.NullString
			var score sql.NullFloat64
			err := rows.Scan(&c.ID, &c.Description, &c.Status, &published, &modified, &score, &c.Vector, &c.Severity,
				&c.ScoreVersion, &c.Configurations)
			c.Published, c.Modified, c.Score, c.HasScore = nullTime(published), nullTime(modified), score.Float64, score.Valid
			return c, err
		}, fn)
}

func (q *queries) EachCVERemoval(ctx context.Context, since time.Time, fn func(id string) error) error {
	return eachRow(ctx, q, `SELECT id FROM cve_removals WHERE removed_at >= ? ORDER BY id`, []any{sinceText(since)},
		func(rows *sql.Rows) (string, error) {
			var id string
			return id, rows.Scan(&id)
		}, fn)
}

func (q *queries) EachChangedKEV(ctx context.Context, since time.Time, fn func(appliance.KEVRecord) error) error {
	return eachRow(ctx, q, `SELECT cve_id, name, date_added, due_date, ransomware FROM kev WHERE imported_at >= ?
		ORDER BY cve_id`, []any{sinceText(since)},
		func(rows *sql.Rows) (appliance.KEVRecord, error) {
			var k appliance.KEVRecord
			var added, due sql.NullString
			err := rows.Scan(&k.CVEID, &k.Name, &added, &due, &k.Ransomware)
			k.DateAdded, k.DueDate = nullTime(added), nullTime(due)
			return k, err
		}, fn)
}

func (q *queries) EachChangedEPSS(ctx context.Context, since time.Time, fn func(appliance.EPSSScore) error) error {
	return eachRow(ctx, q, `SELECT cve_id, score, percentile, score_date FROM epss WHERE imported_at >= ? ORDER BY cve_id`,
		[]any{sinceText(since)},
		func(rows *sql.Rows) (appliance.EPSSScore, error) {
			var s appliance.EPSSScore
			var date sql.NullString
			err := rows.Scan(&s.CVEID, &s.Score, &s.Percentile, &date)
			s.Date = parseDate(date)
			return s, err
		}, fn)
}

func (q *queries) EachChangedAdvisory(ctx context.Context, since time.Time, fn func(appliance.AdvisoryEntry) error) error {
	return eachRow(ctx, q, `SELECT source, id, ecosystem, package, distro, release, fixed, fix_state, pro_only,
		withdrawn, binaries, cves, detail FROM advisories WHERE imported_at >= ? ORDER BY source, id, ecosystem, package`,
		[]any{sinceText(since)}, scanAdvisoryEntry, fn)
}

func scanAdvisoryEntry(rows *sql.Rows) (appliance.AdvisoryEntry, error) {
	var e appliance.AdvisoryEntry
	var bins, cves string
	if err := rows.Scan(&e.Source, &e.ID, &e.Ecosystem, &e.Package, &e.Distro, &e.Release, &e.Fixed, &e.FixState,
		&e.ProOnly, &e.Withdrawn, &bins, &cves, &e.Detail); err != nil {
		return e, err
	}
	if err := json.Unmarshal([]byte(bins), &e.Binaries); err != nil {
		return e, fmt.Errorf("advisory %s %s binaries: %w", e.ID, e.Package, err)
	}
	if err := json.Unmarshal([]byte(cves), &e.CVEs); err != nil {
		return e, fmt.Errorf("advisory %s %s cves: %w", e.ID, e.Package, err)
	}
	return e, nil
}

func (q *queries) EachChangedCatalogEntry(ctx context.Context, since time.Time, fn func(appliance.CatalogEntry) error) error {
	return eachRow(ctx, q, `SELECT part, vendor, product, title, deprecated, source, cve_used, platform FROM catalog
		WHERE updated_at >= ? ORDER BY id`, []any{sinceText(since)},
		func(rows *sql.Rows) (appliance.CatalogEntry, error) {
			var e appliance.CatalogEntry
			return e, rows.Scan(&e.Part, &e.Vendor, &e.Product, &e.Title, &e.Deprecated, &e.Source, &e.CVEUsed, &e.Platform)
		}, fn)
}

func (q *queries) FeedBundle(ctx context.Context, serial int64) (appliance.FeedBundle, error) {
	b := appliance.FeedBundle{Serial: serial}
	var created string
	err := q.queryRow(ctx, `SELECT since, created_at FROM feed_bundles WHERE serial = ?`, serial).Scan(&b.Since, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return b, appliance.NotFound("this installation wrote no bundle %d", serial)
	}
	b.CreatedAt = parseTime(created)
	return b, translate(err)
}

func (q *queries) CreateFeedBundle(ctx context.Context, since int64, at time.Time) (appliance.FeedBundle, error) {
	b := appliance.FeedBundle{Since: since, CreatedAt: at}
	err := q.queryRow(ctx, `INSERT INTO feed_bundles (serial, since, created_at)
		VALUES ((SELECT coalesce(max(serial), 0) + 1 FROM feed_bundles), ?, ?) RETURNING serial`,
		since, fmtTime(at)).Scan(&b.Serial)
	return b, translate(err)
}

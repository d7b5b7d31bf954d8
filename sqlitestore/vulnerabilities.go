package sqlitestore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func (q *queries) Generation(ctx context.Context, name string) (int64, error) {
	var v int64
	err := q.queryRow(ctx, `SELECT value FROM generations WHERE name = ?`, name).Scan(&v)
	return v, translate(err)
}

func (q *queries) BumpGeneration(ctx context.Context, name string) (int64, error) {
	var v int64
	err := q.queryRow(ctx, `UPDATE generations SET value = value + 1 WHERE name = ? RETURNING value`, name).Scan(&v)
	return v, translate(err)
}

func (q *queries) EachCVEConfiguration(ctx context.Context, fn func(id string, configurations []byte) error) error {
	rows, err := q.query(ctx, `SELECT id, configurations FROM cves WHERE configurations IS NOT NULL`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var cfg []byte
		if err := rows.Scan(&id, &cfg); err != nil {
			return err
		}
		if err := fn(id, cfg); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (q *queries) EachCatalogEntry(ctx context.Context, fn func(appliance.CatalogEntry) error) error {
	rows, err := q.query(ctx, `SELECT part, vendor, product, title, deprecated, source, cve_used, platform FROM catalog`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e appliance.CatalogEntry
		if err := rows.Scan(&e.Part, &e.Vendor, &e.Product, &e.Title, &e.Deprecated, &e.Source, &e.CVEUsed, &e.Platform); err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (q *queries) CVEExists(ctx context.Context, id string) (bool, error) {
	var n int
	err := q.queryRow(ctx, `SELECT count(*) FROM cves WHERE id = ?`, id).Scan(&n)
	return n > 0, err
}

// UpsertCVE stores a CVE. NVD's record replaces everything, except that one without
// configurations keeps those a CVE JSON 5 record gave (until NVD enriches the CVE); a CVE JSON 5
// record never replaces one NVD enriched.
func (q *queries) UpsertCVE(ctx context.Context, c appliance.CVERecord, at time.Time) error {
	var score any
	if c.HasScore {
		score = c.Score
	}
	refs, err := json.Marshal(nonNil(c.References))
	if err != nil {
		return err
	}
	origin := c.Origin
	if origin == "" {
		origin = "nvd"
	}
	keepCVE5 := `cves.origin = 'cve5' AND excluded.configurations IS NULL`
	_, err = q.exec(ctx, `INSERT INTO cves (id, description, status, published, modified, score, vector, severity,
		score_version, score_source, configurations, refs, origin, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET description = excluded.description, status = excluded.status,
		published = excluded.published, modified = excluded.modified,
		score = CASE WHEN `+keepCVE5+` AND excluded.score IS NULL THEN cves.score ELSE excluded.score END,
		vector = CASE WHEN `+keepCVE5+` AND excluded.score IS NULL THEN cves.vector ELSE excluded.vector END,
		severity = CASE WHEN `+keepCVE5+` AND excluded.score IS NULL THEN cves.severity ELSE excluded.severity END,
		score_version = CASE WHEN `+keepCVE5+` AND excluded.score IS NULL THEN cves.score_version ELSE excluded.score_version END,
		score_source = CASE WHEN `+keepCVE5+` AND excluded.score IS NULL THEN cves.score_source ELSE excluded.score_source END,
		configurations = CASE WHEN `+keepCVE5+` THEN cves.configurations ELSE excluded.configurations END,
		refs = CASE WHEN `+keepCVE5+` AND excluded.refs = '[]' THEN cves.refs ELSE excluded.refs END,
		origin = CASE WHEN `+keepCVE5+` THEN cves.origin ELSE excluded.origin END,
		imported_at = excluded.imported_at
		WHERE excluded.origin = 'nvd' OR cves.origin = 'cve5' OR cves.configurations IS NULL`,
		c.ID, c.Description, c.Status, timeOrNull(c.Published), timeOrNull(c.Modified), score, c.Vector, c.Severity,
		c.ScoreVersion, c.ScoreSource, c.Configurations, string(refs), origin, fmtTime(at))
	return translate(err)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (q *queries) DeleteCVE(ctx context.Context, id string) error {
	res, err := q.exec(ctx, `DELETE FROM cves WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	// A bundle carries the removal to installations that hold the CVE.
	_, err = q.exec(ctx, `INSERT INTO cve_removals (id, removed_at) VALUES (?, `+nowText+`)
		ON CONFLICT (id) DO UPDATE SET removed_at = excluded.removed_at`, id)
	return err
}

func (q *queries) UpsertKEV(ctx context.Context, k appliance.KEVRecord) error {
	_, err := q.exec(ctx, `INSERT INTO kev (cve_id, name, date_added, due_date, ransomware, imported_at)
		VALUES (?, ?, ?, ?, ?, `+nowText+`)
		ON CONFLICT (cve_id) DO UPDATE SET name = excluded.name, date_added = excluded.date_added,
		due_date = excluded.due_date, ransomware = excluded.ransomware, imported_at = excluded.imported_at`,
		k.CVEID, k.Name, timeOrNull(k.DateAdded), timeOrNull(k.DueDate), k.Ransomware)
	return translate(err)
}

func (q *queries) UpsertCatalogEntry(ctx context.Context, e appliance.CatalogEntry, at time.Time) error {
	// platform folds as appliance.MergePlatform does.
	const mergedPlatform = `CASE WHEN catalog.platform = '' THEN excluded.platform
		WHEN excluded.platform IN ('', catalog.platform) THEN catalog.platform ELSE '*' END`
	_, err := q.exec(ctx, `INSERT INTO catalog (part, vendor, product, title, deprecated, source, cve_used, platform, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (part, vendor, product) DO UPDATE SET
		title = CASE WHEN excluded.title <> '' THEN excluded.title ELSE catalog.title END,
		deprecated = excluded.deprecated, cve_used = max(catalog.cve_used, excluded.cve_used),
		platform = `+mergedPlatform+`, updated_at = excluded.updated_at
		WHERE (excluded.title <> '' AND excluded.title <> catalog.title) OR excluded.deprecated <> catalog.deprecated
		   OR excluded.cve_used > catalog.cve_used OR `+mergedPlatform+` <> catalog.platform`,
		e.Part, e.Vendor, e.Product, e.Title, e.Deprecated, e.Source, e.CVEUsed, e.Platform, fmtTime(at))
	return translate(err)
}

package sqlitestore

import (
	"context"
	"database/sql"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func (q *queries) CreateActivationCode(ctx context.Context, c appliance.ActivationCode) (int64, error) {
	return q.insert(ctx, `INSERT INTO activation_codes (code_hash, edition, valid_seconds, customer, created_at) VALUES (?, ?, ?, ?, ?)`,
		c.Hash, c.Edition, int64(c.ValidFor/time.Second), c.Customer, fmtTime(c.CreatedAt))
}

func (q *queries) ActivationCodeByHash(ctx context.Context, hash string) (appliance.ActivationCode, error) {
	var c appliance.ActivationCode
	var secs int64
	var created string
	var licID, inst sql.NullString
	err := q.queryRow(ctx, `SELECT c.id, c.code_hash, c.edition, c.valid_seconds, c.customer, c.created_at, l.id, l.installation_id
		FROM activation_codes c LEFT JOIN licenses l ON l.code_id = c.id WHERE c.code_hash = ?`, hash).Scan(
		&c.ID, &c.Hash, &c.Edition, &secs, &c.Customer, &created, &licID, &inst)
	c.ValidFor, c.CreatedAt, c.LicenseID, c.Installation = time.Duration(secs)*time.Second, parseTime(created), licID.String, inst.String
	return c, translate(err)
}

func (q *queries) CreateLicense(ctx context.Context, l appliance.License) error {
	_, err := q.exec(ctx, `INSERT INTO licenses (id, code_id, installation_id, edition, customer, issued_at, expires_at, credential_hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, l.ID, l.CodeID, l.InstallationID, l.Edition, l.Customer, fmtTime(l.IssuedAt),
		fmtTime(l.ExpiresAt), l.CredentialHash)
	return translate(err)
}

const licenseColumns = `id, code_id, installation_id, edition, customer, issued_at, expires_at, credential_hash`

func (q *queries) license(ctx context.Context, where string, arg any) (appliance.License, error) {
	var l appliance.License
	var issued, expires string
	err := q.queryRow(ctx, `SELECT `+licenseColumns+` FROM licenses WHERE `+where, arg).Scan(
		&l.ID, &l.CodeID, &l.InstallationID, &l.Edition, &l.Customer, &issued, &expires, &l.CredentialHash)
	l.IssuedAt, l.ExpiresAt = parseTime(issued), parseTime(expires)
	return l, translate(err)
}

func (q *queries) LicenseByCredential(ctx context.Context, hash string) (appliance.License, error) {
	return q.license(ctx, "credential_hash = ?", hash)
}

func (q *queries) LicenseByID(ctx context.Context, id string) (appliance.License, error) {
	return q.license(ctx, "id = ?", id)
}

// pullUnion is every mapping a pull may serve: catalogue rows as source nvd, and published
// (or retracted, so clients delete them) curated and community rows.
const pullUnion = `SELECT 'nvd' AS source, id, part, vendor AS vp, product AS pp, vendor AS cv, product AS cp,
		1.0 AS confidence, 0 AS contributions, 0 AS retracted, updated_at FROM catalog WHERE ?1 IN ('', 'nvd')
	UNION ALL
	SELECT source, id, '', vendor_pattern, product_pattern, cpe_vendor, cpe_product, confidence, contribution_count,
		retracted, updated_at FROM kb_mappings
	WHERE (is_published = 1 OR retracted = 1) AND source <> 'nvd' AND (?1 = '' OR source = ?1)`

func (q *queries) PullMappings(ctx context.Context, pq appliance.PullQuery, fn func(appliance.KBMapping) error) (int, error) {
	since := ""
	if pq.HasSince {
		since = fmtTime(pq.Since)
	}
	var total int
	if err := q.queryRow(ctx, `SELECT count(*) FROM (`+pullUnion+`) WHERE updated_at > ?2`, pq.Source, since).Scan(&total); err != nil {
		return 0, err
	}
	rows, err := q.query(ctx, `SELECT * FROM (`+pullUnion+`) WHERE updated_at > ?2
		ORDER BY updated_at, id, source LIMIT ?3 OFFSET ?4`, pq.Source, since, pq.Limit, pq.Offset)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var m appliance.KBMapping
		var updated string
		if err := rows.Scan(&m.Source, &m.ID, &m.Part, &m.VendorPattern, &m.ProductPattern, &m.CPEVendor, &m.CPEProduct,
			&m.Confidence, &m.ContributionCount, &m.Retracted, &updated); err != nil {
			return 0, err
		}
		m.UpdatedAt, m.Published = parseTime(updated), !m.Retracted
		if err := fn(m); err != nil {
			return 0, err
		}
	}
	return total, rows.Err()
}

const kbColumns = `id, source, vendor_pattern, product_pattern, cpe_vendor, cpe_product, tuple_key, confidence,
	contribution_count, is_published, retracted, created_at, updated_at`

func scanKB(s scanner) (appliance.KBMapping, error) {
	var m appliance.KBMapping
	var created, updated string
	err := s.Scan(&m.ID, &m.Source, &m.VendorPattern, &m.ProductPattern, &m.CPEVendor, &m.CPEProduct, &m.TupleKey,
		&m.Confidence, &m.ContributionCount, &m.Published, &m.Retracted, &created, &updated)
	m.CreatedAt, m.UpdatedAt = parseTime(created), parseTime(updated)
	return m, err
}

func (q *queries) KBMappingByTuple(ctx context.Context, source appliance.KBSource, tupleKey string) (appliance.KBMapping, error) {
	m, err := scanKB(q.queryRow(ctx, `SELECT `+kbColumns+` FROM kb_mappings WHERE source = ? AND tuple_key = ?`, source, tupleKey))
	return m, translate(err)
}

func (q *queries) EachKBMapping(ctx context.Context, fn func(appliance.KBMapping) error) error {
	rows, err := q.query(ctx, `SELECT `+kbColumns+` FROM kb_mappings ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		m, err := scanKB(rows)
		if err != nil {
			return err
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (q *queries) UpsertKBMapping(ctx context.Context, m appliance.KBMapping) (int64, error) {
	var id int64
	err := q.queryRow(ctx, `INSERT INTO kb_mappings (source, vendor_pattern, product_pattern, cpe_vendor, cpe_product,
		tuple_key, confidence, contribution_count, is_published, retracted, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (source, tuple_key) DO UPDATE SET confidence = excluded.confidence,
		contribution_count = excluded.contribution_count, is_published = excluded.is_published,
		retracted = excluded.retracted, updated_at = excluded.updated_at RETURNING id`,
		m.Source, m.VendorPattern, m.ProductPattern, m.CPEVendor, m.CPEProduct, m.TupleKey, m.Confidence, m.ContributionCount,
		m.Published, m.Retracted, fmtTime(m.CreatedAt), fmtTime(m.UpdatedAt)).Scan(&id)
	return id, translate(err)
}

func (q *queries) AddContribution(ctx context.Context, mappingID int64, installationID, voice string, confidence float64, at time.Time) (bool, int, error) {
	res, err := q.exec(ctx, `INSERT INTO kb_contributions (mapping_id, installation_id, voice, confidence, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, mappingID, installationID, voice, confidence, fmtTime(at))
	if err != nil {
		return false, 0, translate(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, 0, err
	}
	var voices int
	err = q.queryRow(ctx, `SELECT count(DISTINCT voice) FROM kb_contributions WHERE mapping_id = ?`, mappingID).Scan(&voices)
	return n == 1, voices, translate(err)
}

func (q *queries) LicenseByInstallation(ctx context.Context, installationID string) (appliance.License, error) {
	var id string
	err := q.queryRow(ctx, `SELECT id FROM licenses WHERE installation_id = ? LIMIT 1`, installationID).Scan(&id)
	if err != nil {
		return appliance.License{}, translate(err)
	}
	return q.LicenseByID(ctx, id)
}

func (q *queries) DeleteKBMapping(ctx context.Context, id int64) error {
	return q.execOne(ctx, `DELETE FROM kb_mappings WHERE id = ?`, id)
}

func (q *queries) KBSourceStats(ctx context.Context) ([]appliance.SourceStats, error) {
	rows, err := q.query(ctx, `SELECT 'nvd', count(*), count(*), 0, max(updated_at) FROM catalog
		UNION ALL SELECT source, count(*), sum(is_published), sum(retracted), max(updated_at) FROM kb_mappings
		WHERE source <> 'nvd' GROUP BY source`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []appliance.SourceStats
	for rows.Next() {
		var s appliance.SourceStats
		var last sql.NullString
		if err := rows.Scan(&s.Source, &s.Total, &s.Published, &s.Retracted, &last); err != nil {
			return nil, err
		}
		s.LastUpdate = nullTime(last)
		out = append(out, s)
	}
	return out, rows.Err()
}

func (q *queries) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := q.queryRow(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	return v, translate(err)
}

func (q *queries) SetSetting(ctx context.Context, key, value string) error {
	_, err := q.exec(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

func (q *queries) PendingOverrides(ctx context.Context, limit int) ([]appliance.Override, error) {
	rows, err := q.query(ctx, `SELECT organization_id, vendor_key, product_key, reported_vendor, reported_name,
		cpe_part, cpe_vendor, cpe_product, created_at FROM resolution_overrides WHERE pushed_at IS NULL
		AND NOT not_tracked AND reported_name <> '' AND reported_vendor <> '' ORDER BY created_at LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []appliance.Override
	for rows.Next() {
		var o appliance.Override
		var created string
		if err := rows.Scan(&o.OrganizationID, &o.VendorKey, &o.ProductKey, &o.ReportedVendor, &o.ReportedName,
			&o.Identity.Part, &o.Identity.Vendor, &o.Identity.Product, &created); err != nil {
			return nil, err
		}
		o.CreatedAt = parseTime(created)
		out = append(out, o)
	}
	return out, rows.Err()
}

func (q *queries) MarkOverridesPushed(ctx context.Context, overrides []appliance.Override, at time.Time) error {
	for _, o := range overrides {
		if _, err := q.exec(ctx, `UPDATE resolution_overrides SET pushed_at = ?
			WHERE organization_id = ? AND vendor_key = ? AND product_key = ?`, fmtTime(at), o.OrganizationID, o.VendorKey, o.ProductKey); err != nil {
			return err
		}
	}
	return nil
}

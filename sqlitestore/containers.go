package sqlitestore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const containerColumns = `ci.id, ci.organization_id, ci.hostname, ci.image_name, ci.image_tag, ci.image_id, ci.digest,
	ci.scanner, ci.last_scanned, ci.created_at,
	(SELECT count(*) FROM container_vulnerabilities v WHERE v.container_image_id = ci.id AND v.severity = 'CRITICAL' AND ` + imageNotSuppressed + `),
	(SELECT count(*) FROM container_vulnerabilities v WHERE v.container_image_id = ci.id AND v.severity = 'HIGH' AND ` + imageNotSuppressed + `),
	(SELECT count(*) FROM container_vulnerabilities v WHERE v.container_image_id = ci.id AND v.severity = 'MEDIUM' AND ` + imageNotSuppressed + `),
	(SELECT count(*) FROM container_vulnerabilities v WHERE v.container_image_id = ci.id AND v.severity = 'LOW' AND ` + imageNotSuppressed + `),
	(SELECT count(*) FROM container_vulnerabilities v WHERE v.container_image_id = ci.id
		AND v.severity NOT IN ('CRITICAL', 'HIGH', 'MEDIUM', 'LOW') AND ` + imageNotSuppressed + `)`

// imageNotSuppressed holds for a container finding v that no triage decision takes out of
// counts (triage.go).
const imageNotSuppressed = `NOT EXISTS (SELECT 1 FROM triage_container_findings t WHERE t.container_image_id = v.container_image_id
	AND t.cve_id = v.cve_id AND t.package_name = v.package_name AND t.suppresses = 1)`

func scanContainerImage(s scanner) (appliance.ContainerImage, error) {
	var img appliance.ContainerImage
	var scanned, created string
	c := &img.Counts
	err := s.Scan(&img.ID, &img.OrganizationID, &img.Hostname, &img.Name, &img.Tag, &img.ImageID, &img.Digest,
		&img.Scanner, &scanned, &created, &c.Critical, &c.High, &c.Medium, &c.Low, &c.Unknown)
	img.LastScanned, img.CreatedAt = parseTime(scanned), parseTime(created)
	return img, err
}

func (q *queries) ListContainerImages(ctx context.Context, f appliance.ContainerFilter) ([]appliance.ContainerImage, int, error) {
	cond, args := containerConditions(f)
	var total int
	if err := q.queryRow(ctx, `SELECT count(*) FROM container_images ci WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+withSuppressed(containerColumns, f.IncludeSuppressed)+` FROM container_images ci WHERE `+cond+`
		ORDER BY ci.last_scanned DESC, ci.id DESC LIMIT ? OFFSET ?`, append(args, f.PerPage, (f.Page-1)*f.PerPage)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []appliance.ContainerImage{}
	for rows.Next() {
		img, err := scanContainerImage(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, img)
	}
	return out, total, rows.Err()
}

// EachContainerImage calls fn with every image the filter selects (pages ignored), in list
// order, as rows are read.
func (q *queries) EachContainerImage(ctx context.Context, f appliance.ContainerFilter, fn func(appliance.ContainerImage) error) error {
	cond, args := containerConditions(f)
	return eachRow(ctx, q, `SELECT `+containerColumns+` FROM container_images ci WHERE `+cond+`
		ORDER BY ci.last_scanned DESC, ci.id DESC`, args,
		func(rows *sql.Rows) (appliance.ContainerImage, error) { return scanContainerImage(rows) }, fn)
}

func containerConditions(f appliance.ContainerFilter) (string, []any) {
	where := []string{"ci.organization_id = ?"}
	args := []any{f.OrganizationID}
	if f.Severity != "" {
		where = append(where, withSuppressed(`EXISTS (SELECT 1 FROM container_vulnerabilities v WHERE v.container_image_id = ci.id
			AND v.severity = ? AND `+imageNotSuppressed+`)`, f.IncludeSuppressed))
		args = append(args, f.Severity)
	}
	if f.Search != "" {
		where = append(where, `(ci.image_name LIKE ? ESCAPE '\' OR ci.image_tag LIKE ? ESCAPE '\')`)
		pattern := "%" + likeEscape(f.Search) + "%"
		args = append(args, pattern, pattern)
	}
	if f.Hostname != "" {
		where = append(where, "ci.hostname = ?")
		args = append(args, f.Hostname)
	}
	return strings.Join(where, " AND "), args
}

func (q *queries) ContainerImageByID(ctx context.Context, orgID, id int64) (appliance.ContainerImage, error) {
	img, err := scanContainerImage(q.queryRow(ctx, `SELECT `+containerColumns+` FROM container_images ci
		WHERE ci.id = ? AND ci.organization_id = ?`, id, orgID))
	return img, translate(err)
}

func (q *queries) ContainerImageByDigest(ctx context.Context, orgID int64, digest string) (appliance.ContainerImage, error) {
	img, err := scanContainerImage(q.queryRow(ctx, `SELECT `+containerColumns+` FROM container_images ci
		WHERE ci.organization_id = ? AND (ci.image_id = ? OR ci.digest = ?)
		ORDER BY ci.last_scanned DESC, ci.id DESC LIMIT 1`, orgID, digest, digest))
	return img, translate(err)
}

func (q *queries) ContainerFindings(ctx context.Context, orgID, imageID int64) ([]appliance.ContainerFinding, error) {
	rows, err := q.query(ctx, `SELECT v.cve_id, v.package_name, v.installed_version, v.fixed_version, v.severity,
		v.title, v.description, v.target, v.type, c.score, k.cve_id IS NOT NULL, `+epssColumns+`, `+cveFactColumns+`, `+triageColumns+`
		FROM container_vulnerabilities v JOIN container_images ci ON ci.id = v.container_image_id
		LEFT JOIN cves c ON c.id = v.cve_id LEFT JOIN kev k ON k.cve_id = v.cve_id LEFT JOIN epss e ON e.cve_id = v.cve_id
		LEFT JOIN triage_container_findings t ON t.container_image_id = v.container_image_id AND t.cve_id = v.cve_id
			AND t.package_name = v.package_name
		WHERE v.container_image_id = ? AND ci.organization_id = ?
		ORDER BY CASE v.severity WHEN 'CRITICAL' THEN 0 WHEN 'HIGH' THEN 1 WHEN 'MEDIUM' THEN 2 WHEN 'LOW' THEN 3 ELSE 4 END,
		v.cve_id, v.package_name, v.id`, imageID, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.ContainerFinding{}
	for rows.Next() {
		var f appliance.ContainerFinding
		var score sql.NullFloat64
		var epss nullEPSS
		var tr triageScan
		var facts nullCVEFacts
		dest := append([]any{&f.CVEID, &f.PackageName, &f.InstalledVersion, &f.FixedVersion, &f.Severity, &f.Title,
			&f.Description, &f.Target, &f.Type, &score, &f.KEV}, epss.dest()...)
		if err := rows.Scan(append(append(dest, facts.dest()...), tr.dest()...)...); err != nil {
			return nil, err
		}
		f.Triage = tr.state()
		f.Score, f.HasScore, f.EPSS = score.Float64, score.Valid, epss.value(f.CVEID)
		f.CVEFacts = facts.value()
		out = append(out, f)
	}
	return out, rows.Err()
}

func (q *queries) ScannedSeverities(ctx context.Context, orgID int64, cveID string) ([]string, error) {
	rows, err := q.query(ctx, `SELECT DISTINCT v.severity FROM container_vulnerabilities v
		JOIN container_images ci ON ci.id = v.container_image_id WHERE ci.organization_id = ? AND v.cve_id = ?`, orgID, cveID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (q *queries) SaveContainerImage(ctx context.Context, img appliance.ContainerImage) (int64, error) {
	var id int64
	err := q.queryRow(ctx, `INSERT INTO container_images (organization_id, hostname, image_name, image_tag, image_id,
		digest, scanner, last_scanned, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id, hostname, image_name, image_tag, image_id) DO UPDATE SET
		digest = excluded.digest, scanner = excluded.scanner, last_scanned = excluded.last_scanned
		RETURNING id`,
		img.OrganizationID, img.Hostname, img.Name, img.Tag, img.ImageID, img.Digest, img.Scanner,
		fmtTime(img.LastScanned), fmtTime(img.CreatedAt)).Scan(&id)
	return id, translate(err)
}

// findingsPerInsert keeps a multi-row INSERT well below SQLite's 32766 bound parameters;
// one statement per batch instead of per row is what makes a 2,000-finding rescan cheap.
const findingsPerInsert = 200

const findingInsert = `INSERT INTO container_vulnerabilities (container_image_id, cve_id, package_name,
	installed_version, fixed_version, severity, title, description, target, type) VALUES `

func (q *queries) ReplaceContainerFindings(ctx context.Context, imageID int64, fs []appliance.ContainerFinding) error {
	if _, err := q.exec(ctx, `DELETE FROM container_vulnerabilities WHERE container_image_id = ?`, imageID); err != nil {
		return err
	}
	for start := 0; start < len(fs); start += findingsPerInsert {
		batch := fs[start:min(start+findingsPerInsert, len(fs))]
		args := make([]any, 0, len(batch)*10)
		for _, f := range batch {
			args = append(args, imageID, f.CVEID, f.PackageName, f.InstalledVersion, f.FixedVersion, f.Severity,
				f.Title, f.Description, f.Target, f.Type)
		}
		placeholders := strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?), ", len(batch)), ", ")
		if _, err := q.exec(ctx, findingInsert+placeholders, args...); err != nil {
			return translate(err)
		}
	}
	return nil
}

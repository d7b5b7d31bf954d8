package sqlitestore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const webhookColumns = `id, organization_id, name, url, format, events, min_severity, min_score, secret, enabled,
	created_at, updated_at`

func scanWebhook(s scanner) (appliance.Webhook, error) {
	var w appliance.Webhook
	var events, created, updated string
	err := s.Scan(&w.ID, &w.OrganizationID, &w.Name, &w.URL, &w.Format, &events, &w.MinSeverity, &w.MinScore,
		&w.Secret, &w.Enabled, &created, &updated)
	w.Events = strings.Fields(events)
	w.CreatedAt, w.UpdatedAt = parseTime(created), parseTime(updated)
	return w, translate(err)
}

func (q *queries) webhooks(ctx context.Context, query string, args ...any) ([]appliance.Webhook, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.Webhook{}
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

func (q *queries) Webhooks(ctx context.Context, orgID int64) ([]appliance.Webhook, error) {
	return q.webhooks(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE organization_id = ? ORDER BY id`, orgID)
}

func (q *queries) Webhook(ctx context.Context, orgID, id int64) (appliance.Webhook, error) {
	return scanWebhook(q.queryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE organization_id = ? AND id = ?`, orgID, id))
}

func (q *queries) WebhookByID(ctx context.Context, id int64) (appliance.Webhook, error) {
	return scanWebhook(q.queryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = ?`, id))
}

func (q *queries) CreateWebhook(ctx context.Context, w appliance.Webhook) (int64, error) {
	return q.insert(ctx, `INSERT INTO webhooks (organization_id, name, url, format, events, min_severity, min_score,
		secret, enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.OrganizationID, w.Name, w.URL, w.Format, strings.Join(w.Events, " "), w.MinSeverity, w.MinScore, w.Secret,
		w.Enabled, fmtTime(w.CreatedAt), fmtTime(w.UpdatedAt))
}

func (q *queries) UpdateWebhook(ctx context.Context, w appliance.Webhook) error {
	return q.execOne(ctx, `UPDATE webhooks SET name = ?, url = ?, format = ?, events = ?, min_severity = ?, min_score = ?,
		enabled = ?, updated_at = ? WHERE organization_id = ? AND id = ?`,
		w.Name, w.URL, w.Format, strings.Join(w.Events, " "), w.MinSeverity, w.MinScore, w.Enabled, fmtTime(w.UpdatedAt),
		w.OrganizationID, w.ID)
}

func (q *queries) DeleteWebhook(ctx context.Context, orgID, id int64) error {
	return q.execOne(ctx, `DELETE FROM webhooks WHERE organization_id = ? AND id = ?`, orgID, id)
}

const deliveryColumns = `id, webhook_id, event_id, delivery_id, event_type, body, status, attempts, next_attempt_at,
	last_status_code, last_error, created_at, delivered_at`

func (q *queries) deliveries(ctx context.Context, query string, args ...any) ([]appliance.WebhookDelivery, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.WebhookDelivery{}
	for rows.Next() {
		var d appliance.WebhookDelivery
		var event sql.NullInt64
		var next, delivered sql.NullString
		var created string
		if err := rows.Scan(&d.ID, &d.WebhookID, &event, &d.DeliveryID, &d.EventType, &d.Body, &d.Status, &d.Attempts,
			&next, &d.LastStatusCode, &d.LastError, &created, &delivered); err != nil {
			return nil, err
		}
		d.EventID, d.NextAttemptAt, d.CreatedAt, d.DeliveredAt = event.Int64, nullTime(next), parseTime(created), nullTime(delivered)
		out = append(out, d)
	}
	return out, rows.Err()
}

func (q *queries) Deliveries(ctx context.Context, webhookID int64, limit int) ([]appliance.WebhookDelivery, error) {
	return q.deliveries(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`,
		webhookID, limit)
}

func (q *queries) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]appliance.WebhookDelivery, error) {
	return q.deliveries(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries
		WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`, fmtTime(now), limit)
}

func (q *queries) AddDelivery(ctx context.Context, d appliance.WebhookDelivery) (int64, error) {
	var event any
	if d.EventID != 0 {
		event = d.EventID
	}
	return q.insert(ctx, `INSERT INTO webhook_deliveries (webhook_id, event_id, delivery_id, event_type, body, status,
		next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		d.WebhookID, event, d.DeliveryID, d.EventType, d.Body, d.Status, timeOrNull(d.NextAttemptAt), fmtTime(d.CreatedAt))
}

func (q *queries) SaveDeliveryAttempt(ctx context.Context, d appliance.WebhookDelivery) error {
	return q.execOne(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_status_code = ?,
		last_error = ?, delivered_at = ? WHERE id = ?`,
		d.Status, d.Attempts, timeOrNull(d.NextAttemptAt), d.LastStatusCode, d.LastError, timeOrNull(d.DeliveredAt), d.ID)
}

func (q *queries) PostponeDeliveries(ctx context.Context, webhookID int64, until time.Time) error {
	_, err := q.exec(ctx, `UPDATE webhook_deliveries SET next_attempt_at = ?
		WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at < ?`, fmtTime(until), webhookID, fmtTime(until))
	return err
}

func (q *queries) AddEvent(ctx context.Context, e appliance.NotifyEvent) (int64, bool, error) {
	res, err := q.exec(ctx, `INSERT INTO notify_events (organization_id, event_key, type, data, created_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (event_key) DO NOTHING`,
		e.OrganizationID, e.Key, e.Type, e.Data, fmtTime(e.CreatedAt))
	if err != nil {
		return 0, false, translate(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, false, err
	}
	id, err := res.LastInsertId()
	return id, err == nil, err
}

func (q *queries) EventsSince(ctx context.Context, orgID int64, since time.Time, limit int) ([]appliance.NotifyEvent, error) {
	rows, err := q.query(ctx, `SELECT id, organization_id, event_key, type, data, created_at FROM notify_events
		WHERE organization_id = ? AND created_at >= ? ORDER BY id LIMIT ?`, orgID, fmtTime(since), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.NotifyEvent{}
	for rows.Next() {
		var e appliance.NotifyEvent
		var created string
		if err := rows.Scan(&e.ID, &e.OrganizationID, &e.Key, &e.Type, &e.Data, &created); err != nil {
			return nil, err
		}
		e.CreatedAt = parseTime(created)
		out = append(out, e)
	}
	return out, rows.Err()
}

// findingNoticeColumns describe a finding from products p, matches m (NULL when gone), cves c
// and kev k; the hosts are those with the product installed now.
const findingNoticeColumns = `p.organization_id, p.id, coalesce(p.vendor, ''), coalesce(p.name, ''),
	coalesce(p.version, ''), coalesce(p.criticality, 0), lower(coalesce(c.severity, '')), coalesce(c.score, 0),
	k.cve_id IS NOT NULL, coalesce((SELECT group_concat(hostname, char(10)) FROM (SELECT a.hostname FROM installations i
	JOIN assets a ON a.id = i.asset_id WHERE i.product_id = p.id AND i.removed_at IS NULL ORDER BY a.hostname LIMIT 20)), '')`

func (q *queries) findingNotices(ctx context.Context, query string, args ...any) ([]appliance.FindingNotice, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.FindingNotice{}
	for rows.Next() {
		var f appliance.FindingNotice
		var org, product sql.NullInt64
		var hosts string
		if err := rows.Scan(&f.NoticeID, &f.CVEID, &org, &product, &f.Vendor, &f.Product, &f.Version, &f.Criticality,
			&f.Severity, &f.Score, &f.KEV, &hosts); err != nil {
			return nil, err
		}
		f.OrganizationID, f.ProductID = org.Int64, product.Int64
		if hosts != "" {
			f.Hosts = strings.Split(hosts, "\n")
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// NewFindings are findings on installed products not announced yet; a finding a triage
// decision suppresses is not news.
func (q *queries) NewFindings(ctx context.Context, limit int) ([]appliance.FindingNotice, error) {
	return q.findingNotices(ctx, `SELECT 0, m.cve_id, `+findingNoticeColumns+` FROM matches m
		JOIN products p ON p.id = m.product_id AND p.deleted_at IS NULL
		LEFT JOIN cves c ON c.id = m.cve_id LEFT JOIN kev k ON k.cve_id = m.cve_id
		WHERE EXISTS (SELECT 1 FROM installations i WHERE i.product_id = p.id AND i.removed_at IS NULL)
		AND NOT EXISTS (SELECT 1 FROM notify_findings n WHERE n.product_id = m.product_id AND n.cve_id = m.cve_id)
		AND `+notSuppressed+`
		ORDER BY p.organization_id, m.id LIMIT ?`, limit)
}

// GoneFindings are announced findings that no longer count: the product left every host, the
// CVE no longer matches, or a triage decision suppresses it (when the decision lapses, the
// finding is new again).
func (q *queries) GoneFindings(ctx context.Context, limit int) ([]appliance.FindingNotice, error) {
	rows, err := q.findingNotices(ctx, `SELECT n.id, n.cve_id, n.organization_id, n.product_id, coalesce(p.vendor, ''),
		coalesce(p.name, ''), coalesce(p.version, ''), coalesce(p.criticality, 0), lower(coalesce(c.severity, '')),
		coalesce(c.score, 0), k.cve_id IS NOT NULL, '' FROM notify_findings n
		LEFT JOIN products p ON p.id = n.product_id
		LEFT JOIN cves c ON c.id = n.cve_id LEFT JOIN kev k ON k.cve_id = n.cve_id
		WHERE NOT EXISTS (SELECT 1 FROM matches m JOIN products pp ON pp.id = m.product_id AND pp.deleted_at IS NULL
			WHERE m.product_id = n.product_id AND m.cve_id = n.cve_id
			AND EXISTS (SELECT 1 FROM installations i WHERE i.product_id = pp.id AND i.removed_at IS NULL)
			AND `+notSuppressed+`)
		ORDER BY n.organization_id, n.id LIMIT ?`, limit)
	return rows, err
}

func (q *queries) MarkAnnounced(ctx context.Context, fs []appliance.FindingNotice) ([]int64, error) {
	ids := make([]int64, 0, len(fs))
	for _, f := range fs {
		id, err := q.insert(ctx, `INSERT INTO notify_findings (organization_id, product_id, cve_id) VALUES (?, ?, ?)`,
			f.OrganizationID, f.ProductID, f.CVEID)
		if err != nil {
			return nil, translate(err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func (q *queries) ForgetAnnounced(ctx context.Context, noticeIDs []int64) error {
	for _, id := range noticeIDs {
		if _, err := q.exec(ctx, `DELETE FROM notify_findings WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

func (q *queries) DueAssignments(ctx context.Context, soon time.Time) ([]appliance.Assignment, error) {
	return q.assignments(ctx, `SELECT `+assignmentColumns+assignmentFrom+`
		WHERE a.status IN ('open', 'in_progress') AND a.due_date <= ? ORDER BY a.id`, soon.UTC().Format(dateLayout))
}

func (q *queries) SilentAssets(ctx context.Context, before time.Time) ([]appliance.Asset, error) {
	rows, err := q.query(ctx, `SELECT id, organization_id, hostname, last_seen_at FROM assets WHERE last_seen_at < ? ORDER BY id`,
		fmtTime(before))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.Asset{}
	for rows.Next() {
		var a appliance.Asset
		var seen string
		if err := rows.Scan(&a.ID, &a.OrganizationID, &a.Hostname, &seen); err != nil {
			return nil, err
		}
		a.LastSeenAt = parseTime(seen)
		out = append(out, a)
	}
	return out, rows.Err()
}

package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func (q *queries) NotifyPrefs(ctx context.Context, userID int64) (appliance.NotifyPrefs, error) {
	p := appliance.NotifyPrefs{UserID: userID, Digest: "off"}
	var last sql.NullString
	var updated string
	err := q.queryRow(ctx, `SELECT email, digest, kev_immediate, last_digest_at, updated_at FROM notify_preferences
		WHERE user_id = ?`, userID).Scan(&p.Email, &p.Digest, &p.KEVImmediate, &last, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return p, nil
	}
	p.LastDigestAt, p.UpdatedAt = nullTime(last), parseTime(updated)
	return p, translate(err)
}

func (q *queries) SaveNotifyPrefs(ctx context.Context, p appliance.NotifyPrefs) error {
	_, err := q.exec(ctx, `INSERT INTO notify_preferences (user_id, email, digest, kev_immediate, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET email = excluded.email, digest = excluded.digest,
		kev_immediate = excluded.kev_immediate, updated_at = excluded.updated_at`,
		p.UserID, p.Email, p.Digest, p.KEVImmediate, fmtTime(p.UpdatedAt))
	return translate(err)
}

func (q *queries) SetLastDigest(ctx context.Context, userID int64, at time.Time) error {
	return q.execOne(ctx, `UPDATE notify_preferences SET last_digest_at = ? WHERE user_id = ?`, fmtTime(at), userID)
}

func (q *queries) MailRecipients(ctx context.Context) ([]appliance.MailRecipient, error) {
	rows, err := q.query(ctx, `SELECT n.user_id, n.email, n.digest, n.kev_immediate, n.last_digest_at, n.updated_at,
		u.organization_id, u.username FROM notify_preferences n JOIN users u ON u.id = n.user_id
		WHERE n.email <> '' AND (n.digest <> 'off' OR n.kev_immediate) ORDER BY n.user_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.MailRecipient{}
	for rows.Next() {
		var r appliance.MailRecipient
		var last sql.NullString
		var updated string
		if err := rows.Scan(&r.UserID, &r.Email, &r.Digest, &r.KEVImmediate, &last, &updated, &r.OrganizationID,
			&r.Username); err != nil {
			return nil, err
		}
		r.LastDigestAt, r.UpdatedAt = nullTime(last), parseTime(updated)
		out = append(out, r)
	}
	return out, rows.Err()
}

func (q *queries) AddMail(ctx context.Context, m appliance.Mail) (bool, error) {
	res, err := q.exec(ctx, `INSERT INTO notify_mails (user_id, mail_key, recipient, subject, body, status,
		next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (user_id, mail_key) DO NOTHING`,
		m.UserID, m.Key, m.To, m.Subject, m.Body, fmtTime(m.NextAttemptAt), fmtTime(m.CreatedAt))
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (q *queries) DueMails(ctx context.Context, now time.Time, limit int) ([]appliance.Mail, error) {
	rows, err := q.query(ctx, `SELECT id, user_id, mail_key, recipient, subject, body, status, attempts, next_attempt_at,
		last_error, created_at FROM notify_mails WHERE status = 'pending' AND next_attempt_at <= ?
		ORDER BY next_attempt_at, id LIMIT ?`, fmtTime(now), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.Mail{}
	for rows.Next() {
		var m appliance.Mail
		var next sql.NullString
		var created string
		if err := rows.Scan(&m.ID, &m.UserID, &m.Key, &m.To, &m.Subject, &m.Body, &m.Status, &m.Attempts, &next,
			&m.LastError, &created); err != nil {
			return nil, err
		}
		m.NextAttemptAt, m.CreatedAt = nullTime(next), parseTime(created)
		out = append(out, m)
	}
	return out, rows.Err()
}

func (q *queries) SaveMailAttempt(ctx context.Context, m appliance.Mail) error {
	var sent any
	if m.Status == "sent" {
		sent = fmtTime(m.NextAttemptAt)
	}
	return q.execOne(ctx, `UPDATE notify_mails SET status = ?, attempts = ?, next_attempt_at = ?, last_error = ?,
		sent_at = coalesce(?, sent_at) WHERE id = ?`, m.Status, m.Attempts, timeOrNull(m.NextAttemptAt), m.LastError, sent, m.ID)
}

package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func (q *queries) CreateOrganization(ctx context.Context, o appliance.Organization) (int64, error) {
	return q.insert(ctx, `INSERT INTO organizations (name, created_at) VALUES (?, ?)`, o.Name, fmtTime(o.CreatedAt))
}

func (q *queries) OrganizationByName(ctx context.Context, name string) (appliance.Organization, error) {
	return q.organization(ctx, `SELECT id, name, created_at FROM organizations WHERE name = ?`, name)
}

func (q *queries) OrganizationByID(ctx context.Context, id int64) (appliance.Organization, error) {
	return q.organization(ctx, `SELECT id, name, created_at FROM organizations WHERE id = ?`, id)
}

func (q *queries) organization(ctx context.Context, query string, arg any) (appliance.Organization, error) {
	var o appliance.Organization
	var created string
	err := q.queryRow(ctx, query, arg).Scan(&o.ID, &o.Name, &created)
	o.CreatedAt = parseTime(created)
	return o, translate(err)
}

func (q *queries) Organizations(ctx context.Context) ([]appliance.Organization, error) {
	rows, err := q.query(ctx, `SELECT id, name, created_at FROM organizations ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []appliance.Organization
	for rows.Next() {
		var o appliance.Organization
		var created string
		if err := rows.Scan(&o.ID, &o.Name, &created); err != nil {
			return nil, err
		}
		o.CreatedAt = parseTime(created)
		out = append(out, o)
	}
	return out, rows.Err()
}

const userColumns = `id, organization_id, username, role, password_hash, password_changed_at,
	must_change_password, totp_secret, totp_enabled, created_at, last_login_at, session_generation, totp_last_step`

func (q *queries) CreateUser(ctx context.Context, u appliance.User) (int64, error) {
	return q.insert(ctx, `INSERT INTO users (organization_id, username, role, password_hash, password_changed_at,
		must_change_password, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		u.OrganizationID, u.Username, string(u.Role), u.PasswordHash, fmtTime(u.PasswordChangedAt), u.MustChangePassword, fmtTime(u.CreatedAt))
}

func (q *queries) UserByUsername(ctx context.Context, username string) (appliance.User, error) {
	return q.user(ctx, `SELECT `+userColumns+` FROM users WHERE username = ?`, username)
}

func (q *queries) UserInOrganization(ctx context.Context, orgID int64, username string) (appliance.User, error) {
	return q.user(ctx, `SELECT `+userColumns+` FROM users WHERE organization_id = ? AND username = ?`, orgID, username)
}

func (q *queries) UserByID(ctx context.Context, id int64) (appliance.User, error) {
	return q.user(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id)
}

func (q *queries) UsersOfOrganization(ctx context.Context, orgID int64) ([]appliance.User, error) {
	rows, err := q.query(ctx, `SELECT `+userColumns+` FROM users WHERE organization_id = ? ORDER BY username`, orgID)
	if err != nil {
		return nil, fmt.Errorf("list users of organization %d: %w", orgID, err)
	}
	defer rows.Close()
	var out []appliance.User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("list users of organization %d: %w", orgID, err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func (q *queries) user(ctx context.Context, query string, args ...any) (appliance.User, error) {
	u, err := scanUser(q.queryRow(ctx, query, args...))
	if err != nil {
		return appliance.User{}, translate(err)
	}
	return u, nil
}

func scanUser(row interface{ Scan(...any) error }) (appliance.User, error) {
	var u appliance.User
	var role, changed, created string
	var lastLogin sql.NullString
	err := row.Scan(&u.ID, &u.OrganizationID, &u.Username, &role, &u.PasswordHash,
		&changed, &u.MustChangePassword, &u.TOTPSecret, &u.TOTPEnabled, &created, &lastLogin, &u.SessionGeneration, &u.TOTPLastStep)
	if err != nil {
		return appliance.User{}, err
	}
	u.Role = appliance.Role(role)
	u.PasswordChangedAt, u.CreatedAt, u.LastLoginAt = parseTime(changed), parseTime(created), nullTime(lastLogin)
	return u, nil
}

func (q *queries) SetPassword(ctx context.Context, userID int64, hash string, changedAt time.Time, mustChange bool) error {
	return q.execOne(ctx, `UPDATE users SET password_hash = ?, password_changed_at = ?, must_change_password = ? WHERE id = ?`,
		hash, fmtTime(changedAt), mustChange, userID)
}

func (q *queries) SetRole(ctx context.Context, userID int64, role appliance.Role) error {
	return q.execOne(ctx, `UPDATE users SET role = ? WHERE id = ?`, string(role), userID)
}

func (q *queries) SetMustChangePassword(ctx context.Context, userID int64, must bool) error {
	return q.execOne(ctx, `UPDATE users SET must_change_password = ? WHERE id = ?`, must, userID)
}

func (q *queries) SetTOTP(ctx context.Context, userID int64, secret string, enabled bool) error {
	return q.execOne(ctx, `UPDATE users SET totp_secret = ?, totp_enabled = ? WHERE id = ?`, secret, enabled, userID)
}

// NewSessionGeneration increments the user's session generation and returns the new value.
func (q *queries) NewSessionGeneration(ctx context.Context, userID int64) (int64, error) {
	var gen int64
	err := q.queryRow(ctx, `UPDATE users SET session_generation = session_generation + 1 WHERE id = ?
		RETURNING session_generation`, userID).Scan(&gen)
	return gen, translate(err)
}

// UseTOTPStep records step as the user's last accepted TOTP step, only if it is later than
// the one recorded; otherwise (a replay) it is ErrNotFound.
func (q *queries) UseTOTPStep(ctx context.Context, userID, step int64) error {
	return q.execOne(ctx, `UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?`, step, userID, step)
}

func (q *queries) RecordLogin(ctx context.Context, userID int64, at time.Time) error {
	return q.execOne(ctx, `UPDATE users SET last_login_at = ? WHERE id = ?`, fmtTime(at), userID)
}

const agentKeyColumns = `id, organization_id, name, key_hash, key_prefix, scopes, created_at, last_used_at, revoked_at`

func (q *queries) CreateAgentKey(ctx context.Context, k appliance.AgentKey) (int64, error) {
	return q.insert(ctx, `INSERT INTO agent_keys (organization_id, name, key_hash, key_prefix, scopes, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, k.OrganizationID, k.Name, k.Hash, k.Prefix, strings.Join(k.Scopes, " "), fmtTime(k.CreatedAt))
}

func (q *queries) AgentKeyByHash(ctx context.Context, hash string) (appliance.AgentKey, error) {
	row := q.queryRow(ctx, `SELECT `+agentKeyColumns+` FROM agent_keys WHERE key_hash = ?`, hash)
	k, err := scanAgentKey(row)
	return k, translate(err)
}

func (q *queries) AgentKeys(ctx context.Context, orgID int64) ([]appliance.AgentKey, error) {
	rows, err := q.query(ctx, `SELECT `+agentKeyColumns+` FROM agent_keys WHERE organization_id = ? ORDER BY id`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []appliance.AgentKey
	for rows.Next() {
		k, err := scanAgentKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

type scanner interface{ Scan(dest ...any) error }

func scanAgentKey(s scanner) (appliance.AgentKey, error) {
	var k appliance.AgentKey
	var scopes, created string
	var used, revoked sql.NullString
	if err := s.Scan(&k.ID, &k.OrganizationID, &k.Name, &k.Hash, &k.Prefix, &scopes, &created, &used, &revoked); err != nil {
		return appliance.AgentKey{}, err
	}
	k.Scopes = strings.Fields(scopes)
	k.CreatedAt, k.LastUsedAt, k.RevokedAt = parseTime(created), nullTime(used), nullTime(revoked)
	return k, nil
}

func (q *queries) RevokeAgentKey(ctx context.Context, orgID, keyID int64, at time.Time) error {
	return q.execOne(ctx, `UPDATE agent_keys SET revoked_at = ? WHERE id = ? AND organization_id = ? AND revoked_at IS NULL`,
		fmtTime(at), keyID, orgID)
}

func (q *queries) TouchAgentKey(ctx context.Context, keyID int64, at time.Time) error {
	return q.execOne(ctx, `UPDATE agent_keys SET last_used_at = ? WHERE id = ?`, fmtTime(at), keyID)
}

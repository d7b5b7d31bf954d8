-- Organizations, people, agent keys and the session table used by scs.
CREATE TABLE organizations (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
    created_at TEXT NOT NULL
);

CREATE TABLE users (
    id                   INTEGER PRIMARY KEY,
    organization_id      INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    username             TEXT NOT NULL UNIQUE COLLATE NOCASE,
    role                 TEXT NOT NULL CHECK (role IN ('org_admin', 'member')),
    password_hash        TEXT NOT NULL,
    password_changed_at  TEXT NOT NULL,
    must_change_password INTEGER NOT NULL DEFAULT 0,
    totp_secret          TEXT NOT NULL DEFAULT '',
    totp_enabled         INTEGER NOT NULL DEFAULT 0,
    created_at           TEXT NOT NULL,
    last_login_at        TEXT
);
CREATE INDEX users_organization_idx ON users(organization_id);

CREATE TABLE agent_keys (
    id              INTEGER PRIMARY KEY,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    key_hash        TEXT NOT NULL UNIQUE,
    key_prefix      TEXT NOT NULL,
    scopes          TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    last_used_at    TEXT,
    revoked_at      TEXT
);
CREATE INDEX agent_keys_organization_idx ON agent_keys(organization_id);

-- Layout required by github.com/alexedwards/scs/sqlite3store.
CREATE TABLE sessions (
    token  TEXT PRIMARY KEY,
    data   BLOB NOT NULL,
    expiry REAL NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions(expiry);

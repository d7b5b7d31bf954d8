-- Telling people: webhooks per organization with their delivery log, the outbox of events
-- (one row per event key, so nothing is announced twice), the findings already announced,
-- and each person's mail preferences with the mails queued for them.

CREATE TABLE webhooks (
    id              INTEGER PRIMARY KEY,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name            TEXT NOT NULL DEFAULT '',
    url             TEXT NOT NULL,
    format          TEXT NOT NULL CHECK (format IN ('json', 'slack', 'teams')),
    events          TEXT NOT NULL,            -- space-separated event types
    min_severity    TEXT NOT NULL DEFAULT '', -- finding.new: '' (any), low, medium, high, critical
    min_score       REAL NOT NULL DEFAULT 0,  -- finding.new: least CVSS base score
    secret          TEXT NOT NULL,            -- signs bodies; never shown after creation
    enabled         INTEGER NOT NULL DEFAULT 1,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX webhooks_organization_idx ON webhooks(organization_id);

-- The outbox: every event once, keyed by what it is about.
CREATE TABLE notify_events (
    id              INTEGER PRIMARY KEY,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    event_key       TEXT NOT NULL UNIQUE,
    type            TEXT NOT NULL,
    data            BLOB NOT NULL,
    created_at      TEXT NOT NULL
);
CREATE INDEX notify_events_org_idx ON notify_events(organization_id, created_at);

CREATE TABLE webhook_deliveries (
    id               INTEGER PRIMARY KEY,
    webhook_id       INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id         INTEGER REFERENCES notify_events(id) ON DELETE CASCADE, -- NULL: a test delivery
    delivery_id      TEXT NOT NULL UNIQUE,
    event_type       TEXT NOT NULL,
    body             BLOB NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT,
    last_status_code INTEGER NOT NULL DEFAULT 0,
    last_error       TEXT NOT NULL DEFAULT '',
    created_at       TEXT NOT NULL,
    delivered_at     TEXT,
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries(webhook_id, id);

-- Findings (a CVE of a product some host has installed now) already announced as new; a row leaves when its finding is
-- announced resolved. AUTOINCREMENT: an id is never reused, so a finding that comes back
-- is a new event.
CREATE TABLE notify_findings (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    product_id      INTEGER NOT NULL,
    cve_id          TEXT NOT NULL,
    UNIQUE (product_id, cve_id)
);
-- What exists when this version is installed is not news.
INSERT INTO notify_findings (organization_id, product_id, cve_id)
    SELECT p.organization_id, m.product_id, m.cve_id FROM matches m JOIN products p ON p.id = m.product_id
    WHERE p.deleted_at IS NULL
    AND EXISTS (SELECT 1 FROM installations i WHERE i.product_id = p.id AND i.removed_at IS NULL);

CREATE TABLE notify_preferences (
    user_id        INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    email          TEXT NOT NULL DEFAULT '',
    digest         TEXT NOT NULL DEFAULT 'off' CHECK (digest IN ('off', 'daily', 'weekly')),
    kev_immediate  INTEGER NOT NULL DEFAULT 0,
    last_digest_at TEXT,
    updated_at     TEXT NOT NULL
);

-- Mails to send, once each: (user, mail_key) is unique.
CREATE TABLE notify_mails (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    mail_key        TEXT NOT NULL,
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    last_error      TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    sent_at         TEXT,
    UNIQUE (user_id, mail_key)
);
CREATE INDEX notify_mails_due_idx ON notify_mails(next_attempt_at) WHERE status = 'pending';

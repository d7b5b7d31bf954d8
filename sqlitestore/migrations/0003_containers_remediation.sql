-- Container-image scans, SLA policies and remediation assignments with their history.

-- One image on one host of an organization; a rescan replaces its vulnerabilities.
CREATE TABLE container_images (
    id              INTEGER PRIMARY KEY,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    hostname        TEXT NOT NULL COLLATE NOCASE,
    image_name      TEXT NOT NULL,
    image_tag       TEXT NOT NULL DEFAULT '',
    image_id        TEXT NOT NULL,
    digest          TEXT NOT NULL DEFAULT '',
    scanner         TEXT NOT NULL DEFAULT '',
    last_scanned    TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    UNIQUE (organization_id, hostname, image_name, image_tag, image_id)
);
CREATE INDEX container_images_scanned_idx ON container_images(organization_id, last_scanned);
CREATE INDEX container_images_image_id_idx ON container_images(organization_id, image_id);

CREATE TABLE container_vulnerabilities (
    id                 INTEGER PRIMARY KEY,
    container_image_id INTEGER NOT NULL REFERENCES container_images(id) ON DELETE CASCADE,
    cve_id             TEXT NOT NULL,
    package_name       TEXT NOT NULL,
    installed_version  TEXT NOT NULL DEFAULT '',
    fixed_version      TEXT NOT NULL DEFAULT '',
    severity           TEXT NOT NULL DEFAULT 'UNKNOWN',
    title              TEXT NOT NULL DEFAULT '',
    description        TEXT NOT NULL DEFAULT '',
    target             TEXT NOT NULL DEFAULT '',
    type               TEXT NOT NULL DEFAULT ''
);
CREATE INDEX container_vulnerabilities_image_idx ON container_vulnerabilities(container_image_id, severity);
CREATE INDEX container_vulnerabilities_cve_idx ON container_vulnerabilities(cve_id);

-- Days allowed per severity; an organization without a row uses the defaults.
CREATE TABLE sla_policies (
    organization_id INTEGER PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
    critical_days   INTEGER NOT NULL,
    high_days       INTEGER NOT NULL,
    medium_days     INTEGER NOT NULL,
    low_days        INTEGER NOT NULL,
    updated_at      TEXT NOT NULL
);

-- match_id and product_id are plain integers, not foreign keys: when the finding disappears
-- the assignment must still say what it was about (auto-resolution reads exactly that).
-- watch_finding is 1 when the finding was present at creation: only then does its
-- disappearance resolve the assignment by itself.
CREATE TABLE remediation_assignments (
    id              INTEGER PRIMARY KEY,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    status          TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'resolved', 'accepted_risk', 'false_positive')),
    assigned_to     INTEGER REFERENCES users(id) ON DELETE SET NULL,
    match_id        INTEGER,
    product_id      INTEGER,
    cve_id          TEXT,
    priority        TEXT NOT NULL CHECK (priority IN ('critical', 'high', 'medium', 'low')),
    due_date        TEXT NOT NULL,
    kev_due_date    TEXT,
    notes           TEXT NOT NULL DEFAULT '',
    watch_finding   INTEGER NOT NULL DEFAULT 0,
    created_by      INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    resolved_at     TEXT
);
CREATE INDEX remediation_assignments_org_idx ON remediation_assignments(organization_id, due_date);
CREATE INDEX remediation_assignments_active_idx ON remediation_assignments(status) WHERE status IN ('open', 'in_progress');

CREATE TABLE remediation_events (
    id            INTEGER PRIMARY KEY,
    assignment_id INTEGER NOT NULL REFERENCES remediation_assignments(id) ON DELETE CASCADE,
    at            TEXT NOT NULL,
    from_status   TEXT NOT NULL DEFAULT '',
    to_status     TEXT NOT NULL,
    note          TEXT NOT NULL DEFAULT '',
    by_user       INTEGER REFERENCES users(id) ON DELETE SET NULL
);
CREATE INDEX remediation_events_assignment_idx ON remediation_events(assignment_id, at);

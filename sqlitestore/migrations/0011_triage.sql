-- Triage (issue 13): standing decisions about findings, their audit trail, and the decisions
-- in force on the current findings.

-- A rule: for cve_id ('' = every CVE of the product) on a scope, the state is state because
-- justification, until expires_at. Rules are never deleted (deleted_at retires them), so the
-- history keeps pointing at them.
CREATE TABLE triage_rules (
    id              INTEGER PRIMARY KEY,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    cve_id          TEXT NOT NULL DEFAULT '',
    scope           TEXT NOT NULL CHECK (scope IN ('host', 'version_range', 'product', 'organization')),
    product         TEXT NOT NULL DEFAULT '',
    version_start   TEXT NOT NULL DEFAULT '',
    version_end     TEXT NOT NULL DEFAULT '',
    asset_id        INTEGER REFERENCES assets(id) ON DELETE CASCADE,
    state           TEXT NOT NULL CHECK (state IN ('in_triage', 'exploitable', 'not_affected', 'false_positive', 'accepted_risk', 'fixed')),
    justification   TEXT NOT NULL DEFAULT '',
    note            TEXT NOT NULL DEFAULT '',
    author          TEXT NOT NULL DEFAULT '',
    expires_at      TEXT,
    created_by      INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at      TEXT NOT NULL,
    updated_by      INTEGER REFERENCES users(id) ON DELETE SET NULL,
    updated_at      TEXT NOT NULL,
    deleted_at      TEXT
);
CREATE INDEX triage_rules_org_idx ON triage_rules(organization_id) WHERE deleted_at IS NULL;

-- Every change of a rule, with the rule as it was after it (JSON); appended, never edited.
CREATE TABLE triage_rule_events (
    id      INTEGER PRIMARY KEY,
    rule_id INTEGER NOT NULL REFERENCES triage_rules(id) ON DELETE CASCADE,
    at      TEXT NOT NULL,
    action  TEXT NOT NULL CHECK (action IN ('created', 'updated', 'deleted')),
    by_user INTEGER REFERENCES users(id) ON DELETE SET NULL,
    rule    TEXT NOT NULL
);
CREATE INDEX triage_rule_events_rule_idx ON triage_rule_events(rule_id, id);

-- The decision in force on each finding (product, CVE) that a rule covers; recomputed when
-- rules, inventories or matches change and when a suppression expires. suppresses = 1 takes
-- the finding out of counts and lists.
CREATE TABLE triage_findings (
    product_id    INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE,
    cve_id        TEXT NOT NULL,
    rule_id       INTEGER NOT NULL REFERENCES triage_rules(id) ON DELETE CASCADE,
    state         TEXT NOT NULL,
    justification TEXT NOT NULL DEFAULT '',
    expires_at    TEXT,
    suppresses    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (product_id, cve_id)
) WITHOUT ROWID;
CREATE INDEX triage_findings_expiry_idx ON triage_findings(expires_at) WHERE expires_at IS NOT NULL;

-- The decision in force on each container finding (image record, CVE, package) a rule covers;
-- keyed by what a rescan keeps, so the same findings again keep their decision.
CREATE TABLE triage_container_findings (
    container_image_id INTEGER NOT NULL REFERENCES container_images(id) ON DELETE CASCADE,
    cve_id             TEXT NOT NULL,
    package_name       TEXT NOT NULL,
    rule_id            INTEGER NOT NULL REFERENCES triage_rules(id) ON DELETE CASCADE,
    state              TEXT NOT NULL,
    justification      TEXT NOT NULL DEFAULT '',
    expires_at         TEXT,
    suppresses         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (container_image_id, cve_id, package_name)
) WITHOUT ROWID;

-- Host tags (issue 13 §1): labels an organization admin gives hosts ("prod", "dmz"), which
-- lists filter on and triage rules can be scoped to.
CREATE TABLE asset_tags (
    asset_id INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
    tag      TEXT NOT NULL,
    PRIMARY KEY (asset_id, tag)
) WITHOUT ROWID;
CREATE INDEX asset_tags_tag_idx ON asset_tags(tag, asset_id);

-- Triage rules gain the tag scope, so the table is rebuilt (SQLite cannot change a CHECK):
-- the runner applies this migration with foreign keys off, then checks them.
-- vulnkeeper:foreign_keys_off
CREATE TABLE triage_rules_new (
    id              INTEGER PRIMARY KEY,
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    cve_id          TEXT NOT NULL DEFAULT '',
    scope           TEXT NOT NULL CHECK (scope IN ('host', 'tag', 'version_range', 'product', 'organization')),
    product         TEXT NOT NULL DEFAULT '',
    version_start   TEXT NOT NULL DEFAULT '',
    version_end     TEXT NOT NULL DEFAULT '',
    asset_id        INTEGER REFERENCES assets(id) ON DELETE CASCADE,
    tag             TEXT NOT NULL DEFAULT '',
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
INSERT INTO triage_rules_new (id, organization_id, cve_id, scope, product, version_start, version_end, asset_id, state,
    justification, note, author, expires_at, created_by, created_at, updated_by, updated_at, deleted_at)
SELECT id, organization_id, cve_id, scope, product, version_start, version_end, asset_id, state,
    justification, note, author, expires_at, created_by, created_at, updated_by, updated_at, deleted_at
FROM triage_rules;
DROP TABLE triage_rules;
ALTER TABLE triage_rules_new RENAME TO triage_rules;
CREATE INDEX triage_rules_org_idx ON triage_rules(organization_id) WHERE deleted_at IS NULL;

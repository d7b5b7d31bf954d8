-- Licence server: activation codes and the licences they became; the shared knowledge base.
-- Installation: its identity, licence and KB sync state (settings) and the mappings it pulled.

CREATE TABLE activation_codes (
    id            INTEGER PRIMARY KEY,
    code_hash     TEXT NOT NULL UNIQUE,
    edition       TEXT NOT NULL CHECK (edition IN ('professional', 'standard')),
    valid_seconds INTEGER NOT NULL CHECK (valid_seconds > 0),
    customer      TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL
);

CREATE TABLE licenses (
    id              TEXT PRIMARY KEY,
    code_id         INTEGER NOT NULL UNIQUE REFERENCES activation_codes(id),
    installation_id TEXT NOT NULL,
    edition         TEXT NOT NULL,
    customer        TEXT NOT NULL DEFAULT '',
    issued_at       TEXT NOT NULL,
    expires_at      TEXT NOT NULL,
    credential_hash TEXT NOT NULL UNIQUE
);

CREATE TABLE kb_mappings (
    id                 INTEGER PRIMARY KEY,
    source             TEXT NOT NULL CHECK (source IN ('community', 'curated', 'nvd')),
    vendor_pattern     TEXT NOT NULL,
    product_pattern    TEXT NOT NULL,
    cpe_vendor         TEXT NOT NULL,
    cpe_product        TEXT NOT NULL,
    tuple_key          TEXT NOT NULL,
    confidence         REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    contribution_count INTEGER NOT NULL DEFAULT 0,
    is_published       INTEGER NOT NULL DEFAULT 0,
    retracted          INTEGER NOT NULL DEFAULT 0,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    UNIQUE (source, tuple_key)
);
CREATE INDEX kb_mappings_pull_idx ON kb_mappings(updated_at, id);

CREATE TABLE kb_contributions (
    mapping_id      INTEGER NOT NULL REFERENCES kb_mappings(id) ON DELETE CASCADE,
    installation_id TEXT NOT NULL,
    confidence      REAL NOT NULL,
    created_at      TEXT NOT NULL,
    PRIMARY KEY (mapping_id, installation_id)
) WITHOUT ROWID;

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Software identities, vulnerability data, hosts, products, installations and matches.

-- Counters the server polls to notice imports made by other processes.
CREATE TABLE generations (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT INTO generations (name, value) VALUES ('cve', 0), ('catalog', 0), ('kb', 0);

CREATE TABLE catalog (
    id         INTEGER PRIMARY KEY,
    part       TEXT NOT NULL,
    vendor     TEXT NOT NULL,
    product    TEXT NOT NULL,
    title      TEXT NOT NULL DEFAULT '',
    deprecated INTEGER NOT NULL DEFAULT 0,
    source     TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (part, vendor, product)
);
CREATE INDEX catalog_updated_idx ON catalog(updated_at, id);

CREATE TABLE cves (
    id             TEXT PRIMARY KEY,
    description    TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL DEFAULT '',
    published      TEXT,
    modified       TEXT,
    score          REAL,
    vector         TEXT NOT NULL DEFAULT '',
    severity       TEXT NOT NULL DEFAULT '',
    score_version  TEXT NOT NULL DEFAULT '',
    configurations BLOB,
    imported_at    TEXT NOT NULL
);

CREATE TABLE kev (
    cve_id     TEXT PRIMARY KEY,
    name       TEXT NOT NULL DEFAULT '',
    date_added TEXT,
    due_date   TEXT,
    ransomware TEXT NOT NULL DEFAULT ''
);

CREATE TABLE assets (
    id                INTEGER PRIMARY KEY,
    organization_id   INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    hostname          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    fqdn              TEXT NOT NULL DEFAULT '',
    ip_address        TEXT NOT NULL DEFAULT '',
    os_name           TEXT NOT NULL DEFAULT '',
    os_version        TEXT NOT NULL DEFAULT '',
    os_kernel         TEXT NOT NULL DEFAULT '',
    agent_id          TEXT NOT NULL DEFAULT '',
    agent_version     TEXT NOT NULL DEFAULT '',
    created_at        TEXT NOT NULL,
    last_seen_at      TEXT NOT NULL,
    last_inventory_at TEXT,
    -- Fingerprint of the last reconciled inventory and the data it was resolved against:
    -- an identical resubmission needs no reconciliation.
    inventory_hash    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX assets_organization_idx ON assets(organization_id);

CREATE TABLE products (
    id                    INTEGER PRIMARY KEY,
    organization_id       INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    vendor                TEXT NOT NULL DEFAULT '',
    name                  TEXT NOT NULL,
    version               TEXT NOT NULL DEFAULT '',
    cpe_part              TEXT NOT NULL DEFAULT '',
    cpe_vendor            TEXT NOT NULL DEFAULT '',
    cpe_product           TEXT NOT NULL DEFAULT '',
    cpe_update            TEXT NOT NULL DEFAULT '',
    resolution            TEXT NOT NULL DEFAULT 'unresolved',
    resolution_confidence REAL NOT NULL DEFAULT 0,
    criticality           INTEGER NOT NULL DEFAULT 2 CHECK (criticality BETWEEN 1 AND 5),
    match_generation      INTEGER NOT NULL DEFAULT -1,
    created_at            TEXT NOT NULL,
    updated_at            TEXT NOT NULL,
    deleted_at            TEXT,
    UNIQUE (organization_id, vendor, name, version)
);
CREATE INDEX products_identity_idx ON products(cpe_vendor, cpe_product);
CREATE INDEX products_resolution_idx ON products(organization_id, resolution);

CREATE TABLE installations (
    id         INTEGER PRIMARY KEY,
    asset_id   INTEGER NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
    product_id INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE,
    path       TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    removed_at TEXT
);
CREATE UNIQUE INDEX installations_live_idx ON installations(asset_id, product_id) WHERE removed_at IS NULL;
CREATE INDEX installations_product_idx ON installations(product_id) WHERE removed_at IS NULL;

CREATE TABLE matches (
    id         INTEGER PRIMARY KEY,
    product_id INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE,
    cve_id     TEXT NOT NULL,
    criteria   TEXT NOT NULL DEFAULT '',
    platform   TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    UNIQUE (product_id, cve_id)
);
CREATE INDEX matches_cve_idx ON matches(cve_id);

-- Identities confirmed by a person of the organization, keyed by the normalized reported pair.
CREATE TABLE resolution_overrides (
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    vendor_key      TEXT NOT NULL,
    product_key     TEXT NOT NULL,
    reported_vendor TEXT NOT NULL DEFAULT '',
    reported_name   TEXT NOT NULL DEFAULT '',
    cpe_part        TEXT NOT NULL,
    cpe_vendor      TEXT NOT NULL,
    cpe_product     TEXT NOT NULL,
    created_by      INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at      TEXT NOT NULL,
    pushed_at       TEXT,
    PRIMARY KEY (organization_id, vendor_key, product_key)
) WITHOUT ROWID;

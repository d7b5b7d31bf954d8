-- Real hosts (issue 9): host os-release facts, products as distribution packages (kept apart
-- per release), where a finding came from and what fixes it, and the imported advisories.
-- Renumber to 0007 when merged after 0005/0006 of other branches.

ALTER TABLE assets ADD COLUMN os_id          TEXT NOT NULL DEFAULT '';
ALTER TABLE assets ADD COLUMN os_version_id  TEXT NOT NULL DEFAULT '';
ALTER TABLE assets ADD COLUMN os_codename    TEXT NOT NULL DEFAULT '';
ALTER TABLE assets ADD COLUMN os_build       TEXT NOT NULL DEFAULT '';
ALTER TABLE assets ADD COLUMN os_arch        TEXT NOT NULL DEFAULT '';
ALTER TABLE assets ADD COLUMN os_inferred    TEXT NOT NULL DEFAULT '';

-- The natural key gains the package release, so products are rebuilt (SQLite's documented
-- way: the runner applies this migration with foreign keys off, then checks them).
-- vulnkeeper:foreign_keys_off
CREATE TABLE products_new (
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
    -- A package: its system (deb, rpm, apk, brew …), distribution release ("ubuntu:22.04";
    -- '' for everything that is not a distribution package), source package and version,
    -- package URL, architecture, macOS bundle id, and the fields the server inferred.
    pkg_source            TEXT NOT NULL DEFAULT '',
    pkg_release           TEXT NOT NULL DEFAULT '',
    source_package        TEXT NOT NULL DEFAULT '',
    source_version        TEXT NOT NULL DEFAULT '',
    purl                  TEXT NOT NULL DEFAULT '',
    pkg_arch              TEXT NOT NULL DEFAULT '',
    bundle_id             TEXT NOT NULL DEFAULT '',
    pkg_inferred          TEXT NOT NULL DEFAULT '',
    UNIQUE (organization_id, vendor, name, version, pkg_release)
);
INSERT INTO products_new (id, organization_id, vendor, name, version, cpe_part, cpe_vendor, cpe_product, cpe_update,
    resolution, resolution_confidence, criticality, match_generation, created_at, updated_at, deleted_at)
SELECT id, organization_id, vendor, name, version, cpe_part, cpe_vendor, cpe_product, cpe_update,
    resolution, resolution_confidence, criticality, match_generation, created_at, updated_at, deleted_at
FROM products;
DROP TABLE products;
ALTER TABLE products_new RENAME TO products;
CREATE INDEX products_identity_idx ON products(cpe_vendor, cpe_product);
CREATE INDEX products_resolution_idx ON products(organization_id, resolution);

-- Where a finding came from (nvd, ubuntu, almalinux …), how (advisory, cpe_range,
-- upstream_version), and what fixes it.
ALTER TABLE matches ADD COLUMN source        TEXT NOT NULL DEFAULT 'nvd';
ALTER TABLE matches ADD COLUMN basis         TEXT NOT NULL DEFAULT 'cpe_range';
ALTER TABLE matches ADD COLUMN fixed_version TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN fix_state     TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN pro_only      INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN advisories    TEXT NOT NULL DEFAULT '';

-- Imported distribution and ecosystem advisories, one row per (source, advisory, ecosystem,
-- package). detail holds the decoder's entry (ranges, versions, scheme) as JSON; digest
-- makes re-importing unchanged data a no-op.
CREATE TABLE advisories (
    source      TEXT NOT NULL,
    id          TEXT NOT NULL,
    ecosystem   TEXT NOT NULL,
    package     TEXT NOT NULL,
    distro      TEXT NOT NULL DEFAULT '',
    release     TEXT NOT NULL DEFAULT '',
    fixed       TEXT NOT NULL DEFAULT '',
    fix_state   TEXT NOT NULL DEFAULT '',
    pro_only    INTEGER NOT NULL DEFAULT 0,
    withdrawn   INTEGER NOT NULL DEFAULT 0,
    binaries    TEXT NOT NULL DEFAULT '{}',
    cves        TEXT NOT NULL DEFAULT '[]',
    detail      BLOB NOT NULL,
    digest      TEXT NOT NULL,
    imported_at TEXT NOT NULL,
    PRIMARY KEY (source, id, ecosystem, package)
) WITHOUT ROWID;
CREATE INDEX advisories_release_idx ON advisories(distro, release);

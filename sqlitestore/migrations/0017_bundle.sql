-- Feed bundles (air-gapped sites): when each KEV and EPSS row was last written, so a bundle
-- can carry what changed since an earlier one; CVEs removed (rejected) with the time; the
-- bundles this installation wrote, each with the moment its content was read.
ALTER TABLE kev ADD COLUMN imported_at TEXT NOT NULL DEFAULT '';
ALTER TABLE epss ADD COLUMN imported_at TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS cves_imported_idx ON cves(imported_at);
CREATE INDEX kev_imported_idx ON kev(imported_at);
CREATE INDEX epss_imported_idx ON epss(imported_at);
CREATE INDEX advisories_imported_idx ON advisories(imported_at);

CREATE TABLE cve_removals (
    id         TEXT PRIMARY KEY,
    removed_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX cve_removals_at_idx ON cve_removals(removed_at);

CREATE TABLE feed_bundles (
    serial     INTEGER PRIMARY KEY,
    since      INTEGER NOT NULL,
    created_at TEXT NOT NULL
);

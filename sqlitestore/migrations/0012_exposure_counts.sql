-- Counts the host-, CVE- and dashboard pages read, kept up to date by the store inside the
-- transaction that changes installations or matches (sqlitestore/counts.go, whose CountDrift recomputes them), so no list
-- counts installations or matches row by row.

-- A product's findings (its matches, zero while the product is deleted) by severity, and how
-- many hosts have it now. max_severity: 4 critical, 3 high, 2 medium, 1 low, 0 none/unknown.
ALTER TABLE products ADD COLUMN asset_count   INTEGER NOT NULL DEFAULT 0;
ALTER TABLE products ADD COLUMN vuln_count    INTEGER NOT NULL DEFAULT 0;
ALTER TABLE products ADD COLUMN vuln_critical INTEGER NOT NULL DEFAULT 0;
ALTER TABLE products ADD COLUMN vuln_high     INTEGER NOT NULL DEFAULT 0;
ALTER TABLE products ADD COLUMN vuln_medium   INTEGER NOT NULL DEFAULT 0;
ALTER TABLE products ADD COLUMN vuln_low      INTEGER NOT NULL DEFAULT 0;
ALTER TABLE products ADD COLUMN kev_count     INTEGER NOT NULL DEFAULT 0;
ALTER TABLE products ADD COLUMN max_severity  INTEGER NOT NULL DEFAULT 0;
ALTER TABLE products ADD COLUMN max_score     REAL    NOT NULL DEFAULT 0;

-- A host's products not deleted that it has now, and the sum of their finding counts.
ALTER TABLE assets ADD COLUMN product_count    INTEGER NOT NULL DEFAULT 0;
ALTER TABLE assets ADD COLUMN finding_count    INTEGER NOT NULL DEFAULT 0;
ALTER TABLE assets ADD COLUMN finding_critical INTEGER NOT NULL DEFAULT 0;
ALTER TABLE assets ADD COLUMN finding_high     INTEGER NOT NULL DEFAULT 0;
ALTER TABLE assets ADD COLUMN finding_medium   INTEGER NOT NULL DEFAULT 0;
ALTER TABLE assets ADD COLUMN finding_low      INTEGER NOT NULL DEFAULT 0;
ALTER TABLE assets ADD COLUMN finding_kev      INTEGER NOT NULL DEFAULT 0;

UPDATE products SET asset_count = (SELECT count(*) FROM installations i WHERE i.product_id = products.id AND i.removed_at IS NULL);

UPDATE products SET (vuln_count, vuln_critical, vuln_high, vuln_medium, vuln_low, kev_count, max_severity, max_score) = (
    SELECT count(*),
           count(*) FILTER (WHERE c.severity = 'critical'),
           count(*) FILTER (WHERE c.severity = 'high'),
           count(*) FILTER (WHERE c.severity = 'medium'),
           count(*) FILTER (WHERE c.severity = 'low'),
           count(k.cve_id),
           coalesce(max(CASE c.severity WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END), 0),
           coalesce(max(c.score), 0)
      FROM matches m LEFT JOIN cves c ON c.id = m.cve_id LEFT JOIN kev k ON k.cve_id = m.cve_id
     WHERE m.product_id = products.id)
 WHERE deleted_at IS NULL;

UPDATE assets SET (product_count, finding_count, finding_critical, finding_high, finding_medium, finding_low, finding_kev) = (
    SELECT count(*) FILTER (WHERE p.deleted_at IS NULL), coalesce(sum(p.vuln_count), 0), coalesce(sum(p.vuln_critical), 0), coalesce(sum(p.vuln_high), 0),
           coalesce(sum(p.vuln_medium), 0), coalesce(sum(p.vuln_low), 0), coalesce(sum(p.kev_count), 0)
      FROM installations i JOIN products p ON p.id = i.product_id
     WHERE i.asset_id = assets.id AND i.removed_at IS NULL);

-- How many hosts have a product reported as (vendor, name) now, any version, resolved or
-- not: the review queue's host count, a host with two versions counted once. A name is
-- tracked (has a row) from the time one of its products is unresolved.
CREATE TABLE reported_names (
    organization_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    vendor          TEXT NOT NULL,
    name            TEXT NOT NULL,
    host_count      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (organization_id, vendor, name)
) WITHOUT ROWID;

INSERT INTO reported_names (organization_id, vendor, name, host_count)
SELECT p.organization_id, p.vendor, p.name, count(DISTINCT i.asset_id)
  FROM products p LEFT JOIN installations i ON i.product_id = p.id AND i.removed_at IS NULL
 GROUP BY p.organization_id, p.vendor, p.name HAVING max(p.resolution = 'unresolved');

-- Lists of hosts by last contact; a host's history (removed installations too); the newest CVE data.
CREATE INDEX assets_seen_idx ON assets(organization_id, last_seen_at);
CREATE INDEX installations_asset_idx ON installations(asset_id, created_at);
CREATE INDEX cves_modified_idx ON cves(modified);
CREATE INDEX cves_imported_idx ON cves(imported_at);
-- The CVE list sorts and filters on these without reading the records.
CREATE INDEX cves_rank_idx ON cves(id, severity, score, published);

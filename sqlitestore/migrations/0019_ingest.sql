-- Ingestion at fleet scale (issue 9 §5).
--
-- A serial that moves whenever a product is created, deleted, or changes anything but its kept
-- counts. Reconciliation reads a host's products on a reader before it takes the writer, and
-- inside the write transaction uses what it read only while this serial has not moved.
CREATE TABLE product_changes (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    serial INTEGER NOT NULL
);
INSERT INTO product_changes (id, serial) VALUES (1, 0);

-- How many hosts have each product now, kept apart from the wide product rows: a new host
-- moves the count of hundreds of products at once, and narrow rows share few pages, so the
-- write touches few pages (the WAL and checkpoints write whole pages).
CREATE TABLE product_hosts (
    product_id INTEGER PRIMARY KEY REFERENCES products(id) ON DELETE CASCADE,
    hosts      INTEGER NOT NULL DEFAULT 0
);
INSERT INTO product_hosts (product_id, hosts) SELECT id, asset_count FROM products;
ALTER TABLE products DROP COLUMN asset_count;

CREATE TRIGGER products_created AFTER INSERT ON products
BEGIN
    INSERT INTO product_hosts (product_id, hosts) VALUES (new.id, 0);
    UPDATE product_changes SET serial = serial + 1;
END;

CREATE TRIGGER products_deleted AFTER DELETE ON products
BEGIN
    UPDATE product_changes SET serial = serial + 1;
END;

CREATE TRIGGER products_changed AFTER UPDATE OF id, organization_id, vendor, name, version, cpe_part, cpe_vendor,
    cpe_product, cpe_update, resolution, resolution_confidence, criticality, criticality_set, match_generation,
    created_at, updated_at, deleted_at, pkg_source, pkg_release, source_package, source_version, purl, pkg_arch,
    bundle_id, pkg_inferred ON products
BEGIN
    UPDATE product_changes SET serial = serial + 1;
END;

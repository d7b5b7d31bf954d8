-- A community mapping is published when installations of different customers agree: each
-- contribution records its voice, the licence's customer (or the installation itself when the
-- licence names none), and publication counts distinct voices. One customer's three activation
-- codes are one voice.
ALTER TABLE kb_contributions ADD COLUMN voice TEXT NOT NULL DEFAULT '';
UPDATE kb_contributions SET voice = coalesce(
    (SELECT 'customer:' || lower(trim(l.customer)) FROM licenses l
      WHERE l.installation_id = kb_contributions.installation_id AND trim(l.customer) <> '' LIMIT 1),
    'installation:' || installation_id);
UPDATE kb_mappings SET is_published = 0
 WHERE source = 'community' AND is_published = 1
   AND (SELECT count(DISTINCT voice) FROM kb_contributions c WHERE c.mapping_id = kb_mappings.id) < 3;

-- Activation refuses an installation ID that another licence holds; the lookup needs this.
CREATE INDEX licenses_installation_idx ON licenses(installation_id);

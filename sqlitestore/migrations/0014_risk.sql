-- What fixes a finding and how likely it is to be exploited (issue 12 §2).

-- Who scored the CVE ("NVD", "CISA-ADP" or the CNA), its references tagged Patch or Vendor
-- Advisory (JSON [{url, tags}]), and where the record came from: "nvd", or "cve5" for a
-- CVE JSON 5 record whose configurations were built from the CNA's and CISA ADP's affected
-- data because NVD had none.
ALTER TABLE cves ADD COLUMN score_source TEXT NOT NULL DEFAULT '';
ALTER TABLE cves ADD COLUMN refs TEXT NOT NULL DEFAULT '[]';
ALTER TABLE cves ADD COLUMN origin TEXT NOT NULL DEFAULT 'nvd';

-- Whether a person chose the product's criticality (then rules never change it).
ALTER TABLE products ADD COLUMN criticality_set INTEGER NOT NULL DEFAULT 0;
-- Before, every product started at 2: any other value was a person's choice.
UPDATE products SET criticality_set = 1 WHERE criticality <> 2;

-- An organization's criticality rules, in order, as JSON [{pattern, criticality}]; an
-- organization without a row uses the built-in defaults.
CREATE TABLE criticality_rules (
    organization_id INTEGER PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
    rules           TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);

-- Findings stored before now lack the fixed version NVD ranges name: match everything again.
UPDATE products SET match_generation = -1;

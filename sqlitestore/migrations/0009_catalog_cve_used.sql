-- Which catalogue identities CVE data names (a feed's criteria, or a catalogue file's nvd
-- sources): resolution prefers them to spellings only a dictionary lists. Rows stored before
-- are marked by the next feed or catalogue import; until then nothing is preferred.
ALTER TABLE catalog ADD COLUMN cve_used INTEGER NOT NULL DEFAULT 0;

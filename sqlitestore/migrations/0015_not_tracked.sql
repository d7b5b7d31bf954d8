-- An override may say "not a product we track" instead of naming an identity: every
-- version of the reported pair is then never matched and never waits for review. Such a
-- row keeps empty cpe_* columns and is never pushed to the KB.
ALTER TABLE resolution_overrides ADD COLUMN not_tracked INTEGER NOT NULL DEFAULT 0 CHECK (not_tracked IN (0, 1));

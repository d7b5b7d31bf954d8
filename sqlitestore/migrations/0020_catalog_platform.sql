-- The software platform (CPE target_sw) an identity's names are for: "node.js" for an npm
-- package, "wordpress" for a plugin; '*' when names differ or say none; '' when nothing has
-- said (appliance.MergePlatform). Catalogue and feed imports fill it from now on.
ALTER TABLE catalog ADD COLUMN platform TEXT NOT NULL DEFAULT '';

-- An asset is a host (an agent's inventory) or an application (an SBOM's): lists tell them apart.
ALTER TABLE assets ADD COLUMN kind TEXT NOT NULL DEFAULT 'host' CHECK (kind IN ('host', 'application'));

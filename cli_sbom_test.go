package main

import (
	"strings"
	"testing"
)

// TestSBOMImportCommand imports the shared Laravel SBOM into an installation from the
// command line: every component becomes a product of the application's asset, named after
// the document when --host is absent; an unknown organization is refused.
func TestSBOMImportCommand(t *testing.T) {
	dir := t.TempDir()
	const laravel = "../shared/data/inventory/cyclonedx_laravel-7.12.0.cdx.json"
	if r := runCLI(t, dir, "", "org", "create", "acme"); r.code != 0 {
		t.Fatalf("org create: %+v", r)
	}
	r := runCLI(t, dir, "", "sbom", "import", laravel, "--org", "acme")
	out := r.stdout
	if r.code != 0 || !strings.Contains(out, "cyclonedx-json, 62 components") || !strings.Contains(out, `"cyclonedx-php-composer-demo@dev-master"`) ||
		!strings.Contains(out, "62 products, 62 installations created") {
		t.Errorf("sbom import: %+v", r)
	}
	if r := runCLI(t, dir, "", "sbom", "import", laravel, "--org", "acme", "--host", "shop-web"); r.code != 0 || !strings.Contains(r.stdout, `"shop-web"`) {
		t.Errorf("sbom import --host: %+v", r)
	}
	if r := runCLI(t, dir, "", "sbom", "import", laravel, "--org", "nope"); r.code == 0 || !strings.Contains(r.stderr, "nope") {
		t.Errorf("an unknown organization: %+v", r)
	}
	if r := runCLI(t, dir, "", "sbom", "import", "../shared/data/inventory/ubuntu-jammy-amd64.dpkg-manifest.tsv", "--org", "acme"); r.code == 0 ||
		!strings.Contains(r.stderr, "not a CycloneDX, SPDX or Syft document") {
		t.Errorf("a file that is no SBOM: %+v", r)
	}
}

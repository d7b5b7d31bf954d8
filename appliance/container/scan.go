package container

import (
	"bytes"
	"encoding/json"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Report formats ParseScan recognizes.
const (
	FormatTrivy = "trivy"
	FormatGrype = "grype"
)

// Limits of one container-scan submission. Beyond them the whole submission is refused
// with a ValidationError and nothing is stored.
const (
	MaxImagesPerRequest        = 50
	MaxVulnerabilitiesPerImage = 5000 // counted after de-duplication
)

// Scan is one image's scanner report reduced to what vulnkeeper keeps.
type Scan struct {
	Format          string // FormatTrivy or FormatGrype
	Vulnerabilities []Vulnerability
}

// Vulnerability is one finding of a scanner: a vulnerability ID in an installed package.
type Vulnerability struct {
	CVEID            string // scanner's ID: usually CVE-…, also GHSA-…, GMS-… and the like
	PackageName      string
	InstalledVersion string
	FixedVersion     string // empty when no fix is known; several versions comma-separated
	Severity         string // one of the Severity* constants
	Title            string
	Description      string
	Target           string // what was scanned: OS layer, lock file, or grype's package location
	Type             string // package ecosystem: debian, alpine, npm, gomod, deb, python, …
}

// scanReport is the union of both formats, decoded in one pass: the keys that are present
// tell the formats apart. encoding/json matches keys case-insensitively, which is harmless
// here: Trivy writes "Results", Grype "matches".
type scanReport struct {
	SchemaVersion json.RawMessage `json:"SchemaVersion"`
	Results       []trivyResult   `json:"Results"`
	Matches       []grypeMatch    `json:"matches"`
}

// ParseScan detects whether raw is a Trivy (SchemaVersion 2) or a Grype JSON report and
// returns its vulnerabilities, normalized, bounded and de-duplicated (see normalize.go).
// A Trivy report without Results (a clean image) is an empty scan, not an error.
func ParseScan(raw []byte) (Scan, error) {
	var report scanReport
	if err := json.Unmarshal(raw, &report); err != nil {
		return Scan{}, invalidJSON(err)
	}
	var (
		scan Scan
		err  error
	)
	switch {
	case report.Results != nil && report.Matches != nil:
		return Scan{}, invalidFormat("report has both Trivy Results and Grype matches")
	case report.Results != nil || present(report.SchemaVersion):
		scan, err = parseTrivy(report)
	case report.Matches != nil:
		scan, err = parseGrype(report.Matches)
	default:
		return Scan{}, invalidFormat("neither a Trivy report (SchemaVersion, Results) nor a Grype report (matches)")
	}
	if err != nil {
		return Scan{}, err
	}
	return finish(scan)
}

// finish de-duplicates and applies the per-image limit.
func finish(scan Scan) (Scan, error) {
	scan.Vulnerabilities = deduplicate(scan.Vulnerabilities)
	if n := len(scan.Vulnerabilities); n > MaxVulnerabilitiesPerImage {
		return Scan{}, appliance.Invalid("scan_results", "max_items",
			"report lists %d distinct vulnerabilities, more than the %d allowed per image", n, MaxVulnerabilitiesPerImage)
	}
	return scan, nil
}

// ValidateImageCount refuses a submission of more than MaxImagesPerRequest images. Zero
// images is a valid, empty submission (a host that runs no containers).
func ValidateImageCount(n int) error {
	if n > MaxImagesPerRequest {
		return appliance.Invalid("images", "max_items", "at most %d images per request, got %d", MaxImagesPerRequest, n)
	}
	return nil
}

// present reports whether a key was in the document with a value other than null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

package containers

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/jsonarray"
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
	Results       jsonarray.Span  `json:"Results"` // read element by element: see eachElement
	Matches       jsonarray.Span  `json:"matches"` // read element by element: see eachElement
}

// maxRawFindings bounds the findings a report may list before de-duplication (a scanner lists
// one CVE once per target that has it), and maxResults its Trivy results; a report past them
// is refused while it is read, so a body of millions of empty entries costs almost nothing.
const (
	maxRawFindings = 4 * MaxVulnerabilitiesPerImage
	maxResults     = 1000
)

// eachElement reads the JSON array raw element by element, calling fn with each element's
// bytes, and refuses the report once more than limit elements have been read; *budget counts
// down from limit and may be shared by several arrays of one report.
func eachElement(raw jsonarray.Span, field, what string, limit int, budget *int, fn func(element []byte) error) error {
	if !raw.Present() {
		return nil
	}
	err := jsonarray.Each(raw, func(element []byte) error {
		if *budget == 0 {
			return appliance.Invalid(scanField, "max_items", "report lists more than %d %s", limit, what)
		}
		*budget--
		return fn(element)
	})
	if errors.Is(err, jsonarray.ErrNotArray) {
		return invalidFormat("%s must be an array", field)
	}
	if err != nil {
		return invalidJSON(err)
	}
	return nil
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
	case report.Results.Present() && report.Matches.Present():
		return Scan{}, invalidFormat("report has both Trivy Results and Grype matches")
	case report.Results.Present() || present(report.SchemaVersion):
		scan, err = parseTrivy(report)
	case report.Matches.Present():
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

package appliance

import (
	"context"
	"time"
)

// ContainerImage is one image on one host of an organization, as last scanned.
type ContainerImage struct {
	ID             int64
	OrganizationID int64
	Hostname       string
	Name           string // repository name with registry host and port, without tag
	Tag            string // empty when the reference was pinned by digest alone
	ImageID        string // sha256:<64 hex>, the image's config digest
	Digest         string // repository digest of the reference (name@sha256:…), if given
	Scanner        string // report format the findings came from
	LastScanned    time.Time
	CreatedAt      time.Time
	Counts         SeverityCounts // findings per severity (list and detail)
}

// SeverityCounts is the number of container findings per severity.
type SeverityCounts struct {
	Critical, High, Medium, Low, Unknown int
}

// ContainerFinding is one vulnerability of a package in an image, linked to the CVE data
// when the CVE is known (Score, KEV).
type ContainerFinding struct {
	CVEID            string
	PackageName      string
	InstalledVersion string
	FixedVersion     string
	Severity         string // uppercase, as the scanner wrote it (normalized)
	Title            string
	Description      string
	Target           string
	Type             string
	Score            float64
	HasScore         bool
	KEV              bool
	EPSS             *EPSSScore   // nil when EPSS has no score for the CVE
	Triage           *TriageState // the decision in force, nil when none (read only)
	CVEFacts                      // from the CVE data, when it knows the CVE
	Risk             Risk
}

// ContainerFilter selects one organization's images; Severity (uppercase) keeps images with
// at least one finding of it, Search matches name or tag, Hostname is exact.
type ContainerFilter struct {
	OrganizationID int64
	Severity       string
	Search         string
	Hostname       string
	// IncludeSuppressed counts findings a triage rule suppresses (they count nowhere otherwise).
	IncludeSuppressed bool
	Page, PerPage     int
}

// ContainerReader looks up scanned images, always within one organization.
type ContainerReader interface {
	ListContainerImages(ctx context.Context, f ContainerFilter) ([]ContainerImage, int, error)
	// EachContainerImage streams every image the filter selects (pages ignored), in list order.
	EachContainerImage(ctx context.Context, f ContainerFilter, fn func(ContainerImage) error) error
	ContainerImageByID(ctx context.Context, orgID, id int64) (ContainerImage, error)
	// ContainerImageByDigest finds the most recently scanned record whose image ID or
	// repository digest is digest.
	ContainerImageByDigest(ctx context.Context, orgID int64, digest string) (ContainerImage, error)
	ContainerFindings(ctx context.Context, orgID, imageID int64) ([]ContainerFinding, error)
	// ScannedSeverities lists the severities the organization's scans report for cveID
	// (empty when no image has it).
	ScannedSeverities(ctx context.Context, orgID int64, cveID string) ([]string, error)
}

// ContainerWriter stores scan results.
type ContainerWriter interface {
	// SaveContainerImage inserts the record keyed by (organization, hostname, name, tag,
	// image ID) or updates its digest, scanner and last_scanned; it returns the record's id.
	SaveContainerImage(ctx context.Context, img ContainerImage) (int64, error)
	// ReplaceContainerFindings makes the image record's findings exactly fs.
	ReplaceContainerFindings(ctx context.Context, imageID int64, fs []ContainerFinding) error
}

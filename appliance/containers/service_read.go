package containers

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/risk"
)

// ContainerDetail is an image record with its findings.
type ContainerDetail struct {
	appliance.ContainerImage
	Findings []appliance.ContainerFinding
}

// ValidateContainerFilter normalizes the severity (any case) and checks the page bounds.
func ValidateContainerFilter(f *appliance.ContainerFilter) error {
	if f.Severity != "" {
		sev := strings.ToUpper(strings.TrimSpace(f.Severity))
		if NormalizeSeverity(sev) != sev {
			return appliance.Invalid("severity", "enum", "severity must be one of critical, high, medium, low, unknown")
		}
		f.Severity = sev
	}
	if f.Page < 1 || f.PerPage < 1 || f.PerPage > MaxContainersPerPage {
		return appliance.Invalid("per_page", "range", "per_page must be 1 to %d", MaxContainersPerPage)
	}
	return nil
}

// List returns one page of the organization's images, most recently scanned first.
func (c *Containers) List(ctx context.Context, f appliance.ContainerFilter) ([]appliance.ContainerImage, int, error) {
	if err := ValidateContainerFilter(&f); err != nil {
		return nil, 0, err
	}
	return c.store.ListContainerImages(ctx, f)
}

// Each streams the images the filter selects, pages ignored (exports).
func (c *Containers) Each(ctx context.Context, f appliance.ContainerFilter, fn func(appliance.ContainerImage) error) error {
	if err := ValidateContainerFilter(&f); err != nil {
		return err
	}
	return c.store.EachContainerImage(ctx, f, fn)
}

// Get finds an image record by its integer id or by a sha256: digest (image ID or
// repository digest; the most recently scanned record when several hosts run it).
func (c *Containers) Get(ctx context.Context, orgID int64, ref string) (ContainerDetail, error) {
	img, err := c.lookup(ctx, orgID, ref)
	if errors.Is(err, appliance.ErrNotFound) {
		return ContainerDetail{}, appliance.NotFound("container image %q does not exist", ref)
	}
	if err != nil {
		return ContainerDetail{}, err
	}
	findings, err := c.store.ContainerFindings(ctx, orgID, img.ID)
	if err != nil {
		return ContainerDetail{}, err
	}
	for i := range findings {
		findings[i].Risk = risk.Container(findings[i])
	}
	return ContainerDetail{ContainerImage: img, Findings: findings}, nil
}

func (c *Containers) lookup(ctx context.Context, orgID int64, ref string) (appliance.ContainerImage, error) {
	if strings.HasPrefix(ref, "sha256:") {
		return c.store.ContainerImageByDigest(ctx, orgID, ref)
	}
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil || id <= 0 {
		return appliance.ContainerImage{}, appliance.ErrNotFound
	}
	return c.store.ContainerImageByID(ctx, orgID, id)
}

package containers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
)

// Containers ingests container-image scans and serves the scanned images.
// Store is what the container service reads, and the transaction it writes in (the
// assignments a rescan closes included).
type Store interface {
	appliance.ContainerReader
	remediation.VanishingStore
}

type Containers struct {
	store Store
	log   *slog.Logger
	now   func() time.Time
	// afterScan runs after a scan is stored (triage applies its rules to the new findings).
	afterScan func(context.Context)
}

// OnFindingsChanged registers fn to run after every stored scan.
func (c *Containers) OnFindingsChanged(fn func(context.Context)) { c.afterScan = fn }

// NewContainers builds the service; log may be nil.
func NewContainers(store Store, log *slog.Logger) *Containers {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Containers{store: store, log: log, now: time.Now}
}

// ImageScan is one image of a submission: its reference, image ID and the raw scanner report.
type ImageScan struct {
	Reference   string
	ImageID     string
	ScanResults []byte // Trivy or Grype JSON
}

// SubmitResult counts what a submission stored.
type SubmitResult struct {
	Hostname        string
	Images          int
	Vulnerabilities int
}

// Container list bounds.
const (
	DefaultContainersPerPage = 25
	MaxContainersPerPage     = 100
	maxHostname              = 255
)

// parsedImage is one image after validation, ready to store.
type parsedImage struct {
	record   appliance.ContainerImage
	findings []appliance.ContainerFinding
}

// Submit validates every image first (any invalid one refuses the whole submission), then
// stores all of them in one transaction: each record's findings are replaced and its
// last_scanned set. The same image on another host is another record.
func (c *Containers) Submit(ctx context.Context, orgID int64, hostname string, images []ImageScan) (SubmitResult, error) {
	hostname = appliance.NormalizeHostname(hostname)
	if hostname == "" || len(hostname) > maxHostname {
		return SubmitResult{}, appliance.Invalid("hostname", "required", "hostname must have 1 to %d characters", maxHostname)
	}
	if err := ValidateImageCount(len(images)); err != nil {
		return SubmitResult{}, err
	}
	now := c.now().UTC()
	parsed, err := parseImages(orgID, hostname, images, now)
	if err != nil {
		return SubmitResult{}, err
	}
	res := SubmitResult{Hostname: hostname, Images: len(parsed)}
	err = c.store.InTx(ctx, func(tx appliance.Tx) error {
		if _, err := appliance.OwnedAsset(ctx, tx, orgID, hostname); err != nil && !errors.Is(err, appliance.ErrNotFound) {
			return err
		}
		for _, p := range parsed {
			id, err := tx.SaveContainerImage(ctx, p.record)
			if err != nil {
				return fmt.Errorf("save image %s: %w", p.record.Name, err)
			}
			if err := tx.ReplaceContainerFindings(ctx, id, p.findings); err != nil {
				return fmt.Errorf("store findings of image %s: %w", p.record.Name, err)
			}
			res.Vulnerabilities += len(p.findings)
		}
		return nil
	})
	if err != nil {
		return SubmitResult{}, err
	}
	if c.afterScan != nil {
		c.afterScan(context.WithoutCancel(ctx))
	}
	c.resolveVanished(ctx)
	return res, nil
}

// resolveVanished closes assignments whose CVE a rescan removed; a failure only delays that.
// The scan is committed, so a client that disconnects does not cancel this.
func (c *Containers) resolveVanished(ctx context.Context) {
	if _, err := remediation.ResolveVanished(context.WithoutCancel(ctx), c.store, c.now); err != nil {
		c.log.Warn("auto-resolution after a container scan failed", slog.Any("error", err))
	}
}

// parseImages validates and converts every image; a repeated record keeps the last report.
func parseImages(orgID int64, hostname string, images []ImageScan, now time.Time) ([]parsedImage, error) {
	out := make([]parsedImage, 0, len(images))
	seen := map[[3]string]int{}
	for i, img := range images {
		p, err := parseImage(i, img)
		if err != nil {
			return nil, err
		}
		p.record.OrganizationID, p.record.Hostname, p.record.LastScanned, p.record.CreatedAt = orgID, hostname, now, now
		key := [3]string{p.record.Name, p.record.Tag, p.record.ImageID}
		if j, dup := seen[key]; dup {
			out[j] = p
			continue
		}
		seen[key] = len(out)
		out = append(out, p)
	}
	return out, nil
}

func parseImage(i int, img ImageScan) (parsedImage, error) {
	name, tag, digest, err := ParseImageRef(strings.TrimSpace(img.Reference))
	if err != nil {
		return parsedImage{}, indexed(i, err)
	}
	if err := ValidateImageID(i, img.ImageID); err != nil {
		return parsedImage{}, err
	}
	if len(img.ScanResults) == 0 {
		return parsedImage{}, appliance.Invalid(fmt.Sprintf("images[%d].scan_results", i), "required", "scan_results is required")
	}
	scan, err := ParseScan(img.ScanResults)
	if err != nil {
		return parsedImage{}, indexed(i, err)
	}
	rec := appliance.ContainerImage{Name: name, Tag: tag, ImageID: img.ImageID, Digest: digest, Scanner: scan.Format}
	return parsedImage{record: rec, findings: toFindings(scan.Vulnerabilities)}, nil
}

// indexed prefixes the field of a ValidationError with the image's position.
func indexed(i int, err error) error {
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return appliance.Invalid(fmt.Sprintf("images[%d].%s", i, ve.Field), ve.Constraint, "%s", ve.Message)
}

func toFindings(vs []Vulnerability) []appliance.ContainerFinding {
	out := make([]appliance.ContainerFinding, len(vs))
	for i, v := range vs {
		out[i] = appliance.ContainerFinding{CVEID: v.CVEID, PackageName: v.PackageName, InstalledVersion: v.InstalledVersion,
			FixedVersion: v.FixedVersion, Severity: v.Severity, Title: v.Title, Description: v.Description,
			Target: v.Target, Type: v.Type}
	}
	return out
}

// SetClock makes the service read the time from now instead of the wall clock (tests and
// replays).
func (x *Containers) SetClock(now func() time.Time) { x.now = now }

package agentrun

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// RunningImage is the image of a running container, as the engine names it.
type RunningImage struct {
	Name string // reference the container was started from (nginx:1.25)
	ID   string // sha256:…
}

// ScannedImage is an image with the scanner's JSON report (Trivy or Grype).
type ScannedImage struct {
	RunningImage
	Report []byte
}

// ContainerEngine lists the images of running containers (Docker or Podman).
type ContainerEngine interface {
	RunningImages(ctx context.Context) ([]RunningImage, error)
}

// Scanner is trivy or grype, found on PATH.
type Scanner struct {
	Kind string // "trivy" or "grype"
	Path string
}

// FindScanner looks for trivy, then grype, on PATH.
func FindScanner() (Scanner, bool) {
	for _, kind := range []string{"trivy", "grype"} {
		if p, err := exec.LookPath(kind); err == nil {
			return Scanner{Kind: kind, Path: p}, true
		}
	}
	return Scanner{}, false
}

// Scan runs the scanner on one image and returns its JSON report.
func (s Scanner) Scan(ctx context.Context, ref string) ([]byte, error) {
	var args []string
	switch s.Kind {
	case "trivy":
		args = []string{"image", "--quiet", "--format", "json", ref}
	default:
		args = []string{ref, "--quiet", "--output", "json"}
	}
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, s.Path, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", filepath.Base(s.Path), ref, err, bytes.TrimSpace(errb.Bytes()))
	}
	return out.Bytes(), nil
}

// Containers scans the images of running containers, once per distinct image, and posts
// them in one request for the host.
type Containers struct {
	Engine  ContainerEngine
	Scanner Scanner
}

func (r *Runner) scanContainers(ctx context.Context, hostname string) (int, error) {
	c := r.opts.Containers
	imgs, err := c.Engine.RunningImages(ctx)
	if err != nil {
		return 0, fmt.Errorf("list running containers: %w", err)
	}
	seen := map[string]bool{}
	var scanned []ScannedImage
	for _, img := range imgs {
		if seen[img.ID] {
			continue
		}
		seen[img.ID] = true
		rep, err := c.Scanner.Scan(ctx, img.Name)
		if err != nil {
			r.opts.Log.Warn("container image not scanned", "image", img.Name, "error", err)
			continue
		}
		scanned = append(scanned, ScannedImage{RunningImage: img, Report: rep})
	}
	if len(scanned) == 0 {
		return 0, nil
	}
	return len(scanned), r.cli.ContainerScan(ctx, hostname, scanned)
}

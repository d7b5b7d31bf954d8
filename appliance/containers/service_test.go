package containers_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// Every real Trivy and Grype report is stored with exactly the findings the parser keeps,
// under the format it was written in.
func TestSubmitRealReportsOfBothScanners(t *testing.T) {
	w := storetest.NewWorld(t)
	ctx := context.Background()
	files := append(storetest.JSONFiles(t, storetest.TrivyDir), storetest.JSONFiles(t, storetest.GrypeDir)...)
	for i, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw := storetest.ReadFile(t, file)
			want, err := containers.ParseScan(raw)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			id := fmt.Sprintf("sha256:%064x", i+1)
			res := w.Submit(t, w.Acme, "host-real", containers.ImageScan{Reference: fmt.Sprintf("app%d:1.0", i), ImageID: id, ScanResults: raw})
			if res.Images != 1 || res.Vulnerabilities != len(want.Vulnerabilities) {
				t.Fatalf("result %+v, want 1 image and %d findings", res, len(want.Vulnerabilities))
			}
			d, err := w.Containers.Get(ctx, w.Acme, id)
			if err != nil {
				t.Fatal(err)
			}
			if d.Scanner != want.Format || len(d.Findings) != len(want.Vulnerabilities) || d.Counts.Critical+d.Counts.High+
				d.Counts.Medium+d.Counts.Low+d.Counts.Unknown != len(want.Vulnerabilities) {
				t.Errorf("stored %s with %d findings, counts %+v; want %s with %d", d.Scanner, len(d.Findings), d.Counts,
					want.Format, len(want.Vulnerabilities))
			}
		})
	}
}

func TestImageReferenceForms(t *testing.T) {
	w := storetest.NewWorld(t)
	ctx := context.Background()
	repoDigest := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		ref, name, tag string
	}{
		{"nginx:1.21", "nginx", "1.21"},
		{"nginx", "nginx", "latest"},
		{"registry.example.com:5000/team/app:2.3", "registry.example.com:5000/team/app", "2.3"},
		{"registry.example.com:5000/team/app", "registry.example.com:5000/team/app", "latest"},
		{"repo/app@" + repoDigest, "repo/app", ""},
		{"host.io/app:tag@" + repoDigest, "host.io/app", "tag"},
	}
	for i, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			id := fmt.Sprintf("sha256:%064x", i+100)
			w.Submit(t, w.Acme, "refs", containers.ImageScan{Reference: tt.ref, ImageID: id, ScanResults: storetest.TrivyReport(t)})
			d, err := w.Containers.Get(ctx, w.Acme, id)
			if err != nil {
				t.Fatal(err)
			}
			if d.Name != tt.name || d.Tag != tt.tag {
				t.Errorf("stored %q tag %q, want %q tag %q", d.Name, d.Tag, tt.name, tt.tag)
			}
		})
	}
	// The repository digest finds the record too (the newest of the two that carry it).
	if d, err := w.Containers.Get(ctx, w.Acme, repoDigest); err != nil || d.Name != "host.io/app" {
		t.Errorf("by repository digest: %+v, %v", d.ContainerImage, err)
	}
}

func TestRescanReplacesFindingsPerHost(t *testing.T) {
	w := storetest.NewWorld(t)
	ctx := context.Background()
	first := containers.ImageScan{Reference: "nginx:1.21", ImageID: storetest.DigestA,
		ScanResults: storetest.TrivyReport(t, [2]string{"CVE-1", "HIGH"}, [2]string{"CVE-2", "LOW"})}
	w.Submit(t, w.Acme, "host-1", first)
	w.Submit(t, w.Acme, "host-2", first)
	*w.Clock = w.Clock.Add(time.Hour)
	rescan := first
	rescan.ScanResults = storetest.TrivyReport(t, [2]string{"CVE-3", "CRITICAL"})
	w.Submit(t, w.Acme, "host-1", rescan)

	items, total, err := w.Containers.List(ctx, appliance.ContainerFilter{OrganizationID: w.Acme, Page: 1, PerPage: 25})
	if err != nil || total != 2 {
		t.Fatalf("list: %d records, %v; want 2", total, err)
	}
	byHost := map[string]appliance.ContainerImage{}
	for _, img := range items {
		byHost[img.Hostname] = img
	}
	if c := byHost["host-1"].Counts; c != (appliance.SeverityCounts{Critical: 1}) || !byHost["host-1"].LastScanned.Equal(*w.Clock) {
		t.Errorf("host-1 after rescan: %+v", byHost["host-1"])
	}
	if c := byHost["host-2"].Counts; c != (appliance.SeverityCounts{High: 1, Low: 1}) || !byHost["host-2"].LastScanned.Equal(storetest.Today) {
		t.Errorf("host-2 untouched: %+v", byHost["host-2"])
	}
	if items[0].Hostname != "host-1" {
		t.Errorf("first item %s, want the latest scanned host-1", items[0].Hostname)
	}
}

// One invalid image refuses the whole submission and stores nothing.
func TestSubmitRefusesInvalidImagesAtomically(t *testing.T) {
	w := storetest.NewWorld(t)
	ctx := context.Background()
	good := containers.ImageScan{Reference: "nginx:1.21", ImageID: storetest.DigestA, ScanResults: storetest.TrivyReport(t, [2]string{"CVE-1", "HIGH"})}
	tooMany := make([]containers.ImageScan, containers.MaxImagesPerRequest+1)
	for i := range tooMany {
		tooMany[i] = good
	}
	tests := []struct {
		name   string
		host   string
		images []containers.ImageScan
		field  string
	}{
		{"bad image id", "h", []containers.ImageScan{good, {Reference: "x:1", ImageID: "sha256:00", ScanResults: storetest.TrivyReport(t)}}, "images[1].image_id"},
		{"bad reference", "h", []containers.ImageScan{good, {Reference: "UPPER/Case:1", ImageID: storetest.DigestB, ScanResults: storetest.TrivyReport(t)}}, "images[1].image_name"},
		{"malformed report", "h", []containers.ImageScan{good, {Reference: "x:1", ImageID: storetest.DigestB, ScanResults: []byte(`{"Results":"nope"}`)}}, "images[1].scan_results"},
		{"missing report", "h", []containers.ImageScan{{Reference: "x:1", ImageID: storetest.DigestB}}, "images[0].scan_results"},
		{"no hostname", " ", []containers.ImageScan{good}, "hostname"},
		{"too many images", "h", tooMany, "images"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.Containers.Submit(ctx, w.Acme, tt.host, tt.images)
			storetest.WantValidation(t, err, tt.field)
		})
	}
	if _, total, err := w.Containers.List(ctx, appliance.ContainerFilter{OrganizationID: w.Acme, Page: 1, PerPage: 25}); err != nil || total != 0 {
		t.Errorf("%d records stored after refused submissions (%v), want 0", total, err)
	}
}

func TestListFiltersAndIsolation(t *testing.T) {
	w := storetest.NewWorld(t)
	ctx := context.Background()
	w.Submit(t, w.Acme, "h1",
		containers.ImageScan{Reference: "nginx:1.21", ImageID: storetest.DigestA, ScanResults: storetest.TrivyReport(t, [2]string{"CVE-1", "CRITICAL"})},
		containers.ImageScan{Reference: "registry.example.com:5000/team/app:2.3", ImageID: storetest.DigestB, ScanResults: storetest.TrivyReport(t, [2]string{"CVE-2", "low"})})
	w.Submit(t, w.Acme, "h2", containers.ImageScan{Reference: "redis", ImageID: storetest.DigestB, ScanResults: storetest.TrivyReport(t, [2]string{"CVE-3", "whatever"})})
	tests := []struct {
		name  string
		f     appliance.ContainerFilter
		names []string
	}{
		{"severity critical", appliance.ContainerFilter{Severity: "critical"}, []string{"nginx"}},
		{"severity unknown", appliance.ContainerFilter{Severity: "UNKNOWN"}, []string{"redis"}},
		{"search name", appliance.ContainerFilter{Search: "team/app"}, []string{"registry.example.com:5000/team/app"}},
		{"search tag", appliance.ContainerFilter{Search: "1.21"}, []string{"nginx"}},
		{"hostname", appliance.ContainerFilter{Hostname: "h2"}, []string{"redis"}},
		{"page 2 of 1 per page", appliance.ContainerFilter{Page: 2, PerPage: 1}, []string{"registry.example.com:5000/team/app"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.f
			f.OrganizationID = w.Acme
			if f.Page == 0 {
				f.Page, f.PerPage = 1, 25
			}
			items, _, err := w.Containers.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, img := range items {
				names = append(names, img.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.names) {
				t.Errorf("names %v, want %v", names, tt.names)
			}
		})
	}
	_, _, err := w.Containers.List(ctx, appliance.ContainerFilter{OrganizationID: w.Acme, Severity: "severe", Page: 1, PerPage: 25})
	storetest.WantValidation(t, err, "severity")
	if _, total, _ := w.Containers.List(ctx, appliance.ContainerFilter{OrganizationID: w.Globex, Page: 1, PerPage: 25}); total != 0 {
		t.Errorf("globex sees %d of acme's records", total)
	}
	if _, err := w.Containers.Get(ctx, w.Globex, storetest.DigestA); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("globex reads acme's image: %v", err)
	}
}

// Findings carry the CVE data's score and KEV flag where the CVE is known.
func TestFindingsLinkToCVEData(t *testing.T) {
	w := storetest.NewWorld(t)
	w.SeedCVE(t, "CVE-2021-3711", "critical", 9.8, storetest.Day("2025-04-01"))
	w.Submit(t, w.Acme, "h", containers.ImageScan{Reference: "nginx", ImageID: storetest.DigestA,
		ScanResults: storetest.TrivyReport(t, [2]string{"CVE-2021-3711", "CRITICAL"}, [2]string{"GHSA-xxxx", "LOW"})})
	d, err := w.Containers.Get(context.Background(), w.Acme, storetest.DigestA)
	if err != nil || len(d.Findings) != 2 {
		t.Fatalf("detail %+v, %v", d, err)
	}
	known, unknown := d.Findings[0], d.Findings[1]
	if !known.HasScore || known.Score != 9.8 || !known.KEV || known.Severity != "CRITICAL" {
		t.Errorf("known CVE finding %+v, want score 9.8 and KEV", known)
	}
	if unknown.HasScore || unknown.KEV {
		t.Errorf("unknown ID finding %+v, want no score and no KEV", unknown)
	}
}

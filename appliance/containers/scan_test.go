package containers

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

func TestParseScanRealReports(t *testing.T) {
	tests := []struct {
		file        string
		format      string
		raw, unique int // findings in the file; after de-duplication
		counts      Counts
	}{
		{"backline-e2e-juice-shop_repo.json", FormatTrivy, 79, 77, Counts{9, 40, 22, 6, 0}},
		{"defectdojo_issue_9333.json", FormatTrivy, 13, 13, Counts{0, 0, 1, 12, 0}},
		{"defectdojo_scheme_2_many_vulns.json", FormatTrivy, 5, 5, Counts{1, 1, 3, 0, 0}},
		{"pab1it0-prometheus-mcp-server_image.json", FormatTrivy, 11, 11, Counts{3, 8, 0, 0, 0}},
		{"trivy-golden_almalinux-8.json", FormatTrivy, 1, 1, Counts{0, 0, 1, 0, 0}},
		{"trivy-golden_alpine-310.json", FormatTrivy, 4, 4, Counts{0, 0, 4, 0, 0}},
		{"trivy-golden_alpine-distroless.json", FormatTrivy, 1, 1, Counts{0, 0, 1, 0, 0}},
		{"trivy-golden_amazon-2.json", FormatTrivy, 2, 2, Counts{0, 0, 1, 1, 0}},
		{"trivy-golden_centos-7.json", FormatTrivy, 3, 3, Counts{0, 0, 1, 2, 0}},
		{"trivy-golden_debian-buster.json", FormatTrivy, 2, 2, Counts{1, 0, 0, 1, 0}},
		{"trivy-golden_distroless-base.json", FormatTrivy, 4, 4, Counts{0, 0, 2, 2, 0}},
		{"trivy-golden_gomod.json", FormatTrivy, 5, 3, Counts{0, 0, 1, 0, 2}},
		{"trivy-golden_mariner-1.0.json", FormatTrivy, 2, 2, Counts{0, 1, 0, 1, 0}},
		{"trivy-golden_npm.json", FormatTrivy, 1, 1, Counts{0, 0, 1, 0, 0}},
		{"trivy-golden_oraclelinux-8.json", FormatTrivy, 2, 2, Counts{0, 0, 2, 0, 0}},
		{"trivy-golden_pip.json", FormatTrivy, 2, 2, Counts{0, 1, 1, 0, 0}},
		{"trivy-golden_spring4shell-jre8.json", FormatTrivy, 1, 1, Counts{0, 0, 0, 1, 0}},
		{"trivy-golden_ubi-7.json", FormatTrivy, 1, 1, Counts{0, 0, 0, 1, 0}},
		{"trivy-golden_ubuntu-1804.json", FormatTrivy, 5, 5, Counts{0, 0, 4, 1, 0}},
		{"grype/defectdojo_grype_check_all_fields.json", FormatGrype, 6, 5, Counts{2, 2, 0, 1, 0}},
		{"grype/defectdojo_grype_many_vulns3.json", FormatGrype, 327, 327, Counts{5, 24, 155, 133, 10}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[filepath.Join(trivyDir, tt.file)] = true
		t.Run(tt.file, func(t *testing.T) {
			scan, err := ParseScan(readFile(t, filepath.Join(trivyDir, tt.file)))
			if err != nil {
				t.Fatalf("ParseScan: %v", err)
			}
			if scan.Format != tt.format || len(scan.Vulnerabilities) != tt.unique {
				t.Fatalf("got %s with %d findings, want %s with %d (of %d raw)",
					scan.Format, len(scan.Vulnerabilities), tt.format, tt.unique, tt.raw)
			}
			if got := CountBySeverity(scan.Vulnerabilities); got != tt.counts {
				t.Fatalf("counts = %+v, want %+v", got, tt.counts)
			}
		})
	}
	for _, f := range append(jsonFiles(t, trivyDir), jsonFiles(t, grypeDir)...) {
		if !covered[f] {
			t.Errorf("report %s has no expected counts in this table", f)
		}
	}
}

// conformanceImage is the shape of one image in POST /api/agent/container-scan.
type conformanceImage struct {
	ImageName   string          `json:"image_name"`
	ImageID     string          `json:"image_id"`
	ScanResults json.RawMessage `json:"scan_results"`
}

func TestParseScanConformanceFixture(t *testing.T) {
	var body struct {
		Images []conformanceImage `json:"images"`
	}
	if err := json.Unmarshal(readFile(t, conformanceScan), &body); err != nil {
		t.Fatalf("decode fixture: %v", err)
	}
	if err := ValidateImageCount(len(body.Images)); err != nil || len(body.Images) != 2 {
		t.Fatalf("images = %d, ValidateImageCount: %v", len(body.Images), err)
	}
	want := map[string]Counts{
		"nginx":                              {Critical: 1, High: 2, Medium: 1, Low: 1},
		"registry.example.com:5000/team/app": {High: 1, Low: 2},
	}
	total := 0
	for i, img := range body.Images {
		name, _, _, err := ParseImageRef(img.ImageName)
		if err != nil || ValidateImageID(i, img.ImageID) != nil {
			t.Fatalf("image %d: ref %q err %v, id %q", i, img.ImageName, err, img.ImageID)
		}
		scan, err := ParseScan(img.ScanResults)
		if err != nil {
			t.Fatalf("image %s: %v", name, err)
		}
		if got := CountBySeverity(scan.Vulnerabilities); got != want[name] {
			t.Errorf("image %s: counts %+v, want %+v", name, got, want[name])
		}
		total += len(scan.Vulnerabilities)
	}
	if total != 8 {
		t.Errorf("total findings = %d, want 8", total)
	}
}

func TestParseScanTrivyFields(t *testing.T) {
	scan, err := ParseScan(readFile(t, filepath.Join(trivyDir, "trivy-golden_gomod.json")))
	if err != nil {
		t.Fatal(err)
	}
	want := Vulnerability{
		CVEID: "GMS-2022-20", PackageName: "github.com/docker/distribution",
		InstalledVersion: "v2.7.1+incompatible", FixedVersion: "v2.8.0", Severity: SeverityUnknown,
		Title: "OCI Manifest Type Confusion Issue", Target: "go.mod", Type: "gomod",
	}
	got := scan.Vulnerabilities[0]
	got.Description = ""
	if got != want {
		t.Fatalf("first finding\n got %+v\nwant %+v", got, want)
	}
}

func TestParseScanGrypeFields(t *testing.T) {
	scan, err := ParseScan(readFile(t, filepath.Join(grypeDir, "defectdojo_grype_check_all_fields.json")))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Vulnerability{}
	for _, v := range scan.Vulnerabilities {
		byID[v.CVEID+" "+v.PackageName] = v
	}
	tests := []struct {
		key, severity, fixed, typ, target string
		hasDescription                    bool
	}{
		{"CVE-2004-0971 libgssapi-krb5-2", SeverityLow, "", "deb", "/var/lib/dpkg/status", true},
		{"CVE-2021-32626 redis", SeverityHigh, "fix_1, fix_2", "python", "", true},
		{"GHSA-v6rh-hp5x-86rv Django", SeverityHigh, "3.2.10", "python", "", true},
		{"CVE-2021-33574 libc6", SeverityCritical, "", "deb", "/var/lib/dpkg/status", true},
	}
	for _, tt := range tests {
		v, ok := byID[tt.key]
		if !ok {
			t.Fatalf("%s not found", tt.key)
		}
		if v.Severity != tt.severity || v.FixedVersion != tt.fixed || v.Type != tt.typ ||
			(tt.target != "" && v.Target != tt.target) || (v.Description != "") != tt.hasDescription {
			t.Errorf("%s = %+v", tt.key, v)
		}
	}
}

func TestParseScanGrypeFixedInVersion(t *testing.T) {
	scan, err := ParseScan(readFile(t, filepath.Join(grypeDir, "defectdojo_grype_many_vulns3.json")))
	if err != nil {
		t.Fatal(err)
	}
	withFix := 0
	for _, v := range scan.Vulnerabilities {
		if v.FixedVersion != "" {
			withFix++
		}
	}
	if withFix != 28 {
		t.Fatalf("findings with fixedInVersion = %d, want 28", withFix)
	}
}

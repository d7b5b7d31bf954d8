package containers

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseScanRejects(t *testing.T) {
	long := strings.Repeat("p", MaxIdentifierLength+1)
	tests := []struct {
		name, body, constraint string
	}{
		{"empty body", ``, "json"},
		{"truncated JSON", `{"Results": [`, "json"},
		{"top-level array", `[{"Target": "x"}]`, "format"},
		{"top-level string", `"trivy"`, "format"},
		{"null document", `null`, "format"},
		{"empty object", `{}`, "format"},
		{"unknown keys", `{"runs": []}`, "format"},
		{"Results is an object", `{"SchemaVersion": 2, "Results": {}}`, "format"},
		{"Results is a string", `{"Results": "none"}`, "format"},
		{"schema version 1", `{"SchemaVersion": 1, "Results": []}`, "format"},
		{"schema version as string", `{"SchemaVersion": "2", "Results": []}`, "format"},
		{"both formats", `{"Results": [], "matches": []}`, "format"},
		{"matches is an object", `{"matches": {}}`, "format"},
		{"Vulnerabilities not an array", `{"Results": [{"Target": "t", "Vulnerabilities": {}}]}`, "format"},
		{"severity is a number", `{"Results": [{"Vulnerabilities": [{"VulnerabilityID": "CVE-1", "PkgName": "a", "Severity": 3}]}]}`, "format"},
		{"missing vulnerability ID", `{"Results": [{"Vulnerabilities": [{"PkgName": "a"}]}]}`, "required"},
		{"blank package", `{"Results": [{"Vulnerabilities": [{"VulnerabilityID": "CVE-1", "PkgName": "  "}]}]}`, "required"},
		{"package too long", `{"Results": [{"Vulnerabilities": [{"VulnerabilityID": "CVE-1", "PkgName": "` + long + `"}]}]}`, "max_length"},
		{"grype match without id", `{"matches": [{"artifact": {"name": "bash", "version": "5"}}]}`, "required"},
		{"grype artifact is a string", `{"matches": [{"vulnerability": {"id": "CVE-1"}, "artifact": "bash"}]}`, "format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan, err := ParseScan([]byte(tt.body))
			requireValidation(t, err, "scan_results", tt.constraint)
			if scan.Vulnerabilities != nil || scan.Format != "" {
				t.Fatalf("a refused report returned %+v", scan)
			}
		})
	}
}

func TestParseScanAcceptsQuietReports(t *testing.T) {
	tests := []struct {
		name, body, format string
	}{
		{"clean image without Results", `{"SchemaVersion": 2, "ArtifactName": "alpine:3.19"}`, FormatTrivy},
		{"Results null", `{"SchemaVersion": 2, "Results": null}`, FormatTrivy},
		{"Results empty, spaced", `{"Results" :   [ ] }`, FormatTrivy},
		{"results without vulnerabilities", `{"Results": [{"Target": "a", "Class": "lang-pkgs"}, {"Target": "b", "Vulnerabilities": null}]}`, FormatTrivy},
		{"grype without matches", `{"matches": []}`, FormatGrype},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan, err := ParseScan([]byte(tt.body))
			if err != nil {
				t.Fatalf("ParseScan: %v", err)
			}
			if scan.Format != tt.format || len(scan.Vulnerabilities) != 0 {
				t.Fatalf("got %+v, want an empty %s scan", scan, tt.format)
			}
		})
	}
}

func TestParseScanBoundsProse(t *testing.T) {
	// "é" is two bytes: an odd limit would split it without the UTF-8 care in clip.
	title := strings.Repeat("é", MaxTitleLength)
	description := "x" + strings.Repeat("é", MaxDescriptionLength)
	body := trivyReport(trivyEntry("CVE-2024-1", "pkg", "1.0", "medium", title, description))
	scan, err := ParseScan(body)
	if err != nil {
		t.Fatal(err)
	}
	v := scan.Vulnerabilities[0]
	if len(v.Title) > MaxTitleLength || len(v.Description) > MaxDescriptionLength || len(v.Description) < MaxDescriptionLength-1 {
		t.Fatalf("title %d bytes, description %d bytes", len(v.Title), len(v.Description))
	}
	if !utf8.ValidString(v.Title) || !utf8.ValidString(v.Description) || v.Severity != SeverityMedium {
		t.Fatalf("bad normalization: severity %q, valid UTF-8 %v/%v", v.Severity,
			utf8.ValidString(v.Title), utf8.ValidString(v.Description))
	}
}

func TestParseScanDeduplicatesKeepingMostInformative(t *testing.T) {
	body := trivyReport(
		trivyEntry("CVE-1", "openssl", "1.1", "", "", ""),
		trivyEntry("CVE-2", "openssl", "1.1", "LOW", "other", ""),
		trivyEntry("CVE-1", "openssl", "1.1", "HIGH", "title", "long description"),
		trivyEntry("CVE-1", "openssl", "1.1", "HIGH", "title", "short"),
		trivyEntry("CVE-1", "openssl", "1.2", "HIGH", "", ""),
	)
	scan, err := ParseScan(body)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, v := range scan.Vulnerabilities {
		got = append(got, fmt.Sprintf("%s/%s/%s/%s", v.CVEID, v.InstalledVersion, v.Severity, v.Description))
	}
	want := "CVE-1/1.1/HIGH/long description,CVE-2/1.1/LOW/,CVE-1/1.2/HIGH/"
	if strings.Join(got, ",") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}

func TestParseScanLimit(t *testing.T) {
	tests := []struct {
		name              string
		entries, distinct int
		wantErr           bool
	}{
		{"at the limit", MaxVulnerabilitiesPerImage, MaxVulnerabilitiesPerImage, false},
		{"one beyond", MaxVulnerabilitiesPerImage + 1, MaxVulnerabilitiesPerImage + 1, true},
		{"duplicates do not count", MaxVulnerabilitiesPerImage + 1, 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := make([]map[string]string, tt.entries)
			for i := range entries {
				entries[i] = trivyEntry(fmt.Sprintf("CVE-2024-%d", i%tt.distinct), "p", "1", "LOW", "", "")
			}
			scan, err := ParseScan(trivyReport(entries...))
			if tt.wantErr {
				requireValidation(t, err, "scan_results", "max_items")
				return
			}
			if err != nil || len(scan.Vulnerabilities) != tt.distinct {
				t.Fatalf("err %v, %d findings, want %d", err, len(scan.Vulnerabilities), tt.distinct)
			}
		})
	}
}

func TestValidateImageCount(t *testing.T) {
	tests := []struct {
		n          int
		constraint string // "" means accepted
	}{
		{0, ""}, {1, ""}, {MaxImagesPerRequest, ""}, {MaxImagesPerRequest + 1, "max_items"},
	}
	for _, tt := range tests {
		err := ValidateImageCount(tt.n)
		if tt.constraint == "" {
			if err != nil {
				t.Errorf("ValidateImageCount(%d) = %v", tt.n, err)
			}
			continue
		}
		requireValidation(t, err, "images", tt.constraint)
	}
}

func trivyEntry(id, pkg, version, severity, title, description string) map[string]string {
	return map[string]string{
		"VulnerabilityID": id, "PkgName": pkg, "InstalledVersion": version,
		"Severity": severity, "Title": title, "Description": description,
	}
}

func trivyReport(entries ...map[string]string) []byte {
	report := map[string]any{
		"SchemaVersion": 2,
		"Results":       []any{map[string]any{"Target": "t", "Type": "debian", "Vulnerabilities": entries}},
	}
	raw, err := json.Marshal(report)
	if err != nil {
		panic(err)
	}
	return raw
}

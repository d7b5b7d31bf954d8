package containers

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// maxSeedSize keeps the two reports of 0.8 and 1.5 MB out of the fuzz corpus: mutating and
// minimizing inputs that large makes the fuzzer crawl, and TestParseScanRealReports parses
// them anyway.
const maxSeedSize = 64 << 10

// FuzzTrivyReport: any input yields a bounded, de-duplicated scan or a ValidationError.
func FuzzTrivyReport(f *testing.F) {
	for _, file := range append(jsonFiles(f, trivyDir), jsonFiles(f, grypeDir)...) {
		if raw := readFile(f, file); len(raw) <= maxSeedSize {
			f.Add(raw)
		}
	}
	var body struct {
		Images []conformanceImage `json:"images"`
	}
	if err := json.Unmarshal(readFile(f, conformanceScan), &body); err != nil {
		f.Fatal(err)
	}
	for _, img := range body.Images {
		f.Add([]byte(img.ScanResults))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		scan, err := ParseScan(raw)
		if err != nil {
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error is %T, want *appliance.ValidationError: %v", err, err)
			}
			return
		}
		checkScanInvariants(t, scan)
	})
}

func checkScanInvariants(t *testing.T, scan Scan) {
	t.Helper()
	if scan.Format != FormatTrivy && scan.Format != FormatGrype {
		t.Fatalf("format %q", scan.Format)
	}
	if len(scan.Vulnerabilities) > MaxVulnerabilitiesPerImage {
		t.Fatalf("%d findings beyond the limit", len(scan.Vulnerabilities))
	}
	seen := map[findingKey]bool{}
	for _, v := range scan.Vulnerabilities {
		key := findingKey{v.CVEID, v.PackageName, v.InstalledVersion}
		if seen[key] || v.CVEID == "" || v.PackageName == "" {
			t.Fatalf("duplicate or incomplete finding %+v", v)
		}
		seen[key] = true
		if NormalizeSeverity(v.Severity) != v.Severity || len(v.CVEID) > MaxIdentifierLength ||
			len(v.Title) > MaxTitleLength || len(v.Description) > MaxDescriptionLength ||
			!utf8.ValidString(v.Title) || !utf8.ValidString(v.Description) {
			t.Fatalf("unnormalized finding %+v", v)
		}
	}
	if CountBySeverity(scan.Vulnerabilities).Total() != len(scan.Vulnerabilities) {
		t.Fatal("counts do not add up")
	}
}

// FuzzImageRef: a parsed reference re-assembles to one that parses the same.
func FuzzImageRef(f *testing.F) {
	for _, seed := range []string{
		"nginx", "nginx:1.21", "registry.example.com:5000/team/app:2.3", "repo/app@" + digest256,
		"host/app:tag@" + digest256, "[::1]:5000/a", "a__b/c-d.e:_1", "nginx:", "@", ":", "a@sha256:",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		name, tag, digest, err := ParseImageRef(ref)
		if err != nil {
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || ve.Field != "image_name" {
				t.Fatalf("error %v (%T), want an image_name ValidationError", err, err)
			}
			return
		}
		if name == "" || (tag == "" && digest == "") {
			t.Fatalf("%q parsed to (%q, %q, %q)", ref, name, tag, digest)
		}
		again := name + prefixed(":", tag) + prefixed("@", digest)
		n2, t2, d2, err := ParseImageRef(again)
		if err != nil || n2 != name || t2 != tag || d2 != digest {
			t.Fatalf("%q -> %q does not round-trip: (%q, %q, %q) %v", ref, again, n2, t2, d2, err)
		}
	})
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

package nvd

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestImportRefusesMalformedInput(t *testing.T) {
	mini := string(readFile(t, filepath.Join(fixturesDir, "nvd-mini.json")))
	tests := []struct {
		name       string
		doc        string
		validation bool   // a *appliance.ValidationError is expected in the chain
		mention    string // the error names this position or reason
		want       Stats  // records handed on before the error
	}{
		{"truncated feed", mini[:len(mini)/2], false, "malformed JSON at byte", Stats{CVEs: 2, TotalResults: 7}},
		{"syntax error in a record", `{"vulnerabilities":[{"cve":{"id":"CVE-2021-0001",}}]}`, false, "vulnerabilities[0] (byte 20)", Stats{}},
		{"not an object", `[1,2]`, false, "document: malformed JSON at byte 1", Stats{}},
		{"trailing data", `{"cve":{"id":"CVE-2021-0001"}} {}`, false, "unexpected trailing", Stats{CVEs: 1}},
		{"empty input", ``, false, "unexpected EOF", Stats{}},
		{"wrong type", `{"vulnerabilities":[{"cve":{"id":7}}]}`, false, "vulnerabilities[0]", Stats{}},
		{"bad cve id", `{"vulnerabilities":[{"cve":{"id":"CVE-21-1"}}]}`, true, "CVE-YYYY-NNNN", Stats{}},
		{"bad timestamp", `{"cve":{"id":"CVE-2021-0001","published":"yesterday"}}`, true, "published", Stats{}},
		{"bad operator", `{"cve":{"id":"CVE-2021-0001","configurations":[{"operator":"XOR","nodes":[]}]}}`, true, "configurations[0].operator", Stats{}},
		{"bad criteria", `{"cve":{"id":"CVE-2021-0001","configurations":[{"nodes":[{"cpeMatch":[{"criteria":"cpe:/a:x:y"}]}]}]}}`, true, "cpeMatch[0].criteria", Stats{}},
		{"unknown document", `{"hello":"world"}`, true, "not an NVD CVE 2.0 feed", Stats{}},
		{"legacy 1.1 feed", `{"CVE_data_format":"MITRE","CVE_Items":[]}`, true, "1.1", Stats{}},
		{"other feed format", `{"format":"NVD_CPE","products":[]}`, true, "NVD_CPE", Stats{}},
		{"mixed records", `{"vulnerabilities":[{"cveID":"CVE-2021-0001","dateAdded":"2021-01-01"},{"cve":{"id":"CVE-2021-0002"}}]}`, true, "mixes", Stats{KEV: 1}},
		{"kev in an nvd feed", `{"format":"NVD_CVE","vulnerabilities":[{"cveID":"CVE-2021-0001","dateAdded":"2021-01-01"}]}`, true, "mixes", Stats{}},
		{"neither record", `{"vulnerabilities":[{"x":1}]}`, true, "neither", Stats{}},
		{"kev bad date", `{"catalogVersion":"1","vulnerabilities":[{"cveID":"CVE-2021-0001","dateAdded":"1/1/2021"}]}`, true, "dateAdded", Stats{}},
		{"kev without date", `{"catalogVersion":"1","vulnerabilities":[{"cveID":"CVE-2021-0001"}]}`, true, "dateAdded", Stats{}},
		{"corrupt gzip", "\x1f\x8bnot gzip at all", true, "gzip", Stats{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stats, err := Import(context.Background(), strings.NewReader(tt.doc), &collector{})
			if err == nil {
				t.Fatal("import succeeded")
			}
			var ve *appliance.ValidationError
			if errors.As(err, &ve) != tt.validation {
				t.Errorf("validation error %v, want %v: %v", ve != nil, tt.validation, err)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("error %q does not mention %q", err, tt.mention)
			}
			if stats != tt.want {
				t.Errorf("stats %+v, want %+v", stats, tt.want)
			}
		})
	}
}

func TestImportStopsOnHandlerError(t *testing.T) {
	refuse := errors.New("store full")
	calls := 0
	h := HandlerFuncs{OnCVE: func(context.Context, CVE) error {
		calls++
		if calls == 2 {
			return refuse
		}
		return nil
	}}
	stats, err := ImportFile(context.Background(), filepath.Join(fixturesDir, "nvd-mini.json"), h)
	if !errors.Is(err, refuse) || !strings.Contains(err.Error(), "CVE-2022-0778") {
		t.Fatalf("error %v, want the handler's error naming CVE-2022-0778", err)
	}
	if calls != 2 || stats.CVEs != 1 {
		t.Errorf("calls %d stats %+v, want 2 calls and 1 accepted record", calls, stats)
	}
}

func TestImportHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h := HandlerFuncs{OnCVE: func(context.Context, CVE) error {
		cancel()
		return nil
	}}
	stats, err := ImportFile(ctx, filepath.Join(dataDir, "nvd", "nvdcve-2.0-recent.json.gz"), h)
	if !errors.Is(err, context.Canceled) || stats.CVEs != 1 {
		t.Fatalf("stats %+v error %v, want 1 record then context.Canceled", stats, err)
	}
}

func TestImportFileNamesMissingFile(t *testing.T) {
	_, err := ImportFile(context.Background(), filepath.Join(dataDir, "nvd", "no-such-feed.json"), &collector{})
	if err == nil || !strings.Contains(err.Error(), "no-such-feed.json") {
		t.Fatalf("error %v, want one naming the file", err)
	}
}

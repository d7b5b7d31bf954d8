package containers

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
)

// report2000 builds a 2,000-finding Trivy report from the real entries of the Juice Shop
// scan, renumbering the IDs so that de-duplication keeps all of them.
func report2000(tb testing.TB) []byte {
	tb.Helper()
	var report struct {
		Results []struct {
			Target          string
			Type            string
			Vulnerabilities []map[string]any
		}
	}
	if err := json.Unmarshal(readFile(tb, filepath.Join(trivyDir, "backline-e2e-juice-shop_repo.json")), &report); err != nil {
		tb.Fatal(err)
	}
	var real []map[string]any
	for _, r := range report.Results {
		real = append(real, r.Vulnerabilities...)
	}
	entries := make([]map[string]any, 2000)
	for i := range entries {
		entry := map[string]any{}
		for k, v := range real[i%len(real)] {
			entry[k] = v
		}
		entry["VulnerabilityID"] = fmt.Sprintf("%s-%d", entry["VulnerabilityID"], i)
		entries[i] = entry
	}
	raw, err := json.Marshal(map[string]any{
		"SchemaVersion": 2,
		"Results":       []any{map[string]any{"Target": "package-lock.json", "Type": "npm", "Vulnerabilities": entries}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

func TestParseTrivy2000(t *testing.T) {
	scan, err := ParseScan(report2000(t))
	if err != nil || len(scan.Vulnerabilities) != 2000 {
		t.Fatalf("err %v, %d findings, want 2000", err, len(scan.Vulnerabilities))
	}
	checkScanInvariants(t, scan)
}

func BenchmarkParseTrivy2000(b *testing.B) {
	raw := report2000(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseScan(raw); err != nil {
			b.Fatal(err)
		}
	}
}

package containers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// report2000 is a 2,000-finding Trivy report made of the real entries of the Juice Shop scan,
// renumbered so that de-duplication keeps all of them.
func report2000(tb testing.TB) []byte {
	tb.Helper()
	var report struct {
		Results []struct{ Vulnerabilities []map[string]any }
	}
	if err := json.Unmarshal(storetest.ReadFile(tb, filepath.Join(storetest.TrivyDir, "backline-e2e-juice-shop_repo.json")), &report); err != nil {
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
	raw, err := json.Marshal(map[string]any{"SchemaVersion": 2,
		"Results": []any{map[string]any{"Target": "package-lock.json", "Type": "npm", "Vulnerabilities": entries}}})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

func TestIngest2000(t *testing.T) {
	w := storetest.NewWorld(t)
	img := containers.ImageScan{Reference: "juice-shop:latest", ImageID: storetest.DigestA, ScanResults: report2000(t)}
	for range 2 { // the second submission replaces the first's 2,000 findings
		if res := w.Submit(t, w.Acme, "bench", img); res.Vulnerabilities != 2000 {
			t.Fatalf("stored %d findings, want 2000", res.Vulnerabilities)
		}
	}
	d, err := w.Containers.Get(context.Background(), w.Acme, storetest.DigestA)
	if err != nil || len(d.Findings) != 2000 {
		t.Fatalf("detail has %d findings (%v), want 2000", len(d.Findings), err)
	}
}

// BenchmarkIngest2000 submits (and so replaces) a 2,000-finding Trivy report on a real
// SQLite file through the service: parse, validate, one transaction. Target: ≤ 100 ms.
func BenchmarkIngest2000(b *testing.B) {
	w := storetest.NewWorld(b)
	img := containers.ImageScan{Reference: "juice-shop:latest", ImageID: storetest.DigestA, ScanResults: report2000(b)}
	b.SetBytes(int64(len(img.ScanResults)))
	b.ReportAllocs()
	for b.Loop() {
		w.Submit(b, w.Acme, "bench", img)
	}
}

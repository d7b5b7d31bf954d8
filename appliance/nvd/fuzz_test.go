package nvd

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"path/filepath"
	"testing"
)

// feedPrefix returns the first n bytes of a real compressed feed, decompressed: a truncated but
// otherwise genuine document.
func feedPrefix(t testing.TB, file string, n int64) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(readFile(t, filepath.Join(dataDir, "nvd", file))))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, n))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// importNeverPanics is the fuzz property: a document yields records or an error, and every
// record handed on carries a well-formed id.
func importNeverPanics(t *testing.T, data []byte) {
	h := HandlerFuncs{
		OnCVE: func(_ context.Context, c CVE) error {
			if !cveIDPattern.MatchString(c.ID) {
				t.Fatalf("record with id %q handed on", c.ID)
			}
			return nil
		},
		OnKEV: func(_ context.Context, e KEVEntry) error {
			if !cveIDPattern.MatchString(e.CVEID) || e.DateAdded.IsZero() {
				t.Fatalf("KEV entry %+v handed on", e)
			}
			return nil
		},
	}
	stats, err := Import(context.Background(), bytes.NewReader(data), h)
	if err == nil && stats == (Stats{}) && !declaresKind(data) {
		t.Fatalf("empty success for a document that declares no kind: %q", data)
	}
}

// declaresKind reports whether data names a key that can make a recordless document valid
// (or may spell one with \u escapes).
func declaresKind(data []byte) bool {
	for _, key := range []string{"vulnerabilities", "NVD_CVE", "catalogVersion", `\u`} {
		if bytes.Contains(data, []byte(key)) {
			return true
		}
	}
	return false
}

func FuzzNVDFeed(f *testing.F) {
	f.Add(readFile(f, filepath.Join(fixturesDir, "nvd-mini.json")))
	f.Add(readFile(f, filepath.Join(fixturesDir, "nvd-live.json")))
	f.Add(feedPrefix(f, "nvdcve-2.0-2026.json.gz", 16<<10))
	f.Add(feedPrefix(f, "nvdcve-2.0-2002.json.gz", 8<<10))
	f.Add([]byte(`{"cve":{"id":"CVE-2021-0001","configurations":[{"operator":"AND","nodes":[]}]}}`))
	f.Fuzz(importNeverPanics)
}

func FuzzKEV(f *testing.F) {
	f.Add(readFile(f, filepath.Join(fixturesDir, "kev-mini.json")))
	kev := readFile(f, filepath.Join(dataDir, "kev", "known_exploited_vulnerabilities.json"))
	f.Add(kev[:4<<10])
	f.Add([]byte(`{"catalogVersion":"1","vulnerabilities":[{"cveID":"CVE-2021-0001","dateAdded":"2021-01-01"}]}`))
	f.Fuzz(importNeverPanics)
}

func FuzzDecodeConfigurations(f *testing.F) {
	mini, _ := importPath(f, filepath.Join(fixturesDir, "nvd-mini.json"))
	for _, c := range mini.cves {
		f.Add(EncodeConfigurations(c.Configurations))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		configs, err := DecodeConfigurations(data)
		if err != nil {
			return
		}
		again, err := DecodeConfigurations(EncodeConfigurations(configs))
		if err != nil || !equalConfigurations(again, configs) {
			t.Fatalf("re-encoding %+v gave %+v, %v", configs, again, err)
		}
	})
}

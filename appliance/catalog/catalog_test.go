package catalog

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every format is recognized plain and gzipped, whatever the file is called.
func TestParseDetectsFormatAndGzip(t *testing.T) {
	tests := []struct {
		name string
		path string
		want int
	}{
		{"tsv", catalogMiniTSV, 29},
		{"nvd cpe json", nvdCPESample, 5},
	}
	for _, tt := range tests {
		plain := readFile(t, tt.path)
		for variant, content := range map[string][]byte{"plain": plain, "gzip": gzipBytes(t, plain)} {
			t.Run(tt.name+"/"+variant, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "catalogue.bin")
				if err := os.WriteFile(path, content, 0o600); err != nil {
					t.Fatal(err)
				}
				if got := len(parseAll(t, path)); got != tt.want {
					t.Errorf("%d identities, want %d", got, tt.want)
				}
			})
		}
	}
}

func TestParseStopsOnCallbackError(t *testing.T) {
	stop := errors.New("store full")
	calls := 0
	n, err := ParseFile(context.Background(), catalogMiniTSV, func(appliance.CatalogEntry) error {
		if calls++; calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("n, err = %d, %v; want 2, %v", n, err, stop)
	}
}

func TestParseHonoursCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, path := range []string{vendorProductTSV, dictionaryXML} {
		_, err := ParseFile(ctx, path, func(appliance.CatalogEntry) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", path, err)
		}
	}
}

func TestParseFileErrors(t *testing.T) {
	if _, err := ParseFile(context.Background(), "testdata/missing.tsv", nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v, want os.ErrNotExist", err)
	}
	broken := gzipBytes(t, readFile(t, catalogMiniTSV))
	path := filepath.Join(t.TempDir(), "broken.tsv.gz")
	if err := os.WriteFile(path, broken[:len(broken)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseFile(context.Background(), path, func(appliance.CatalogEntry) error { return nil }); err == nil {
		t.Error("truncated gzip: no error")
	}
}

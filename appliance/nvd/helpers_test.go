package nvd

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

const (
	dataDir     = "../../../shared/data"
	fixturesDir = "../../../shared/conformance/fixtures"
)

// collector keeps every record it is handed.
type collector struct {
	cves []CVE
	kev  []KEVEntry
}

func (c *collector) CVE(_ context.Context, cve CVE) error {
	c.cves = append(c.cves, cve)
	return nil
}

func (c *collector) KEV(_ context.Context, e KEVEntry) error {
	c.kev = append(c.kev, e)
	return nil
}

func (c *collector) byID(t *testing.T, id string) CVE {
	t.Helper()
	for _, cve := range c.cves {
		if cve.ID == id {
			return cve
		}
	}
	t.Fatalf("%s not imported", id)
	return CVE{}
}

// importPath imports a real file; a missing file fails the test rather than skipping it.
func importPath(t testing.TB, path string) (*collector, Stats) {
	t.Helper()
	c := &collector{}
	stats, err := ImportFile(context.Background(), path, c)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return c, stats
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read test data: %v", err)
	}
	return data
}

// nvdFeeds lists the real NVD CVE 2.0 feeds and fails when there are none.
func nvdFeeds(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dataDir, "nvd", "nvdcve-2.0-*.json.gz"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no NVD 2.0 feeds under %s (err %v)", dataDir, err)
	}
	return paths
}

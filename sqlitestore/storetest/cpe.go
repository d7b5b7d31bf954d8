package storetest

import (
	"bufio"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/catalog"
)

// VendorProductTSV holds the 110,094 real CPE vendor/product identities of the shared test
// data, by path from a package two levels below the repository root (see SharedData for any
// depth).
const VendorProductTSV = "../../../shared/data/cpe/vendor_product.tsv.gz"

// SharedData is the path of rel under the shared test data (../shared/data beside the
// repository), found from the test's working directory at any depth.
func SharedData(tb testing.TB, rel string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "data", rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Catalogue is the whole real catalogue (vendor_product.tsv.gz) as the importer reads it.
func Catalogue(tb testing.TB) []appliance.CatalogEntry {
	tb.Helper()
	var out []appliance.CatalogEntry
	_, err := catalog.ParseFile(context.Background(), SharedData(tb, "cpe/vendor_product.tsv.gz"),
		func(e appliance.CatalogEntry) error { out = append(out, e); return nil })
	if err != nil {
		tb.Fatalf("catalogue: %v", err)
	}
	return out
}

// CPERow is one line of VendorProductTSV.
type CPERow struct {
	Part, Vendor, Product, Title string
	Sources                      string // comma-separated: nvd11, nvd20 (CVE data), cpedict, dict2015
}

// CPERows reads up to limit rows (all when limit <= 0); a missing file fails the test.
func CPERows(tb testing.TB, limit int) []CPERow {
	tb.Helper()
	f, err := os.Open(SharedData(tb, "cpe/vendor_product.tsv.gz"))
	if err != nil {
		tb.Fatalf("real data missing: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var rows []CPERow
	sc := bufio.NewScanner(gz)
	for sc.Scan() && (limit <= 0 || len(rows) < limit) {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 4 || cols[0] == "part" {
			continue
		}
		row := CPERow{Part: cols[0], Vendor: cols[1], Product: cols[2], Title: cols[3]}
		if len(cols) > 4 {
			row.Sources = cols[4]
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}

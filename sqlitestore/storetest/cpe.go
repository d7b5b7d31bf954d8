package storetest

import (
	"bufio"
	"compress/gzip"
	"os"
	"strings"
	"testing"
)

// VendorProductTSV holds the 110,094 real CPE vendor/product identities of the shared test
// data, by path from a package two levels below the repository root.
const VendorProductTSV = "../../../shared/data/cpe/vendor_product.tsv.gz"

// CPERow is one line of VendorProductTSV.
type CPERow struct {
	Part, Vendor, Product, Title string
}

// CPERows reads up to limit rows (all when limit <= 0); a missing file fails the test.
func CPERows(tb testing.TB, limit int) []CPERow {
	tb.Helper()
	f, err := os.Open(VendorProductTSV)
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
		rows = append(rows, CPERow{cols[0], cols[1], cols[2], cols[3]})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}

package license

import (
	"bufio"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/sha256"
	"os"
	"strings"
	"testing"
	"time"
)

// Real CPE vendor/product identities (110,094 rows) from the shared test data.
const vendorProductTSV = "../../../shared/data/cpe/vendor_product.tsv.gz"

// cpeRow is one line of vendor_product.tsv.gz.
type cpeRow struct {
	part, vendor, product, title string
}

// testKey derives a fixed key from a label, so fuzz seeds and failures are reproducible.
func testKey(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte(label))
	return ed25519.NewKeyFromSeed(seed[:])
}

func publicOf(priv ed25519.PrivateKey) ed25519.PublicKey {
	return priv.Public().(ed25519.PublicKey)
}

// loadCPERows reads up to limit rows (all when limit <= 0); a missing file fails the test.
func loadCPERows(tb testing.TB, limit int) []cpeRow {
	tb.Helper()
	f, err := os.Open(vendorProductTSV)
	if err != nil {
		tb.Fatalf("real data missing: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var rows []cpeRow
	sc := bufio.NewScanner(gz)
	for sc.Scan() && (limit <= 0 || len(rows) < limit) {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 4 || cols[0] == "part" {
			continue
		}
		rows = append(rows, cpeRow{cols[0], cols[1], cols[2], cols[3]})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}

// snapshotFromRows turns real identities into KB mappings of every source, some retracted.
func snapshotFromRows(rows []cpeRow) Snapshot {
	base := time.Date(2026, 3, 15, 8, 0, 0, 0, time.UTC)
	snap := Snapshot{CreatedAt: base.Add(time.Hour), Mappings: make([]SnapshotMapping, len(rows))}
	for i, r := range rows {
		m := SnapshotMapping{
			VendorPattern: humanName(r.vendor), ProductPattern: humanName(r.product),
			CPEVendor: r.vendor, CPEProduct: r.product,
			Source: SourceNVD, Confidence: 1, UpdatedAt: base.Add(time.Duration(i) * time.Millisecond),
		}
		if r.title != "" {
			m.ProductPattern = r.title
		}
		if i%7 == 3 {
			m.Source, m.Confidence = SourceCommunity, float64(i%10)/10*CommunityConfidenceCap
		}
		if i%11 == 5 {
			m.Source, m.Confidence = SourceCurated, 0.75
		}
		m.Retracted = i%13 == 0
		snap.Mappings[i] = m
	}
	return snap
}

func humanName(cpeValue string) string {
	return strings.ReplaceAll(strings.ReplaceAll(cpeValue, `\`, ""), "_", " ")
}

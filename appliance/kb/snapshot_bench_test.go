package kb

import (
	"bytes"
	"io"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// The whole real catalogue (110,094 identities) as one snapshot.
func BenchmarkWriteSnapshot(b *testing.B) {
	snap := snapshotFromRows(storetest.CPERows(b, 0))
	priv := keyOf("snapshot")
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteSnapshot(io.Discard, priv, snap); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(snap.Mappings)), "mappings")
}

func BenchmarkReadSnapshot(b *testing.B) {
	file := writeSnapshotBytes(b, snapshotFromRows(storetest.CPERows(b, 0)))
	pub := publicOf(keyOf("snapshot"))
	b.ReportAllocs()
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		if _, err := ReadSnapshot(bytes.NewReader(file), pub); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidatePush(b *testing.B) {
	rows := storetest.CPERows(b, MaxPushMappings)
	ms := make([]Mapping, len(rows))
	for i, r := range rows {
		ms[i] = Mapping{VendorPattern: humanName(r.Vendor), ProductPattern: humanName(r.Product), CPEVendor: r.Vendor, CPEProduct: r.Product, Confidence: nil}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidatePush("inst-1", ms); err != nil {
			b.Fatal(err)
		}
	}
}

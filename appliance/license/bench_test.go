package license

import (
	"bytes"
	"io"
	"testing"
)

// The whole real catalogue (110,094 identities) as one snapshot.
func BenchmarkWriteSnapshot(b *testing.B) {
	snap := snapshotFromRows(loadCPERows(b, 0))
	priv := testKey("snapshot")
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteSnapshot(io.Discard, priv, snap); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(snap.Mappings)), "mappings")
}

func BenchmarkReadSnapshot(b *testing.B) {
	file := writeSnapshotBytes(b, snapshotFromRows(loadCPERows(b, 0)))
	pub := publicOf(testKey("snapshot"))
	b.ReportAllocs()
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		if _, err := ReadSnapshot(bytes.NewReader(file), pub); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	priv := testKey("licence")
	lic, err := Sign(priv, samplePayload())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Verify(publicOf(priv), lic); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidatePush(b *testing.B) {
	rows := loadCPERows(b, MaxPushMappings)
	ms := make([]Mapping, len(rows))
	for i, r := range rows {
		ms[i] = Mapping{humanName(r.vendor), humanName(r.product), r.vendor, r.product, nil}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidatePush("inst-1", ms); err != nil {
			b.Fatal(err)
		}
	}
}

package kb

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func writeSnapshotBytes(t testing.TB, snap Snapshot) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSnapshot(&buf, keyOf("snapshot"), snap); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSnapshotRoundTrip100K(t *testing.T) {
	want := snapshotFromRows(storetest.CPERows(t, 100_000))
	if len(want.Mappings) != 100_000 {
		t.Fatalf("built %d mappings from real data, want 100000", len(want.Mappings))
	}
	file := writeSnapshotBytes(t, want)
	got, err := ReadSnapshot(bytes.NewReader(file), publicOf(keyOf("snapshot")))
	if err != nil {
		t.Fatal(err)
	}
	assertSnapshotsEqual(t, got, want)
	t.Logf("100K mappings: %d bytes on disk", len(file))
}

func TestSnapshotRoundTripEmpty(t *testing.T) {
	want := Snapshot{CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Mappings: []Mapping{}}
	got, err := ReadSnapshot(bytes.NewReader(writeSnapshotBytes(t, want)), publicOf(keyOf("snapshot")))
	if err != nil || len(got.Mappings) != 0 || !got.CreatedAt.Equal(want.CreatedAt) {
		t.Fatalf("got %+v, %v", got, err)
	}
}

// Flipping any bit pattern in any byte, header included, is detected.
func TestReadSnapshotRefusesEveryTamperedByte(t *testing.T) {
	file := writeSnapshotBytes(t, snapshotFromRows(storetest.CPERows(t, 60)))
	pub := publicOf(keyOf("snapshot"))
	for i := range file {
		for _, flip := range []byte{0x01, 0x80} {
			tampered := bytes.Clone(file)
			tampered[i] ^= flip
			expectRefused(t, tampered, pub, "byte flip")
		}
	}
}

func TestReadSnapshotRefusesTruncationAndStrippedHeader(t *testing.T) {
	file := writeSnapshotBytes(t, snapshotFromRows(storetest.CPERows(t, 2000)))
	pub := publicOf(keyOf("snapshot"))
	for n := 0; n < len(file); n += 1 + n/16 {
		expectRefused(t, file[:n], pub, "truncated")
	}
	expectRefused(t, file[:len(file)-1], pub, "last byte cut")
	header := bytes.IndexByte(file, '\n') + 1
	expectRefused(t, file[header:], pub, "header stripped")
	expectRefused(t, append(bytes.Clone(file), 0), pub, "byte appended")
	expectRefused(t, file, publicOf(keyOf("other")), "wrong key")
	expectRefused(t, file, nil, "no key")
}

// A real gzip file that was never signed, with or without a made-up header, is refused.
func TestReadSnapshotRefusesUnsignedGzip(t *testing.T) {
	raw, err := os.ReadFile("../../../shared/data/nvd/nvdcve-2.0-recent.json.gz")
	if err != nil {
		t.Fatalf("real data missing: %v", err)
	}
	pub := publicOf(keyOf("snapshot"))
	expectRefused(t, raw, pub, "bare gzip")
	fakeHeader := append([]byte(licensing.SnapshotFile.Magic+" "+string(bytes.Repeat([]byte("A"), 86))+"==\n"), raw...)
	expectRefused(t, fakeHeader, pub, "zero signature")
}

func expectRefused(t *testing.T, file []byte, pub []byte, what string) {
	t.Helper()
	snap, err := ReadSnapshot(bytes.NewReader(file), pub)
	if !errors.Is(err, licensing.ErrBadSignature) || snap.Mappings != nil || !snap.CreatedAt.IsZero() {
		t.Fatalf("%s (%d bytes): got %d mappings, err %v; want nothing and licensing.ErrBadSignature", what, len(file), len(snap.Mappings), err)
	}
}

func TestWriteSnapshotRefusesInvalidMappings(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Mapping)
		field string
	}{
		{"no cpe product", func(m *Mapping) { m.CPEProduct = "" }, "mappings[1].cpe_product"},
		{"unknown source", func(m *Mapping) { m.Source = "rumour" }, "mappings[1].source"},
		{"confidence above 1", func(m *Mapping) { m.Confidence = Conf(1.5) }, "mappings[1].confidence"},
	}
	for _, tt := range tests {
		snap := snapshotFromRows(storetest.CPERows(t, 3))
		tt.edit(&snap.Mappings[1])
		err := WriteSnapshot(io.Discard, keyOf("snapshot"), snap)
		var verr *appliance.ValidationError
		if !errors.As(err, &verr) || verr.Field != tt.field {
			t.Errorf("%s: err = %v, want validation error on %s", tt.name, err, tt.field)
		}
	}
}

// A correctly signed body whose content is wrong is still refused, and returns nothing.
func TestReadSnapshotRefusesSignedBadContent(t *testing.T) {
	tests := map[string]string{
		"not json":         `hello`,
		"wrong format":     `{"format":"other","version":1,"count":0,"mappings":[]}`,
		"future version":   `{"format":"vulnkeeper-kb-snapshot","version":2,"count":0,"mappings":[]}`,
		"count mismatch":   `{"format":"vulnkeeper-kb-snapshot","version":1,"count":2,"mappings":[]}`,
		"no mappings":      `{"format":"vulnkeeper-kb-snapshot","version":1,"count":0}`,
		"trailing data":    `{"format":"vulnkeeper-kb-snapshot","version":1,"count":0,"mappings":[]} {}`,
		"invalid mapping":  `{"format":"vulnkeeper-kb-snapshot","version":1,"count":1,"mappings":[{"vendor_pattern":"a","product_pattern":"b","cpe_vendor":"c","cpe_product":"d","source":"nvd","confidence":2}]}`,
		"mappings twice":   `{"format":"vulnkeeper-kb-snapshot","version":1,"count":0,"mappings":[],"mappings":[]}`,
		"array not object": `[]`,
	}
	for name, body := range tests {
		file := signJSONBody(t, []byte(body))
		snap, err := ReadSnapshot(bytes.NewReader(file), publicOf(keyOf("snapshot")))
		if err == nil || snap.Mappings != nil {
			t.Errorf("%s: got %d mappings, err %v; want refusal", name, len(snap.Mappings), err)
		}
	}
}

func TestReadSnapshotSkipsUnknownMembers(t *testing.T) {
	body := `{"note":{"x":[1,2]},"mappings":[{"vendor_pattern":"a","product_pattern":"b","cpe_vendor":"c","cpe_product":"d","source":"curated","confidence":1,"updated_at":"2026-03-15T08:00:00Z"}],"count":1,"version":1,"format":"vulnkeeper-kb-snapshot"}`
	snap, err := ReadSnapshot(bytes.NewReader(signJSONBody(t, []byte(body))), publicOf(keyOf("snapshot")))
	if err != nil || len(snap.Mappings) != 1 || snap.Mappings[0].Source != appliance.SourceCurated {
		t.Fatalf("got %+v, %v", snap, err)
	}
}

// signJSONBody builds a snapshot file around an arbitrary JSON body, signed with the test key.
func signJSONBody(t testing.TB, body []byte) []byte {
	t.Helper()
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := licensing.WriteSignedFile(&file, licensing.SnapshotFile, keyOf("snapshot"), gz.Bytes()); err != nil {
		t.Fatal(err)
	}
	return file.Bytes()
}

func assertSnapshotsEqual(t *testing.T, got, want Snapshot) {
	t.Helper()
	if !got.CreatedAt.Equal(want.CreatedAt) || len(got.Mappings) != len(want.Mappings) {
		t.Fatalf("got %v with %d mappings, want %v with %d", got.CreatedAt, len(got.Mappings), want.CreatedAt, len(want.Mappings))
	}
	for i, w := range want.Mappings {
		g := got.Mappings[i]
		if !g.UpdatedAt.Equal(w.UpdatedAt) {
			t.Fatalf("mapping %d updated_at %v, want %v", i, g.UpdatedAt, w.UpdatedAt)
		}
		if g.ConfidenceValue() != w.ConfidenceValue() {
			t.Fatalf("mapping %d confidence %v, want %v", i, g.ConfidenceValue(), w.ConfidenceValue())
		}
		g.UpdatedAt, g.Confidence = w.UpdatedAt, w.Confidence
		if g != w {
			t.Fatalf("mapping %d = %+v, want %+v", i, g, w)
		}
	}
}

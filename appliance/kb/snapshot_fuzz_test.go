package kb

import (
	"bytes"
	"os"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// FuzzReadSnapshot feeds arbitrary files: a value or an error, never a panic; anything accepted
// must carry valid mappings.
func FuzzReadSnapshot(f *testing.F) {
	file := writeSnapshotBytes(f, snapshotFromRows(storetest.CPERows(f, 20)))
	f.Add(file)
	f.Add(file[:len(file)/2])
	f.Add(file[bytes.IndexByte(file, '\n')+1:])
	raw, err := os.ReadFile("../../../shared/data/nvd/nvdcve-2.0-recent.json.gz")
	if err != nil {
		f.Fatalf("real data missing: %v", err)
	}
	f.Add(raw[:4096])
	pub := publicOf(keyOf("snapshot"))
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := ReadSnapshot(bytes.NewReader(data), pub)
		checkReadResult(t, snap, err)
		if err == nil && !bytes.Equal(data, file) {
			t.Fatalf("accepted a file that differs from the only signed seed")
		}
	})
}

// FuzzSnapshotJSON signs arbitrary JSON bodies so the decoder behind the signature is exercised.
func FuzzSnapshotJSON(f *testing.F) {
	f.Add([]byte(`{"format":"vulnkeeper-kb-snapshot","version":1,"count":0,"mappings":[]}`))
	f.Add([]byte(`{"format":"vulnkeeper-kb-snapshot","version":1,"count":1,"mappings":[{"vendor_pattern":"a","product_pattern":"b","cpe_vendor":"c","cpe_product":"d","source":"nvd","confidence":1}]}`))
	var body bytes.Buffer
	if err := encodeSnapshotJSON(&body, snapshotFromRows(storetest.CPERows(f, 5))); err != nil {
		f.Fatal(err)
	}
	f.Add(body.Bytes())
	pub := publicOf(keyOf("snapshot"))
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := ReadSnapshot(bytes.NewReader(signJSONBody(t, data)), pub)
		checkReadResult(t, snap, err)
	})
}

func checkReadResult(t *testing.T, snap Snapshot, err error) {
	t.Helper()
	if err != nil {
		if snap.Mappings != nil {
			t.Fatalf("error %v came with %d mappings", err, len(snap.Mappings))
		}
		return
	}
	for i, m := range snap.Mappings {
		if verr := validateSnapshotMapping(i, m); verr != nil {
			t.Fatalf("accepted invalid mapping: %v", verr)
		}
	}
}

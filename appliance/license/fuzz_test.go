package license

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// FuzzReadSnapshot feeds arbitrary files: a value or an error, never a panic; anything accepted
// must carry valid mappings.
func FuzzReadSnapshot(f *testing.F) {
	file := writeSnapshotBytes(f, snapshotFromRows(loadCPERows(f, 20)))
	f.Add(file)
	f.Add(file[:len(file)/2])
	f.Add(file[bytes.IndexByte(file, '\n')+1:])
	raw, err := os.ReadFile("../../../shared/data/nvd/nvdcve-2.0-recent.json.gz")
	if err != nil {
		f.Fatalf("real data missing: %v", err)
	}
	f.Add(raw[:4096])
	pub := publicOf(testKey("snapshot"))
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
	if err := encodeSnapshotJSON(&body, snapshotFromRows(loadCPERows(f, 5))); err != nil {
		f.Fatal(err)
	}
	f.Add(body.Bytes())
	pub := publicOf(testKey("snapshot"))
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

// FuzzVerify feeds arbitrary licence strings: a payload or an error, never a panic.
func FuzzVerify(f *testing.F) {
	priv := testKey("licence")
	for _, r := range loadCPERows(f, 3) {
		p := samplePayload()
		p.Customer, p.InstallationID = r.title+r.vendor, r.product
		lic, err := Sign(priv, p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(lic)
		f.Add(lic[:CredentialLength])
	}
	generic, _ := SignBytes(priv, []byte(`{"license_id":"x"}`))
	f.Add(generic)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Verify(publicOf(priv), s)
		if err != nil {
			if !errors.Is(err, ErrBadSignature) || p != (Payload{}) {
				t.Fatalf("Verify error %v with payload %+v", err, p)
			}
			return
		}
		if p.validate() != nil {
			t.Fatalf("accepted invalid payload %+v", p)
		}
		if _, err := VerifyBytes(publicOf(priv), s); err == nil {
			t.Fatal("a licence also verified as a generic signed payload")
		}
	})
}

package kb

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"io"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
)

// A snapshot file is a header line followed by a gzip member:
//
//	VKSNAP1 <base64 StdEncoding of the 64-byte signature>\n
//	<gzip of the snapshot JSON>
//
// The signature is Ed25519ctx (context "vulnkeeper/kb-snapshot/v1") over the gzip bytes exactly,
// so a reader verifies before decompressing anything. The JSON is
//
//	{"format":"vulnkeeper-kb-snapshot","version":1,"created_at":"…","serial":S,"count":N,
//	 "mappings":[{"vendor_pattern":…,"product_pattern":…,"cpe_vendor":…,"cpe_product":…,
//	              "source":…,"confidence":…,"updated_at":…,"retracted":true?,"part":"o"?}, …]}
//
// written and read one mapping at a time.
const (
	snapshotFormat  = "vulnkeeper-kb-snapshot"
	snapshotVersion = 1
)

// Snapshot is the published KB at one moment, for sites that cannot pull.
type Snapshot struct {
	CreatedAt time.Time
	// Serial grows with every snapshot a licence server signs; an installation refuses one
	// older than the snapshot it holds, so replaying an old file cannot bring back retracted
	// mappings. Snapshots from before serials read as 0.
	Serial   uint64
	Mappings []Mapping
}

// WriteSnapshot writes snap signed with priv in the format above. The compressed body is held
// in memory until signed (a few MB for the whole KB); mappings are validated as they are
// encoded, so a snapshot that ReadSnapshot would refuse is never written.
func WriteSnapshot(w io.Writer, priv ed25519.PrivateKey, snap Snapshot) error {
	var body bytes.Buffer
	if err := encodeSnapshot(&body, snap); err != nil {
		return err
	}
	return licensing.WriteSignedFile(w, licensing.SnapshotFile, priv, body.Bytes())
}

// ReadSnapshot reads a snapshot file, verifies its signature with pub and decodes it. A
// truncated, tampered, unsigned or foreign-signed file is refused with licensing.ErrBadSignature and
// nothing is returned; a signed file with invalid content is refused too.
func ReadSnapshot(r io.Reader, pub ed25519.PublicKey) (Snapshot, error) {
	body, err := licensing.ReadSignedFile(r, licensing.SnapshotFile, pub)
	if err != nil {
		return Snapshot{}, err
	}
	snap, err := decodeSnapshot(bytes.NewReader(body))
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	return snap, nil
}

package kb

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
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
// strictBase64 refuses padding or alphabet variants, so a signature has one spelling.
var strictBase64 = base64.StdEncoding.Strict()

const (
	snapshotMagic   = "VKSNAP1"
	snapshotFormat  = "vulnkeeper-kb-snapshot"
	snapshotVersion = 1
	// MaxSnapshotBytes bounds the compressed part of a snapshot file (110K mappings take ~3 MB).
	MaxSnapshotBytes = 256 << 20
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
	sig, err := licensing.SignSnapshot(priv, body.Bytes())
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	header := snapshotMagic + " " + strictBase64.EncodeToString(sig) + "\n"
	if _, err := io.WriteString(w, header); err != nil {
		return fmt.Errorf("write snapshot: %w", err)
	}
	if _, err := body.WriteTo(w); err != nil {
		return fmt.Errorf("write snapshot: %w", err)
	}
	return nil
}

// ReadSnapshot reads a snapshot file, verifies its signature with pub and decodes it. A
// truncated, tampered, unsigned or foreign-signed file is refused with licensing.ErrBadSignature and
// nothing is returned; a signed file with invalid content is refused too.
func ReadSnapshot(r io.Reader, pub ed25519.PublicKey) (Snapshot, error) {
	br := bufio.NewReader(r)
	sig, err := readSnapshotHeader(br)
	if err != nil {
		return Snapshot{}, err
	}
	body, err := readSnapshotBody(br)
	if err != nil {
		return Snapshot{}, err
	}
	if err := licensing.VerifySnapshot(pub, body, sig); err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	snap, err := decodeSnapshot(bytes.NewReader(body))
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	return snap, nil
}

func readSnapshotHeader(r io.Reader) ([]byte, error) {
	prefix := snapshotMagic + " "
	header := make([]byte, len(prefix)+strictBase64.EncodedLen(ed25519.SignatureSize)+len("\n"))
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, fmt.Errorf("snapshot header is truncated: %w", licensing.ErrBadSignature)
	}
	if string(header[:len(prefix)]) != prefix || header[len(header)-1] != '\n' {
		return nil, fmt.Errorf("not a signed snapshot (no %s header): %w", snapshotMagic, licensing.ErrBadSignature)
	}
	encoded := header[len(prefix) : len(header)-1]
	sig := make([]byte, strictBase64.DecodedLen(len(encoded)))
	n, err := strictBase64.Decode(sig, encoded)
	if err != nil || n != ed25519.SignatureSize || bytes.ContainsAny(encoded, "\r\n") {
		return nil, fmt.Errorf("snapshot signature is not base64: %w", licensing.ErrBadSignature)
	}
	return sig[:n], nil
}

func readSnapshotBody(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxSnapshotBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	if len(body) > MaxSnapshotBytes {
		return nil, errors.New("snapshot is larger than 256 MiB")
	}
	return body, nil
}

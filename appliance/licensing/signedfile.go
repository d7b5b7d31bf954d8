package licensing

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"fmt"
	"io"
)

// A signed file is one header line followed by the body it signs:
//
//	MAGIC <base64 StdEncoding of the 64-byte signature>\n
//	<body>
//
// The signature is Ed25519ctx over the body bytes exactly, under the kind's own context, so a
// reader verifies before decoding anything and one kind of file never passes for another.
type SignedFileKind struct {
	Magic   string // first word of the header, e.g. VKSNAP1
	What    string // the file's name in errors ("snapshot")
	MaxBody int    // bound on the body a reader accepts
	context string
}

// The signed file kinds: KB snapshots (package kb) and feed bundles (package feeds).
var (
	SnapshotFile = SignedFileKind{Magic: "VKSNAP1", What: "snapshot", MaxBody: 256 << 20, context: contextSnapshot}
	BundleFile   = SignedFileKind{Magic: "VKBUNDLE1", What: "bundle", MaxBody: 1 << 30, context: contextBundle}
)

// WriteSignedFile signs body with priv and writes the header and the body to w.
func WriteSignedFile(w io.Writer, kind SignedFileKind, priv ed25519.PrivateKey, body []byte) error {
	sig, err := signWithContext(priv, kind.context, body)
	if err != nil {
		return fmt.Errorf("%s: %w", kind.What, err)
	}
	header := kind.Magic + " " + strictBase64.EncodeToString(sig) + "\n"
	if _, err := io.WriteString(w, header); err != nil {
		return fmt.Errorf("write %s: %w", kind.What, err)
	}
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("write %s: %w", kind.What, err)
	}
	return nil
}

// ReadSignedFile reads a signed file of the kind and returns its body once the signature
// holds for pub. A truncated, tampered, unsigned or foreign-signed file is ErrBadSignature.
func ReadSignedFile(r io.Reader, kind SignedFileKind, pub ed25519.PublicKey) ([]byte, error) {
	br := bufio.NewReader(r)
	sig, err := readSignedHeader(br, kind)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(br, int64(kind.MaxBody)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", kind.What, err)
	}
	if len(body) > kind.MaxBody {
		return nil, fmt.Errorf("%s is larger than %d MiB", kind.What, kind.MaxBody>>20)
	}
	if err := verifyWithContext(pub, kind.context, body, sig); err != nil {
		return nil, fmt.Errorf("%s: %w", kind.What, err)
	}
	return body, nil
}

// HasSignedHeader says whether prefix (a file's first bytes) starts like a file of the kind.
func HasSignedHeader(prefix []byte, kind SignedFileKind) bool {
	return bytes.HasPrefix(prefix, []byte(kind.Magic+" "))
}

func readSignedHeader(r io.Reader, kind SignedFileKind) ([]byte, error) {
	prefix := kind.Magic + " "
	header := make([]byte, len(prefix)+strictBase64.EncodedLen(ed25519.SignatureSize)+len("\n"))
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, fmt.Errorf("%s header is truncated: %w", kind.What, ErrBadSignature)
	}
	if string(header[:len(prefix)]) != prefix || header[len(header)-1] != '\n' {
		return nil, fmt.Errorf("not a signed %s (no %s header): %w", kind.What, kind.Magic, ErrBadSignature)
	}
	encoded := header[len(prefix) : len(header)-1]
	sig := make([]byte, strictBase64.DecodedLen(len(encoded)))
	n, err := strictBase64.Decode(sig, encoded)
	if err != nil || n != ed25519.SignatureSize || bytes.ContainsAny(encoded, "\r\n") {
		return nil, fmt.Errorf("%s signature is not base64: %w", kind.What, ErrBadSignature)
	}
	return sig[:n], nil
}

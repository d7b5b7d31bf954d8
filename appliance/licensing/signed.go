package licensing

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strings"
)

// strictBase64 refuses non-zero padding bits, so every changed character changes the bytes.
var strictBase64 = base64.StdEncoding.Strict()

// SignBytes signs an arbitrary payload for POST /api/v1/verify-signed and returns
// base64(StdEncoding) of signature(64 bytes) ‖ payload.
func SignBytes(priv ed25519.PrivateKey, payload []byte) (string, error) {
	return signFramed(priv, contextPayload, payload)
}

// VerifyBytes checks a document made by SignBytes and returns its payload; any defect or a
// wrong key is ErrBadSignature.
func VerifyBytes(pub ed25519.PublicKey, signed string) ([]byte, error) {
	return verifyFramed(pub, contextPayload, signed)
}

func signFramed(priv ed25519.PrivateKey, context string, payload []byte) (string, error) {
	sig, err := signWithContext(priv, context, payload)
	if err != nil {
		return "", err
	}
	framed := make([]byte, 0, len(sig)+len(payload))
	framed = append(append(framed, sig...), payload...)
	return strictBase64.EncodeToString(framed), nil
}

func verifyFramed(pub ed25519.PublicKey, context, signed string) ([]byte, error) {
	signed = strings.TrimSpace(signed)
	// The base64 decoder skips line breaks; a canonical document has none.
	if strings.ContainsAny(signed, "\r\n") {
		return nil, fmt.Errorf("signed document contains line breaks: %w", ErrBadSignature)
	}
	framed, err := strictBase64.DecodeString(signed)
	if err != nil {
		return nil, fmt.Errorf("signed document is not base64: %w", ErrBadSignature)
	}
	if len(framed) < ed25519.SignatureSize {
		return nil, fmt.Errorf("signed document too short: %w", ErrBadSignature)
	}
	sig, payload := framed[:ed25519.SignatureSize], framed[ed25519.SignatureSize:]
	if err := verifyWithContext(pub, context, payload, sig); err != nil {
		return nil, err
	}
	return payload, nil
}

func signWithContext(priv ed25519.PrivateKey, context string, message []byte) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("signing key has %d bytes, want %d", len(priv), ed25519.PrivateKeySize)
	}
	sig, err := priv.Sign(nil, message, &ed25519.Options{Context: context})
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return sig, nil
}

func verifyWithContext(pub ed25519.PublicKey, context string, message, sig []byte) error {
	// ed25519 panics on a key of the wrong length; refuse it as an unusable key instead.
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("public key has %d bytes, want %d: %w", len(pub), ed25519.PublicKeySize, ErrBadSignature)
	}
	if err := ed25519.VerifyWithOptions(pub, message, sig, &ed25519.Options{Context: context}); err != nil {
		return fmt.Errorf("signature check failed: %w", ErrBadSignature)
	}
	return nil
}

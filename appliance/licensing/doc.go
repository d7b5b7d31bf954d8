// Package license holds the licence server's domain rules: the signing key kept in the data
// directory, activation codes, signed licences and generic signed payloads, the publication
// rules of the shared knowledge base (KB), and signed KB snapshot files for air-gapped sites.
//
// Every signature is Ed25519 with a context string (Ed25519ctx, RFC 8032): licences, generic
// signed payloads and snapshots use different contexts, so a signature made for one kind of
// document can never be replayed as another. The wire framing stays the documented
// base64(signature ‖ payload).
//
// The package does file I/O for keys and snapshots only; it knows neither SQL nor HTTP.
package licensing

import "errors"

// ErrBadSignature says a licence, signed payload or snapshot is malformed, truncated, unsigned,
// tampered with or signed by another key. Nothing from such a document is returned.
var ErrBadSignature = errors.New("bad signature")

// ErrInsecureKeyFile says the private key file is readable or writable by group or others; the
// key is refused until the operator restricts it (chmod 600), as ssh does.
var ErrInsecureKeyFile = errors.New("insecure key file permissions")

// Signature contexts; changing one invalidates every document signed under it.
const (
	contextLicense  = "vulnkeeper/license/v1"
	contextPayload  = "vulnkeeper/signed-payload/v1"
	contextSnapshot = "vulnkeeper/kb-snapshot/v1"
	contextBundle   = "vulnkeeper/feed-bundle/v1"
)

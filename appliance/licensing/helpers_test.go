package licensing

import (
	"crypto/ed25519"
	"crypto/sha256"
)

// Real CPE vendor/product identities (110,094 rows) from the shared test data.

// testKey derives a fixed key from a label, so fuzz seeds and failures are reproducible.
func testKey(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte(label))
	return ed25519.NewKeyFromSeed(seed[:])
}

func publicOf(priv ed25519.PrivateKey) ed25519.PublicKey {
	return priv.Public().(ed25519.PublicKey)
}

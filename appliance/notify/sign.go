package notify

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Headers of every delivery.
const (
	HeaderSignature = "X-Vulnkeeper-Signature" // "sha256=" + hex HMAC-SHA256 of the body
	HeaderDelivery  = "X-Vulnkeeper-Delivery"  // unique per delivery, the same on its retries
	HeaderEvent     = "X-Vulnkeeper-Event"
)

// Sign is the signature header value of body under secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b)
}

// newSecret is a webhook's signing secret.
func newSecret() string { return "whsec_" + randomHex(24) }

// newDeliveryID is a delivery's id.
func newDeliveryID() string { return randomHex(16) }

// backoff is the wait after the attempt-th failed attempt: 30 s, ×4 each time, at most 6 h.
func backoff(attempt int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < attempt && d < 6*time.Hour; i++ {
		d *= 4
	}
	return min(d, 6*time.Hour)
}

package accounts

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"golang.org/x/crypto/argon2"
)

// argon2id parameters: OWASP's recommended minimum (19 MiB, 2 passes, 1 lane).
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonKeyLen    = 32
	argonSaltLen   = 16

	// Passwords are measured in characters (Unicode code points) everywhere: the policy
	// below and the login's refusal of over-long input count the same way, so any password
	// the policy accepts can log in. Characters, not bytes, because that is what a person
	// counts, and a limit in bytes would give a Greek or Chinese password a quarter of the
	// room of an English one. 256 characters are at most 1 KiB of UTF-8, a negligible
	// input for argon2id.
	minPasswordLen = 10
	maxPasswordLen = 256
)

// passwordLength is the length of a password in the unit of the policy: characters.
func passwordLength(password string) int { return utf8.RuneCountInString(password) }

var errBadHash = errors.New("malformed password hash")

// PasswordHasher hashes with argon2id and bounds how many hashes run at once, so a burst of
// logins cannot take all memory.
type PasswordHasher struct {
	slots     chan struct{}
	dummyOnce sync.Once
	dummy     string
}

// NewPasswordHasher allows at most concurrent hashes at a time.
func NewPasswordHasher(concurrent int) *PasswordHasher {
	return &PasswordHasher{slots: make(chan struct{}, max(1, concurrent))}
}

func (h *PasswordHasher) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *PasswordHasher) release() { <-h.slots }

// Hash returns the PHC string of password.
func (h *PasswordHasher) Hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemoryKiB, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether password matches the PHC string encoded.
func (h *PasswordHasher) Verify(ctx context.Context, encoded, password string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	var mem, iters uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &iters, &threads); err != nil {
		return false, errBadHash
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false, errBadHash
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	defer h.release()
	got := argon2.IDKey([]byte(password), salt, iters, mem, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// VerifyNobody spends the same work as Verify for a user that does not exist, so the
// response time does not reveal which usernames exist.
func (h *PasswordHasher) VerifyNobody(ctx context.Context, password string) {
	h.dummyOnce.Do(func() {
		h.dummy, _ = h.Hash(context.Background(), "vulnkeeper-timing-equaliser")
	})
	_, _ = h.Verify(ctx, h.dummy, password)
}

// ValidatePassword enforces the password policy on a new password.
func ValidatePassword(field, password string) error {
	n := passwordLength(password)
	if n < minPasswordLen {
		return appliance.Invalid(field, "min_length", "password must have at least %d characters", minPasswordLen)
	}
	if n > maxPasswordLen {
		return appliance.Invalid(field, "max_length", "password must have at most %d characters", maxPasswordLen)
	}
	return nil
}

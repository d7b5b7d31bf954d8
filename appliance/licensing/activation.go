package licensing

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Activation codes look like VK-XXXXX-XXXXX-XXXXX-XXXXX-XXXXX: 25 symbols of Crockford's base32
// (no I, L, O, U), 5 bits each, so 125 bits of entropy.
const (
	activationPrefix  = "VK"
	activationGroups  = 5
	activationGroupSz = 5
	crockfordAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
)

// NewActivationCode returns a fresh random activation code in its canonical form.
func NewActivationCode() (string, error) {
	random := make([]byte, activationGroups*activationGroupSz)
	if _, err := rand.Read(random); err != nil {
		return "", fmt.Errorf("activation code: %w", err)
	}
	symbols := make([]byte, len(random))
	for i, b := range random {
		// 256 is a multiple of 32, so the low five bits are uniform.
		symbols[i] = crockfordAlphabet[b&31]
	}
	return formatActivationCode(symbols), nil
}

// NormalizeActivationCode turns what a person typed into the canonical code: case, blanks,
// dashes, the optional VK prefix and look-alike letters (O→0, I/L→1) do not matter.
// Hash the canonical form: HashSecret(NormalizeActivationCode(typed)).
func NormalizeActivationCode(typed string) (string, error) {
	const length = activationGroups * activationGroupSz
	symbols := make([]byte, 0, length+len(activationPrefix))
	for _, r := range strings.ToUpper(typed) {
		sym, ok := activationSymbol(r)
		if !ok {
			return "", invalidActivationCode()
		}
		if sym != 0 {
			symbols = append(symbols, sym)
		}
	}
	// V and K are symbols too: the prefix is recognised by the count.
	if len(symbols) == length+len(activationPrefix) && string(symbols[:2]) == activationPrefix {
		symbols = symbols[len(activationPrefix):]
	}
	if len(symbols) != length {
		return "", invalidActivationCode()
	}
	return formatActivationCode(symbols), nil
}

// HashSecret is the hex SHA-256 of a secret; only these hashes are stored.
func HashSecret(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// activationSymbol maps one typed rune to its alphabet symbol; 0 means "skip this separator".
func activationSymbol(r rune) (byte, bool) {
	switch r {
	case '-', ' ', '\t', '\r', '\n':
		return 0, true
	case 'O':
		return '0', true
	case 'I', 'L':
		return '1', true
	}
	if r < 128 && strings.IndexByte(crockfordAlphabet, byte(r)) >= 0 {
		return byte(r), true
	}
	return 0, false
}

func formatActivationCode(symbols []byte) string {
	var b strings.Builder
	b.WriteString(activationPrefix)
	for i := 0; i < len(symbols); i += activationGroupSz {
		b.WriteByte('-')
		b.Write(symbols[i : i+activationGroupSz])
	}
	return b.String()
}

func invalidActivationCode() error {
	return appliance.Invalid("activation_code", "format",
		"activation code must be VK- followed by %d letters or digits", activationGroups*activationGroupSz)
}

package licensing

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// CredentialLength is the number of leading licence characters that form the Bearer credential.
const CredentialLength = 64

// Payload is the signed content of a licence. It is the wire form itself: the JSON field order
// is fixed by this declaration and times are UTC with second precision.
type Payload struct {
	LicenseID      string            `json:"license_id"`
	InstallationID string            `json:"installation_id"`
	Edition        appliance.Edition `json:"edition"`
	Customer       string            `json:"customer,omitempty"`
	IssuedAt       time.Time         `json:"issued_at"`
	ExpiresAt      time.Time         `json:"expires_at"`
}

// ParseEdition reads an edition name, ignoring case and surrounding blanks.
func ParseEdition(s string) (appliance.Edition, error) {
	switch e := appliance.Edition(strings.ToLower(strings.TrimSpace(s))); e {
	case appliance.EditionProfessional, appliance.EditionStandard:
		return e, nil
	}
	return "", appliance.Invalid("edition", "enum", "edition must be %q or %q", appliance.EditionProfessional, appliance.EditionStandard)
}

// Expired reports whether the licence is no longer valid at now; it expires at ExpiresAt.
func (p Payload) Expired(now time.Time) bool {
	return !now.Before(p.ExpiresAt)
}

// Sign validates the payload and returns the licence: base64(StdEncoding) of
// signature(64 bytes) ‖ payload JSON. Its first 64 characters are the Bearer credential.
func Sign(priv ed25519.PrivateKey, p Payload) (string, error) {
	p = p.canonical()
	if err := p.validate(); err != nil {
		return "", err
	}
	body, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode licence payload: %w", err)
	}
	return signFramed(priv, contextLicense, body)
}

// Verify checks the licence's signature and content and returns its payload. It does not
// check expiry: an expired licence is authentic but refused by callers (403, not 401).
func Verify(pub ed25519.PublicKey, license string) (Payload, error) {
	body, err := verifyFramed(pub, contextLicense, license)
	if err != nil {
		return Payload{}, fmt.Errorf("licence: %w", err)
	}
	var p Payload
	if err := json.Unmarshal(body, &p); err != nil {
		return Payload{}, fmt.Errorf("licence payload is not valid JSON: %w", ErrBadSignature)
	}
	if err := p.validate(); err != nil {
		return Payload{}, fmt.Errorf("licence payload: %v: %w", err, ErrBadSignature)
	}
	return p, nil
}

// Credential returns the Bearer value of a licence (its first 64 characters), or "" when the
// string is too short to be a licence. Servers store only HashSecret of it.
func Credential(license string) string {
	license = strings.TrimSpace(license)
	if len(license) < CredentialLength {
		return ""
	}
	return license[:CredentialLength]
}

func (p Payload) canonical() Payload {
	p.LicenseID = strings.TrimSpace(p.LicenseID)
	p.InstallationID = strings.TrimSpace(p.InstallationID)
	p.Customer = strings.TrimSpace(p.Customer)
	p.Edition = appliance.Edition(strings.ToLower(strings.TrimSpace(string(p.Edition))))
	p.IssuedAt = p.IssuedAt.UTC().Truncate(time.Second)
	p.ExpiresAt = p.ExpiresAt.UTC().Truncate(time.Second)
	return p
}

func (p Payload) validate() error {
	switch {
	case p.LicenseID == "":
		return appliance.Invalid("license_id", "required", "licence ID is required")
	case p.InstallationID == "":
		return appliance.Invalid("installation_id", "required", "installation ID is required")
	case p.IssuedAt.IsZero() || p.ExpiresAt.IsZero():
		return appliance.Invalid("expires_at", "required", "issue and expiry times are required")
	case !p.ExpiresAt.After(p.IssuedAt):
		return appliance.Invalid("expires_at", "range", "expiry must be after issue")
	case p.Edition != appliance.EditionProfessional && p.Edition != appliance.EditionStandard:
		return appliance.Invalid("edition", "enum", "edition must be %q or %q", appliance.EditionProfessional, appliance.EditionStandard)
	}
	return nil
}

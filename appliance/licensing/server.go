// Package licensing is the licence server's domain: activation codes become signed licences
// bound to one installation, licensed installations push and pull KB mappings, and community
// mappings are published once enough independent installations agree.
package licensing

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Options configure the licence server (and, on an installation, the KB client).
// Store is what the licence server reads, and the transaction it writes in.
type Store interface {
	appliance.LicenseReader
	appliance.Transactor
}

type Options struct {
	// AdminToken opens /api/v1/admin/* (operators); empty closes it.
	AdminToken         string `mapstructure:"admin_token"`
	ReleaseVersion     string `mapstructure:"release_version"`
	ReleasePublishedAt string `mapstructure:"release_published_at"`
	ReleaseURL         string `mapstructure:"release_url"`
	ReleaseSHA256      string `mapstructure:"release_sha256"`
	// ServerURL is the licence server an installation syncs with.
	ServerURL string `mapstructure:"server_url"`
	// PublicKey pins the licence server's key (vulnkeeper license public-key).
	PublicKey    string        `mapstructure:"public_key"`
	SyncInterval time.Duration `mapstructure:"sync_interval"`
}

// DefaultOptions: no admin access, hourly sync.
func DefaultOptions() Options { return Options{SyncInterval: time.Hour} }

// Server issues licences and keeps the shared KB.
type Server struct {
	store Store
	key   ed25519.PrivateKey
	opts  Options
	now   func() time.Time
}

// NewServer builds the service over the store and the signing key.
func NewServer(store Store, key ed25519.PrivateKey, opts Options) *Server {
	return &Server{store: store, key: key, opts: opts, now: time.Now}
}

// PublicKey is the key installations pin.
func (s *Server) PublicKey() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }

// MaxValidity bounds a licence term.
const MaxValidity = 10 * 365 * 24 * time.Hour

// CreateCode issues a one-time activation code; its term counts from activation.
func (s *Server) CreateCode(ctx context.Context, edition string, validFor time.Duration, customer string) (string, error) {
	ed, err := ParseEdition(edition)
	if err != nil {
		return "", err
	}
	if validFor < time.Second || validFor > MaxValidity {
		return "", appliance.Invalid("valid_for", "range", "the term must be between 1s and 87600h")
	}
	customer = strings.TrimSpace(customer)
	if len(customer) > 200 {
		return "", appliance.Invalid("customer", "max_length", "customer must have at most 200 characters")
	}
	code, err := NewActivationCode()
	if err != nil {
		return "", err
	}
	norm, err := NormalizeActivationCode(code)
	if err != nil {
		return "", err
	}
	c := appliance.ActivationCode{Hash: HashSecret(norm), Edition: ed, ValidFor: validFor, Customer: customer, CreatedAt: s.now().UTC()}
	err = s.store.InTx(ctx, func(tx appliance.Tx) error {
		_, err := tx.CreateActivationCode(ctx, c)
		return err
	})
	return code, err
}

var installationIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)

// ValidInstallationID reports whether id is a usable installation ID.
func ValidInstallationID(id string) bool { return installationIDPattern.MatchString(id) }

// Activation is a signed licence and what it grants.
type Activation struct {
	License        string
	Edition        appliance.Edition
	ExpiresAt      time.Time
	InstallationID string
}

var errBadCode = appliance.NotFound("unknown activation code")

// Activate turns a code into a licence bound to installationID. The same installation gets
// the same licence again; another installation is refused.
func (s *Server) Activate(ctx context.Context, code, installationID string) (Activation, error) {
	installationID = strings.TrimSpace(installationID)
	if !ValidInstallationID(installationID) {
		return Activation{}, appliance.Invalid("installation_id", "format", "installation_id must be 1 to 128 letters, digits or . _ : -")
	}
	norm, err := NormalizeActivationCode(code)
	if err != nil {
		return Activation{}, err
	}
	var act Activation
	err = s.store.InTx(ctx, func(tx appliance.Tx) error {
		c, err := tx.ActivationCodeByHash(ctx, HashSecret(norm))
		if errors.Is(err, appliance.ErrNotFound) {
			return errBadCode
		}
		if err != nil {
			return err
		}
		act, err = s.bind(ctx, tx, c, installationID)
		return err
	})
	return act, err
}

func (s *Server) bind(ctx context.Context, tx appliance.Tx, c appliance.ActivationCode, installationID string) (Activation, error) {
	if c.LicenseID != "" {
		if c.Installation != installationID {
			return Activation{}, appliance.Conflict("this activation code is already bound to another installation")
		}
		l, err := tx.LicenseByID(ctx, c.LicenseID)
		if err != nil {
			return Activation{}, err
		}
		return s.sign(l)
	}
	// An installation ID names one installation: a second licence for it would let two
	// customers share (or hijack) one identity on the KB.
	switch _, err := tx.LicenseByInstallation(ctx, installationID); {
	case err == nil:
		return Activation{}, appliance.Conflict("installation ID %q is already bound to another licence", installationID)
	case !errors.Is(err, appliance.ErrNotFound):
		return Activation{}, err
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return Activation{}, err
	}
	now := s.now().UTC().Truncate(time.Second)
	l := appliance.License{ID: hex.EncodeToString(id), CodeID: c.ID, InstallationID: installationID, Edition: c.Edition,
		Customer: c.Customer, IssuedAt: now, ExpiresAt: now.Add(c.ValidFor)}
	act, err := s.sign(l)
	if err != nil {
		return Activation{}, err
	}
	l.CredentialHash = HashSecret(Credential(act.License))
	return act, tx.CreateLicense(ctx, l)
}

// sign produces the licence text; ed25519 is deterministic, so the same record always gives
// the same licence and only its credential's hash needs storing.
func (s *Server) sign(l appliance.License) (Activation, error) {
	p := Payload{LicenseID: l.ID, InstallationID: l.InstallationID, Edition: appliance.Edition(l.Edition),
		Customer: l.Customer, IssuedAt: l.IssuedAt, ExpiresAt: l.ExpiresAt}
	text, err := Sign(s.key, p)
	if err != nil {
		return Activation{}, err
	}
	return Activation{License: text, Edition: l.Edition, ExpiresAt: l.ExpiresAt, InstallationID: l.InstallationID}, nil
}

// Licensee is an authenticated installation.
type Licensee struct {
	License appliance.License
	Expired bool
}

var errBadCredential = appliance.Unauthorized("invalid licence credential or installation ID")

// Authenticate checks a Bearer credential and the installation it is presented for.
// Unknown and mismatched are ErrUnauthorized alike; expiry is reported, not refused here.
func (s *Server) Authenticate(ctx context.Context, credential, installationID string) (Licensee, error) {
	if len(credential) != CredentialLength || installationID == "" {
		return Licensee{}, errBadCredential
	}
	l, err := s.store.LicenseByCredential(ctx, HashSecret(credential))
	if errors.Is(err, appliance.ErrNotFound) {
		return Licensee{}, errBadCredential
	}
	if err != nil {
		return Licensee{}, err
	}
	if subtle.ConstantTimeCompare([]byte(l.InstallationID), []byte(installationID)) != 1 {
		return Licensee{}, errBadCredential
	}
	return Licensee{License: l, Expired: !s.now().Before(l.ExpiresAt)}, nil
}

// ErrExpired refuses KB access with an expired licence.
var ErrExpired = appliance.Forbidden("the licence has expired")

// CheckAdmin compares an operator token with the configured one, in constant time.
func (s *Server) CheckAdmin(token string) error {
	if s.opts.AdminToken == "" || token == "" {
		return appliance.Unauthorized("admin token required")
	}
	a, b := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(s.opts.AdminToken))
	if subtle.ConstantTimeCompare(a[:], b[:]) != 1 {
		return appliance.Unauthorized("wrong admin token")
	}
	return nil
}

// Release is the current release for installations.
type Release struct {
	Version, PublishedAt, URL, SHA256 string
}

// LatestRelease is read from the configuration.
func (s *Server) LatestRelease() (Release, error) {
	if s.opts.ReleaseVersion == "" {
		return Release{}, appliance.NotFound("no release is published")
	}
	return Release{Version: s.opts.ReleaseVersion, PublishedAt: s.opts.ReleasePublishedAt, URL: s.opts.ReleaseURL, SHA256: s.opts.ReleaseSHA256}, nil
}

// VerifySigned checks a payload signed by this server's key.
func (s *Server) VerifySigned(signed string) ([]byte, bool) {
	payload, err := VerifyBytes(s.PublicKey(), strings.TrimSpace(signed))
	if err != nil {
		return nil, false
	}
	return payload, true
}

// Now is the server's clock (heartbeat answers carry it).
func (s *Server) Now() time.Time { return s.now().UTC() }

// SetClock makes the server read the time from now (tests).
func (s *Server) SetClock(now func() time.Time) { s.now = now }

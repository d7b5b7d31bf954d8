// Package kbsync is the installation's side of the shared knowledge base: it activates a
// licence, pulls published mappings (hourly, incrementally), pushes the mappings people
// confirmed (professional edition), and applies signed snapshots on air-gapped sites.
package kb

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
)

// Settings keys of the installation.
const (
	keyInstallationID = "installation_id"
	keyLicense        = "license"
	keyServerURL      = "license.server_url"
	keyPublicKey      = "license.public_key"
	keySnapshotSerial = "kb.snapshot_serial" // newest snapshot imported with kb import
	keySince          = "kb.since"
)

// Page is one pull response.
type Page struct {
	Mappings []Mapping
	Total    int
	HasMore  bool
}

// Credentials authenticate an installation at the licence server.
type Credentials struct {
	Bearer, InstallationID, Edition string
}

// Transport talks to the licence server (web implements it over HTTP).
type Transport interface {
	Activate(ctx context.Context, server, code, installationID string) (string, error)
	Pull(ctx context.Context, server string, cred Credentials, since time.Time, hasSince bool, offset, limit int) (Page, error)
	Push(ctx context.Context, server string, cred Credentials, ms []Mapping) error
}

// Status is what an admin sees of the sync.
type Status struct {
	Licensed       bool
	Edition        string
	ExpiresAt      time.Time
	ServerURL      string
	InstallationID string
	LastPull       time.Time
	LastPush       time.Time
	Pulled         int
	Pushed         int
	LastError      string
	LastErrorAt    time.Time
	NextAttempt    time.Time
}

// Client runs the installation's KB sync.
type Client struct {
	store     Store
	transport Transport
	opts      licensing.Options
	log       *slog.Logger
	now       func() time.Time

	mu     sync.Mutex
	status Status
}

// NewClient builds the client; opts carries the pinned key and the sync interval.
func NewClient(store Store, transport Transport, opts licensing.Options, log *slog.Logger) *Client {
	return &Client{store: store, transport: transport, opts: opts, log: log, now: time.Now}
}

// InstallationID returns this installation's ID, creating it once.
func (c *Client) InstallationID(ctx context.Context) (string, error) {
	id, err := c.store.Setting(ctx, keyInstallationID)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, appliance.ErrNotFound) {
		return "", err
	}
	raw := make([]byte, 12)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	id = "inst-" + hex.EncodeToString(raw)
	err = c.store.InTx(ctx, func(tx appliance.Tx) error { return tx.SetSetting(ctx, keyInstallationID, id) })
	return id, err
}

// Activate turns an activation code into a licence and stores it with the server URL and,
// when given, the pinned public key the licence must verify against.
func (c *Client) Activate(ctx context.Context, server, code, publicKey string) (licensing.Payload, error) {
	server = strings.TrimRight(strings.TrimSpace(server), "/")
	if server == "" {
		return licensing.Payload{}, appliance.Invalid("server", "required", "the licence server URL is required")
	}
	id, err := c.InstallationID(ctx)
	if err != nil {
		return licensing.Payload{}, err
	}
	text, err := c.transport.Activate(ctx, server, code, id)
	if err != nil {
		return licensing.Payload{}, err
	}
	p, err := c.readLicense(text, publicKey)
	if err != nil {
		return licensing.Payload{}, err
	}
	if p.InstallationID != id {
		return licensing.Payload{}, fmt.Errorf("the licence server answered a licence for %q, not this installation %q", p.InstallationID, id)
	}
	err = c.store.InTx(ctx, func(tx appliance.Tx) error {
		for k, v := range map[string]string{keyLicense: text, keyServerURL: server, keyPublicKey: strings.TrimSpace(publicKey)} {
			if v == "" {
				continue
			}
			if err := tx.SetSetting(ctx, k, v); err != nil {
				return err
			}
		}
		return nil
	})
	return p, err
}

// readLicense verifies the licence against the pinned key when there is one; without a key
// it only reads the payload (the server still checks the credential on every call).
func (c *Client) readLicense(text, publicKey string) (licensing.Payload, error) {
	if publicKey = strings.TrimSpace(publicKey); publicKey != "" {
		pub, err := licensing.ParsePublicKey(publicKey)
		if err != nil {
			return licensing.Payload{}, err
		}
		return licensing.Verify(pub, text)
	}
	raw, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(raw) <= ed25519.SignatureSize {
		return licensing.Payload{}, fmt.Errorf("malformed licence")
	}
	var p licensing.Payload
	if err := json.Unmarshal(raw[ed25519.SignatureSize:], &p); err != nil {
		return licensing.Payload{}, fmt.Errorf("malformed licence: %w", err)
	}
	return p, nil
}

// pinnedKey is the configured key, else the one stored at activation.
func (c *Client) pinnedKey(ctx context.Context) (string, error) {
	if c.opts.PublicKey != "" {
		return c.opts.PublicKey, nil
	}
	k, err := c.store.Setting(ctx, keyPublicKey)
	if errors.Is(err, appliance.ErrNotFound) {
		return "", nil
	}
	return k, err
}

// licence loads the stored licence; ok is false when the installation has none.
func (c *Client) licence(ctx context.Context) (licensing.Payload, Credentials, string, bool, error) {
	text, err := c.store.Setting(ctx, keyLicense)
	if errors.Is(err, appliance.ErrNotFound) {
		return licensing.Payload{}, Credentials{}, "", false, nil
	}
	if err != nil {
		return licensing.Payload{}, Credentials{}, "", false, err
	}
	key, err := c.pinnedKey(ctx)
	if err != nil {
		return licensing.Payload{}, Credentials{}, "", false, err
	}
	p, err := c.readLicense(text, key)
	if err != nil {
		return licensing.Payload{}, Credentials{}, "", false, fmt.Errorf("stored licence: %w", err)
	}
	server := c.opts.ServerURL
	if server == "" {
		if server, err = c.store.Setting(ctx, keyServerURL); err != nil && !errors.Is(err, appliance.ErrNotFound) {
			return licensing.Payload{}, Credentials{}, "", false, err
		}
	}
	cred := Credentials{Bearer: licensing.Credential(text), InstallationID: p.InstallationID, Edition: string(p.Edition)}
	return p, cred, server, true, nil
}

// Status reports the licence and the sync state.
func (c *Client) Status(ctx context.Context) (Status, error) {
	p, _, server, ok, err := c.licence(ctx)
	if err != nil {
		return Status{}, err
	}
	id, err := c.InstallationID(ctx)
	if err != nil {
		return Status{}, err
	}
	c.mu.Lock()
	st := c.status
	c.mu.Unlock()
	st.Licensed, st.InstallationID, st.ServerURL = ok, id, server
	if ok {
		st.Edition, st.ExpiresAt = string(p.Edition), p.ExpiresAt
	}
	return st, nil
}

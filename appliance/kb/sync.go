package kb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
)

// pageLimit is what one pull asks for (the server's maximum).
const pageLimit = 50000

// ErrNoLicence says the installation has no licence: there is nothing to sync with.
var ErrNoLicence = appliance.NotFound("no licence: run vulnkeeper license activate first (or use kb import with a signed snapshot)")

// Sync pulls every mapping published since the last sync and applies it, then pushes the
// mappings people confirmed (professional edition only). It records the outcome.
func (c *Client) Sync(ctx context.Context) error {
	p, cred, server, ok, err := c.licence(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNoLicence
	}
	if server == "" {
		return c.fail(errors.New("no licence server URL: set license.server_url or run license activate"))
	}
	if !c.now().Before(p.ExpiresAt) {
		return c.fail(fmt.Errorf("the licence expired at %s", p.ExpiresAt.Format(time.RFC3339)))
	}
	n, err := c.pull(ctx, server, cred)
	if err != nil {
		return c.fail(fmt.Errorf("pull: %w", err))
	}
	c.record(func(s *Status) { s.LastPull, s.Pulled = c.now().UTC(), s.Pulled+n })
	if p.Edition != appliance.EditionProfessional {
		return nil
	}
	pushed, err := c.push(ctx, server, cred)
	if err != nil {
		return c.fail(fmt.Errorf("push: %w", err))
	}
	c.record(func(s *Status) { s.LastPush, s.Pushed = c.now().UTC(), s.Pushed+pushed })
	return nil
}

func (c *Client) pull(ctx context.Context, server string, cred Credentials) (int, error) {
	sinceText, err := c.store.Setting(ctx, keySince)
	if err != nil && !errors.Is(err, appliance.ErrNotFound) {
		return 0, err
	}
	var since time.Time
	hasSince := sinceText != ""
	if hasSince {
		if since, err = time.Parse(time.RFC3339Nano, sinceText); err != nil {
			hasSince = false
		}
	}
	total := 0
	for offset := 0; ; {
		page, err := c.transport.Pull(ctx, server, cred, since, hasSince, offset, pageLimit)
		if err != nil {
			return total, err
		}
		if err := c.Apply(ctx, page.Mappings); err != nil {
			return total, err
		}
		total += len(page.Mappings)
		offset += len(page.Mappings)
		if !page.HasMore || len(page.Mappings) == 0 {
			return total, nil
		}
	}
}

// Apply stores pulled mappings in one transaction: curated and community ones become KB
// mappings used by resolution, nvd ones catalogue identities; retracted ones are deleted.
// The newest updated_at becomes the next pull's since.
func (c *Client) Apply(ctx context.Context, ms []Mapping) error {
	if len(ms) == 0 {
		return nil
	}
	return c.apply(ctx, ms, nil)
}

// apply writes ms and then runs also (when given) in the same transaction.
func (c *Client) apply(ctx context.Context, ms []Mapping, also func(appliance.Tx) error) error {
	now := c.now().UTC()
	return c.store.InTx(ctx, func(tx appliance.Tx) error {
		if also != nil {
			if err := also(tx); err != nil {
				return err
			}
		}
		var newest time.Time
		kb, cat := false, false
		for _, m := range ms {
			changed, isCatalog, err := applyOne(ctx, tx, m, now)
			if err != nil {
				return err
			}
			kb, cat = kb || (changed && !isCatalog), cat || (changed && isCatalog)
			if m.UpdatedAt.After(newest) {
				newest = m.UpdatedAt
			}
		}
		if err := bump(ctx, tx, kb, appliance.GenerationKB); err != nil {
			return err
		}
		if err := bump(ctx, tx, cat, appliance.GenerationCatalog); err != nil {
			return err
		}
		if len(ms) == 0 {
			return nil
		}
		return tx.SetSetting(ctx, keySince, newest.UTC().Format(time.RFC3339Nano))
	})
}

func bump(ctx context.Context, tx appliance.Tx, changed bool, name string) error {
	if !changed {
		return nil
	}
	_, err := tx.BumpGeneration(ctx, name)
	return err
}

func applyOne(ctx context.Context, tx appliance.Tx, m Mapping, now time.Time) (changed, isCatalog bool, err error) {
	if m.Source == appliance.SourceNVD {
		if m.Retracted {
			return false, true, nil
		}
		part := m.Part
		if part == "" {
			part = "a"
		}
		e := appliance.CatalogEntry{Identity: appliance.Identity{Part: part, Vendor: strings.ToLower(m.CPEVendor), Product: strings.ToLower(m.CPEProduct)}, Source: string(appliance.SourceNVD)}
		return true, true, tx.UpsertCatalogEntry(ctx, e, now)
	}
	if m.Source != appliance.SourceCommunity && m.Source != appliance.SourceCurated {
		return false, false, nil // a source this version does not know
	}
	lm := Mapping{VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern, CPEVendor: m.CPEVendor, CPEProduct: m.CPEProduct}
	key := TupleKey(lm.Trimmed())
	if m.Retracted {
		row, err := tx.KBMappingByTuple(ctx, m.Source, key)
		if errors.Is(err, appliance.ErrNotFound) {
			return false, false, nil
		}
		if err != nil {
			return false, false, err
		}
		return true, false, tx.DeleteKBMapping(ctx, row.ID)
	}
	row := appliance.KBMapping{Source: m.Source, VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern,
		CPEVendor: strings.ToLower(m.CPEVendor), CPEProduct: strings.ToLower(m.CPEProduct), TupleKey: key,
		Confidence: min(max(m.ConfidenceValue(), 0), 1), Published: true, CreatedAt: now, UpdatedAt: now}
	_, err = tx.UpsertKBMapping(ctx, row)
	return true, false, err
}

// push sends the overrides not pushed yet, at most MaxPushMappings a request.
func (c *Client) push(ctx context.Context, server string, cred Credentials) (int, error) {
	pending, err := c.store.PendingOverrides(ctx, MaxPushMappings)
	if err != nil || len(pending) == 0 {
		return 0, err
	}
	one := 1.0
	ms := make([]Mapping, 0, len(pending))
	for _, o := range pending {
		ms = append(ms, Mapping{VendorPattern: o.ReportedVendor, ProductPattern: o.ReportedName,
			CPEVendor: o.Identity.Vendor, CPEProduct: o.Identity.Product, Confidence: &one})
	}
	if err := c.transport.Push(ctx, server, cred, ms); err != nil {
		return 0, err
	}
	at := c.now().UTC()
	return len(ms), c.store.InTx(ctx, func(tx appliance.Tx) error { return tx.MarkOverridesPushed(ctx, pending, at) })
}

// ImportSnapshot verifies a signed snapshot against the pinned key and applies it like a
// pull; a tampered or unsigned file changes nothing.
func (c *Client) ImportSnapshot(ctx context.Context, r io.Reader, publicKey string) (int, error) {
	if publicKey == "" {
		k, err := c.pinnedKey(ctx)
		if err != nil {
			return 0, err
		}
		publicKey = k
	}
	if publicKey == "" {
		return 0, appliance.Invalid("public_key", "required", "no licence server public key is pinned: pass --public-key or set license.public_key")
	}
	pub, err := licensing.ParsePublicKey(publicKey)
	if err != nil {
		return 0, err
	}
	snap, err := ReadSnapshot(r, pub)
	if err != nil {
		return 0, err
	}
	held, err := c.heldSnapshotSerial(ctx)
	if err != nil {
		return 0, err
	}
	if snap.Serial < held {
		return 0, appliance.Conflict("snapshot %d is older than snapshot %d, which this installation already imported", snap.Serial, held)
	}
	ms := snap.Mappings
	return len(ms), c.apply(ctx, ms, func(tx appliance.Tx) error {
		return tx.SetSetting(ctx, keySnapshotSerial, strconv.FormatUint(snap.Serial, 10))
	})
}

// heldSnapshotSerial is the serial of the newest snapshot imported here (0: none).
func (c *Client) heldSnapshotSerial(ctx context.Context) (uint64, error) {
	v, err := c.store.Setting(ctx, keySnapshotSerial)
	if errors.Is(err, appliance.ErrNotFound) || err == nil && v == "" {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(v, 10, 64)
}

func (c *Client) fail(err error) error {
	c.record(func(s *Status) { s.LastError, s.LastErrorAt = err.Error(), c.now().UTC() })
	return err
}

func (c *Client) record(fn func(*Status)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn(&c.status)
}

// Run syncs every interval until ctx ends; after a failure it retries sooner, backing off
// from one minute up to the interval. onChange runs after a sync that applied anything.
func (c *Client) Run(ctx context.Context, onChange func(context.Context)) {
	interval := c.opts.SyncInterval
	if interval <= 0 {
		interval = time.Hour
	}
	backoff := time.Minute
	wait := time.Duration(0)
	for {
		c.record(func(s *Status) { s.NextAttempt = c.now().Add(wait).UTC() })
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		before := c.status.Pulled
		err := c.Sync(ctx)
		if errors.Is(err, ErrNoLicence) { // unlicensed: look again later, quietly
			wait = interval
			continue
		}
		if err != nil {
			c.log.Warn("knowledge base sync failed", slog.Any("error", err), slog.Duration("retry_in", backoff))
			wait, backoff = backoff, min(2*backoff, interval)
			continue
		}
		wait, backoff = interval, time.Minute
		if c.status.Pulled != before && onChange != nil {
			onChange(ctx)
		}
	}
}

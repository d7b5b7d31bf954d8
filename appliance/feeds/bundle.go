package feeds

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
)

// A feed bundle carries a connected installation's vulnerability data (CVEs and their
// removals, KEV, EPSS, advisories, the catalogue entries they name) to an air-gapped one. It
// is a licensing.BundleFile: the signed gzip of the JSON lines described in bundle_wire.go.
// Serials grow with every bundle written; a bundle made with a base serial carries only what
// was written since that bundle was made. The importing side records the serial it holds as
// the "bundle" source's cursor, refuses a serial not newer than it, and a bundle whose base
// is newer than what it holds (a bundle in between is missing).

const (
	bundleFormat  = "vulnkeeper-feed-bundle"
	bundleVersion = 1
	// SourceBundle is the feed state an air-gapped installation keeps for imported bundles.
	SourceBundle = "bundle"
)

// BundleSummary counts what a bundle carries.
type BundleSummary struct {
	Serial, Since                           int64
	Catalog, Removed, CVEs, KEV, EPSS, Advs int
}

// Records is the number of records of every kind.
func (s BundleSummary) Records() int {
	return s.Catalog + s.Removed + s.CVEs + s.KEV + s.EPSS + s.Advs
}

// Bundler writes bundles on a connected installation and imports them on an air-gapped one.
type Bundler struct {
	store appliance.Store
	Now   func() time.Time
}

// NewBundler builds a bundler over the store.
func NewBundler(store appliance.Store) *Bundler {
	return &Bundler{store: store, Now: time.Now}
}

// Write writes to w a bundle of everything written since bundle since (everything when 0),
// signed with priv. The content is read in a write transaction, so no import slips between
// it and the moment recorded for the next bundle.
func (b *Bundler) Write(ctx context.Context, w io.Writer, priv ed25519.PrivateKey, since int64) (BundleSummary, error) {
	var body bytes.Buffer
	var sum BundleSummary
	err := b.store.InTx(ctx, func(tx appliance.Tx) error {
		body.Reset()
		var from time.Time
		if since > 0 {
			base, err := tx.FeedBundle(ctx, since)
			if err != nil {
				return err
			}
			from = base.CreatedAt
		}
		rec, err := tx.CreateFeedBundle(ctx, since, b.Now().UTC())
		if err != nil {
			return fmt.Errorf("record bundle: %w", err)
		}
		sum, err = encodeBundle(ctx, tx, &body, rec, from)
		return err
	})
	if err != nil {
		return BundleSummary{}, err
	}
	return sum, licensing.WriteSignedFile(w, licensing.BundleFile, priv, body.Bytes())
}

// encodeBundle writes the bundle body of rec: the rows of r written at or after from.
func encodeBundle(ctx context.Context, r appliance.BundleReader, w io.Writer, rec appliance.FeedBundle, from time.Time) (BundleSummary, error) {
	sum := BundleSummary{Serial: rec.Serial, Since: rec.Since}
	gz := gzip.NewWriter(w)
	enc := json.NewEncoder(gz)
	if err := enc.Encode(bundlePreamble{bundleFormat, bundleVersion, rec.Serial, rec.Since, rec.CreatedAt}); err != nil {
		return sum, fmt.Errorf("encode bundle: %w", err)
	}
	line := func(n *int, l bundleLine) error { *n++; return enc.Encode(l) }
	steps := []func() error{
		func() error {
			return r.EachChangedCatalogEntry(ctx, from, func(e appliance.CatalogEntry) error { return line(&sum.Catalog, catalogLine(e)) })
		},
		func() error {
			return r.EachCVERemoval(ctx, from, func(id string) error { return line(&sum.Removed, bundleLine{Removed: id}) })
		},
		func() error {
			return r.EachChangedCVE(ctx, from, func(c appliance.CVERecord) error { return line(&sum.CVEs, cveLine(c)) })
		},
		func() error {
			return r.EachChangedKEV(ctx, from, func(k appliance.KEVRecord) error { return line(&sum.KEV, kevLine(k)) })
		},
		func() error {
			return r.EachChangedEPSS(ctx, from, func(s appliance.EPSSScore) error { return line(&sum.EPSS, epssLine(s)) })
		},
		func() error {
			return r.EachChangedAdvisory(ctx, from, func(e appliance.AdvisoryEntry) error { return line(&sum.Advs, advisoryLine(e)) })
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return sum, fmt.Errorf("encode bundle: %w", err)
		}
	}
	if err := gz.Close(); err != nil {
		return sum, fmt.Errorf("compress bundle: %w", err)
	}
	return sum, nil
}

// Import verifies a bundle with pub and applies it in one transaction. A file that fails the
// signature check, a serial not newer than the one held, or a bundle that continues one this
// installation has not imported changes nothing.
func (b *Bundler) Import(ctx context.Context, r io.Reader, pub ed25519.PublicKey) (BundleSummary, error) {
	body, err := licensing.ReadSignedFile(r, licensing.BundleFile, pub)
	if err != nil {
		return BundleSummary{}, err
	}
	var sum BundleSummary
	err = b.store.InTx(ctx, func(tx appliance.Tx) error {
		imp := &bundleImport{tx: tx, at: b.Now().UTC()}
		if err := imp.run(ctx, bytes.NewReader(body)); err != nil {
			return err
		}
		sum = imp.sum
		return imp.finish(ctx)
	})
	return sum, err
}

// bundleImport is the application of one bundle inside its transaction.
type bundleImport struct {
	tx   appliance.Tx
	at   time.Time
	sum  BundleSummary
	held appliance.FeedState
}

func (imp *bundleImport) run(ctx context.Context, body io.Reader) error {
	gz, err := gzip.NewReader(body)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	dec := json.NewDecoder(gz)
	var pre bundlePreamble
	if err := dec.Decode(&pre); err != nil {
		return fmt.Errorf("bundle preamble: %w", err)
	}
	if err := imp.admit(ctx, pre); err != nil {
		return err
	}
	for {
		var l bundleLine
		err := dec.Decode(&l)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("bundle record %d: %w", imp.sum.Records()+1, err)
		}
		if err := imp.apply(ctx, l); err != nil {
			return err
		}
	}
}

// admit checks the preamble against the serial this installation holds.
func (imp *bundleImport) admit(ctx context.Context, pre bundlePreamble) error {
	if pre.Format != bundleFormat || pre.Version != bundleVersion {
		return appliance.Invalid("file", "format", "not a version %d feed bundle (%q version %d)", bundleVersion, pre.Format, pre.Version)
	}
	st, err := imp.tx.FeedState(ctx, SourceBundle)
	if err != nil {
		return err
	}
	held, _ := strconv.ParseInt(st.Cursor, 10, 64)
	switch {
	case pre.Serial <= held:
		return appliance.Conflict("bundle %d is not newer than bundle %d, imported already", pre.Serial, held)
	case pre.Since > held:
		return appliance.Conflict("bundle %d carries what changed since bundle %d, but this installation holds bundle %d: import the bundles in between (or a full bundle) first", pre.Serial, pre.Since, held)
	}
	imp.held, imp.sum.Serial, imp.sum.Since = st, pre.Serial, pre.Since
	return nil
}

func (imp *bundleImport) apply(ctx context.Context, l bundleLine) error {
	tx, s := imp.tx, &imp.sum
	switch {
	case l.Catalog != nil:
		s.Catalog++
		return tx.UpsertCatalogEntry(ctx, l.Catalog.entry(), imp.at)
	case l.Removed != "":
		s.Removed++
		return tx.DeleteCVE(ctx, l.Removed)
	case l.CVE != nil:
		s.CVEs++
		return tx.UpsertCVE(ctx, l.CVE.record(), imp.at)
	case l.KEV != nil:
		s.KEV++
		return tx.UpsertKEV(ctx, l.KEV.record())
	case l.EPSS != nil:
		s.EPSS++
		return tx.UpsertEPSS(ctx, l.EPSS.score())
	case l.Advisory != nil:
		s.Advs++
		_, err := tx.UpsertAdvisoryEntry(ctx, l.Advisory.entry(), imp.at)
		return err
	}
	return appliance.Invalid("file", "format", "bundle record %d is of no known kind", s.Records()+1)
}

// finish bumps the change counters a running server watches and records the serial held.
func (imp *bundleImport) finish(ctx context.Context) error {
	s := imp.sum
	if s.Removed+s.CVEs+s.KEV+s.Advs > 0 {
		if _, err := imp.tx.BumpGeneration(ctx, appliance.GenerationCVE); err != nil {
			return err
		}
	}
	if s.Catalog > 0 {
		if _, err := imp.tx.BumpGeneration(ctx, appliance.GenerationCatalog); err != nil {
			return err
		}
	}
	st := imp.held
	st.LastAttempt, st.LastSuccess, st.Records, st.LastError = imp.at, imp.at, s.Records(), ""
	st.Cursor = strconv.FormatInt(s.Serial, 10)
	return imp.tx.SaveFeedState(ctx, st)
}

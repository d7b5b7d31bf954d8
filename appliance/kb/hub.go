package kb

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
)

// Hub is the licence server's side of the knowledge base: installations' contributions and
// their publication, pulls, operator curation and signed snapshots for air-gapped sites.
// Store is what the KB services read (licences, mappings, settings), and the transaction they
// write in.
type Store interface {
	appliance.LicenseReader
	appliance.Transactor
}

type Hub struct {
	store Store
	key   ed25519.PrivateKey
	now   func() time.Time
}

// NewHub builds the KB service of a licence server; key signs snapshots.
func NewHub(store Store, key ed25519.PrivateKey) *Hub {
	return &Hub{store: store, key: key, now: time.Now}
}

// SetClock makes the hub read the time from now (tests).
func (s *Hub) SetClock(now func() time.Time) { s.now = now }

// Push records an installation's confirmed mappings. Each installation counts once per
// tuple; a community mapping is published once installations of PublishThreshold different
// customers agree (see Voice).
func (s *Hub) Push(ctx context.Context, who licensing.Licensee, bodyInstallation, editionHeader string, ms []Mapping) (int, error) {
	if who.Expired {
		return 0, licensing.ErrExpired
	}
	if who.License.Edition != appliance.EditionProfessional || !strings.EqualFold(strings.TrimSpace(editionHeader), string(appliance.EditionProfessional)) {
		return 0, appliance.Forbidden("pushing mappings needs a professional licence and X-Edition: professional")
	}
	if bodyInstallation != who.License.InstallationID {
		return 0, appliance.Invalid("installation_id", "match", "installation_id must equal the X-Installation-ID header")
	}
	if err := ValidatePush(bodyInstallation, ms); err != nil {
		return 0, err
	}
	now := s.now().UTC()
	err := s.store.InTx(ctx, func(tx appliance.Tx) error {
		seen := map[string]bool{}
		for _, m := range ms {
			m = m.Trimmed()
			key := TupleKey(m)
			if seen[key] {
				continue
			}
			seen[key] = true
			if err := s.contribute(ctx, tx, m, key, who.License, now); err != nil {
				return err
			}
		}
		return nil
	})
	return len(ms), err
}

// Voice is who a contribution speaks for: the licence's customer, so one customer's several
// installations (or activation codes) count once towards publication; a licence that names no
// customer speaks for its installation alone.
func Voice(l appliance.License) string {
	if c := strings.ToLower(strings.TrimSpace(l.Customer)); c != "" {
		return "customer:" + c
	}
	return "installation:" + l.InstallationID
}

func (s *Hub) contribute(ctx context.Context, tx appliance.Tx, m Mapping, key string, who appliance.License, now time.Time) error {
	row, err := tx.KBMappingByTuple(ctx, appliance.SourceCommunity, key)
	if errors.Is(err, appliance.ErrNotFound) {
		row = appliance.KBMapping{Source: appliance.SourceCommunity, VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern,
			CPEVendor: strings.ToLower(m.CPEVendor), CPEProduct: strings.ToLower(m.CPEProduct), TupleKey: key, CreatedAt: now}
	} else if err != nil {
		return err
	}
	conf := CapConfidence(m.Confidence)
	if row.ID == 0 {
		row.Confidence, row.UpdatedAt = conf, now
		if row.ID, err = tx.UpsertKBMapping(ctx, row); err != nil {
			return err
		}
	}
	fresh, voices, err := tx.AddContribution(ctx, row.ID, who.InstallationID, Voice(who), conf, now)
	if err != nil || !fresh {
		return err
	}
	// The community confidence is the mean of the contributions, never above the cap.
	row.Confidence = min((row.Confidence*float64(row.ContributionCount)+conf)/float64(row.ContributionCount+1), CommunityConfidenceCap)
	row.ContributionCount++
	row.Published = voices >= PublishThreshold && !row.Retracted
	row.UpdatedAt = now
	_, err = tx.UpsertKBMapping(ctx, row)
	return err
}

// MaxPullLimit is the most mappings one pull returns.
const MaxPullLimit = 50000

// Pull streams the published mappings a query selects; total counts them all.
func (s *Hub) Pull(ctx context.Context, who licensing.Licensee, q appliance.PullQuery, fn func(appliance.KBMapping) error) (int, error) {
	if who.Expired {
		return 0, licensing.ErrExpired
	}
	switch q.Source {
	case "", appliance.SourceNVD, appliance.SourceCommunity, appliance.SourceCurated:
	default:
		return 0, appliance.Invalid("source", "enum", "source must be all, community, nvd or curated")
	}
	if q.Limit <= 0 || q.Limit > MaxPullLimit {
		q.Limit = MaxPullLimit
	}
	if q.Offset < 0 {
		return 0, appliance.Invalid("offset", "min", "offset must not be negative")
	}
	return s.store.PullMappings(ctx, q, fn)
}

// Curate adds (or updates) an operator-verified mapping, published at once.
func (s *Hub) Curate(ctx context.Context, m Mapping) error {
	if err := ValidatePush("operator", []Mapping{m}); err != nil {
		return err
	}
	m = m.Trimmed()
	conf := 1.0
	if m.Confidence != nil {
		conf = *m.Confidence
	}
	now := s.now().UTC()
	row := appliance.KBMapping{Source: appliance.SourceCurated, VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern,
		CPEVendor: strings.ToLower(m.CPEVendor), CPEProduct: strings.ToLower(m.CPEProduct), TupleKey: TupleKey(m),
		Confidence: conf, Published: true, CreatedAt: now, UpdatedAt: now}
	return s.store.InTx(ctx, func(tx appliance.Tx) error {
		_, err := tx.UpsertKBMapping(ctx, row)
		return err
	})
}

// Withdraw unpublishes a curated or community mapping everywhere: it stays, marked retracted,
// so the next pull tells every installation to delete it.
func (s *Hub) Withdraw(ctx context.Context, source appliance.KBSource, m Mapping) error {
	key := TupleKey(m.Trimmed())
	return s.store.InTx(ctx, func(tx appliance.Tx) error {
		row, err := tx.KBMappingByTuple(ctx, source, key)
		if errors.Is(err, appliance.ErrNotFound) {
			return appliance.NotFound("no %s mapping %s/%s → %s:%s", source, m.VendorPattern, m.ProductPattern, m.CPEVendor, m.CPEProduct)
		}
		if err != nil {
			return err
		}
		row.Published, row.Retracted, row.UpdatedAt = false, true, s.now().UTC()
		_, err = tx.UpsertKBMapping(ctx, row)
		return err
	})
}

// Sources reports each KB source for operators.
func (s *Hub) Sources(ctx context.Context) ([]appliance.SourceStats, error) {
	return s.store.KBSourceStats(ctx)
}

// snapshotSerialKey holds the serial of the last snapshot this server signed.
const snapshotSerialKey = "kb.snapshot_serial"

// Export writes a signed snapshot of everything a pull without since would return, with the
// next serial (taken in its own transaction, so two exports never share one).
func (s *Hub) Export(ctx context.Context, w io.Writer) (int, error) {
	snap := Snapshot{CreatedAt: s.now().UTC()}
	err := s.store.InTx(ctx, func(tx appliance.Tx) error {
		last, err := tx.Setting(ctx, snapshotSerialKey)
		if err != nil && !errors.Is(err, appliance.ErrNotFound) {
			return err
		}
		prev, _ := strconv.ParseUint(last, 10, 64)
		snap.Serial = prev + 1
		return tx.SetSetting(ctx, snapshotSerialKey, strconv.FormatUint(snap.Serial, 10))
	})
	if err != nil {
		return 0, fmt.Errorf("take a snapshot serial: %w", err)
	}
	q := appliance.PullQuery{Limit: -1}
	_, err = s.store.PullMappings(ctx, q, func(m appliance.KBMapping) error {
		snap.Mappings = append(snap.Mappings, Published(m))
		return nil
	})
	if err != nil {
		return 0, err
	}
	return len(snap.Mappings), WriteSnapshot(w, s.key, snap)
}

// Published is a stored KB row as pulls and snapshots carry it.
func Published(m appliance.KBMapping) Mapping {
	return Mapping{VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern, CPEVendor: m.CPEVendor,
		CPEProduct: m.CPEProduct, Source: m.Source, Confidence: Conf(m.Confidence), UpdatedAt: m.UpdatedAt,
		Retracted: m.Retracted, Part: m.Part}
}

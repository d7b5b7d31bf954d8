package inventory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
)

// Service is the inventory, products and resolution-review API of the domain.
type Service struct {
	store  appliance.Store
	engine *Engine
	agent  appliance.AgentConfig
	log    *slog.Logger
	now    func() time.Time
	// afterChange runs after a commit that may have made findings disappear (remediation
	// closes the assignments whose finding is gone).
	afterChange func(context.Context)
	notifier    appliance.Notifier // nil: nobody is told
	products    productCache       // products as reconciliation last read them
}

// SetNotifier makes the service tell n after every change that may add or remove findings.
func (s *Service) SetNotifier(n appliance.Notifier) { s.notifier = n }

// OnFindingsChanged registers fn to run after inventories, re-matching and product changes.
func (s *Service) OnFindingsChanged(fn func(context.Context)) { s.afterChange = fn }

// findingsChanged runs the hook after a commit. The change is stored whether or not the
// client still waits, so the hook's context keeps the request's values but not its
// cancellation: a client that disconnects cannot leave assignments open.
func (s *Service) findingsChanged(ctx context.Context) {
	if s.afterChange != nil {
		s.afterChange(context.WithoutCancel(ctx))
	}
	if s.notifier != nil {
		s.notifier.FindingsChanged(context.WithoutCancel(ctx))
	}
}

// NewService builds the service over the store and a loaded engine.
func NewService(store appliance.Store, engine *Engine, agent appliance.AgentConfig, log *slog.Logger) *Service {
	return &Service{store: store, engine: engine, agent: agent, log: log, now: time.Now}
}

// Limits of inventory input.
const (
	MaxProductsPerReport = 10000
	maxHostname          = 255
	maxName              = 255
	maxVersion           = 128
	maxPath              = 1024
	maxShort             = 255
)

// cpeString is the product's CPE 2.3 formatted name including its version, "" while unresolved.
func cpeString(p appliance.Product) string {
	if !p.Identity.Resolved() {
		return ""
	}
	v, update := matchVersion(p)
	v = strings.ReplaceAll(v, " ", "_")
	n := cpe.Name{Part: p.Identity.Part, Vendor: p.Identity.Vendor, Product: p.Identity.Product, Version: v, Update: update}
	return n.String()
}

// CPE is the formatted CPE name of p (empty while unresolved).
func CPE(p appliance.Product) string { return cpeString(p) }

// rematch recomputes one product's matches within tx and records the CVE generation.
func (s *Service) rematch(ctx context.Context, tx appliance.Tx, p appliance.Product) (int, error) {
	removed, err := tx.ReplaceMatches(ctx, p.ID, s.engine.match(p), s.engine.CVEGeneration(), s.now().UTC())
	if err != nil {
		return 0, fmt.Errorf("store matches of product %d: %w", p.ID, err)
	}
	return removed, nil
}

// RematchStale brings every product whose matches predate the current CVE data up to date,
// in batches of one transaction each, and returns how many stale matches it removed.
func (s *Service) RematchStale(ctx context.Context) (products, removed int, err error) {
	gen := s.engine.CVEGeneration()
	var after int64
	for {
		batch, err := s.store.ProductsToMatch(ctx, gen, after, 500)
		if err != nil || len(batch) == 0 {
			return products, removed, err
		}
		err = s.store.InTx(ctx, func(tx appliance.Tx) error {
			for _, p := range batch {
				n, err := s.rematch(ctx, tx, p)
				if err != nil {
					return err
				}
				removed += n
			}
			return nil
		})
		if err != nil {
			return products, removed, err
		}
		products += len(batch)
		after = batch[len(batch)-1].ID
	}
}

// ReresolveUnresolved tries the unresolved products again (after a catalogue or KB change)
// and matches the ones that now resolve. Resolution reads the candidate index, so each batch
// is resolved first and written after, in one transaction that skips what changed meanwhile.
func (s *Service) ReresolveUnresolved(ctx context.Context) (int, error) {
	var after int64
	resolved := 0
	for {
		batch, err := s.store.UnresolvedProducts(ctx, after, 500)
		if err != nil || len(batch) == 0 {
			return resolved, err
		}
		found := make(map[int64]resolution, len(batch))
		for _, p := range batch {
			res, err := s.engine.resolve(ctx, s.store, p.OrganizationID, p.Vendor, p.Name)
			if err != nil {
				return resolved, err
			}
			if res.identity.Resolved() {
				found[p.ID] = res
			}
		}
		err = s.store.InTx(ctx, func(tx appliance.Tx) error {
			for _, p := range batch {
				res, ok := found[p.ID]
				if !ok {
					continue
				}
				now, err := tx.ProductByID(ctx, p.OrganizationID, p.ID)
				if errors.Is(err, appliance.ErrNotFound) || (err == nil && (now.Resolution != appliance.ResolutionUnresolved ||
					now.Vendor != p.Vendor || now.Name != p.Name)) {
					continue // deleted, renamed or resolved meanwhile
				}
				if err != nil {
					return err
				}
				if err := s.applyResolution(ctx, tx, now, res); err != nil {
					return err
				}
				resolved++
			}
			return nil
		})
		if err != nil {
			return resolved, err
		}
		after = batch[len(batch)-1].ID
	}
}

// applyResolution stores a new identity on p and recomputes its matches.
func (s *Service) applyResolution(ctx context.Context, tx appliance.Tx, p appliance.Product, res resolution) error {
	p.Identity, p.Resolution, p.ResolutionConfidence = res.identity, res.method, res.confidence
	p.UpdatedAt = s.now().UTC()
	if err := tx.UpdateProduct(ctx, p); err != nil {
		return err
	}
	_, err := s.rematch(ctx, tx, p)
	return err
}

// Refresh rebuilds the engine from the store when imports changed it, then brings stored
// resolutions and matches up to date.
func (s *Service) Refresh(ctx context.Context) error {
	catChanged, cveChanged, err := s.engine.Load(ctx)
	if err != nil {
		return err
	}
	if catChanged {
		n, err := s.ReresolveUnresolved(ctx)
		if err != nil {
			return fmt.Errorf("re-resolve: %w", err)
		}
		if n > 0 {
			s.log.Info("products resolved after a catalogue change", slog.Int("products", n))
		}
	}
	if cveChanged || catChanged {
		n, removed, err := s.RematchStale(ctx)
		if err != nil {
			return fmt.Errorf("re-match: %w", err)
		}
		if n > 0 {
			s.log.Info("products re-matched", slog.Int("products", n), slog.Int("stale_matches_removed", removed))
			s.findingsChanged(ctx)
		}
	}
	return nil
}

// AgentConfig is what agents are told to do.
func (s *Service) AgentConfig() appliance.AgentConfig { return s.agent }

// Heartbeat records that an agent is alive; an unknown host is created.
func (s *Service) Heartbeat(ctx context.Context, orgID int64, hostname, agentVersion, ip string) (int64, error) {
	hostname = appliance.NormalizeHostname(hostname)
	if err := checkLen("hostname", hostname, 1, maxHostname); err != nil {
		return 0, err
	}
	if err := checkLen("agent_version", agentVersion, 0, maxShort); err != nil {
		return 0, err
	}
	var id int64
	now := s.now().UTC()
	err := s.store.InTx(ctx, func(tx appliance.Tx) error {
		a, err := appliance.OwnedAsset(ctx, tx, orgID, hostname)
		if errors.Is(err, appliance.ErrNotFound) {
			a = appliance.Asset{OrganizationID: orgID, Hostname: hostname, IPAddress: ip, AgentVersion: agentVersion, CreatedAt: now, LastSeenAt: now}
			id, err = tx.CreateAsset(ctx, a)
			return err
		}
		if err != nil {
			return err
		}
		a.LastSeenAt = now
		if agentVersion != "" {
			a.AgentVersion = agentVersion
		}
		id = a.ID
		return tx.UpdateAsset(ctx, a)
	})
	return id, err
}

func checkLen(field, v string, min, max int) error {
	n := len([]rune(v))
	if n < min {
		if min == 1 {
			return appliance.Invalid(field, "required", "%s is required", field)
		}
		return appliance.Invalid(field, "min_length", "%s must have at least %d characters", field, min)
	}
	if n > max {
		return appliance.Invalid(field, "max_length", "%s must have at most %d characters", field, max)
	}
	return nil
}

// Package inventory turns reported software into findings: it reconciles agents' inventories,
// resolves every reported (vendor, product) to a CPE identity, matches versions against the
// CVE data, and keeps products and their matches current when the data changes.
package inventory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/advisories"
	"github.com/vulnkeeper/vulnkeeper/appliance/matcher"
	"github.com/vulnkeeper/vulnkeeper/appliance/nvd"
	"github.com/vulnkeeper/vulnkeeper/appliance/resolve"
)

// CandidateIndex is the fuzzy candidate index (kbindex) as resolution needs it.
type CandidateIndex interface {
	resolve.CandidateSource
	Rebuild(ctx context.Context, identities []appliance.CatalogEntry) error
}

// Engine holds the derived, in-memory state: the resolver over the catalogue and the match
// index over the CVE data, each tagged with the store generation it was built from.
type Engine struct {
	store    appliance.Store
	index    CandidateIndex
	resolver *resolve.Resolver
	log      *slog.Logger

	kb         *kbSource
	shared     sharedCache
	matcher    atomic.Pointer[matcher.Index]
	advisories atomic.Pointer[advisories.Index]
	cveGen     atomic.Int64
	catalogGen atomic.Int64
	kbGen      atomic.Int64
	refreshMu  sync.Mutex
}

// NewEngine builds an engine; Load fills it.
func NewEngine(store appliance.Store, index CandidateIndex, log *slog.Logger) *Engine {
	e := &Engine{store: store, index: index, log: log, kb: &kbSource{}}
	var cands resolve.CandidateSource
	if index != nil {
		cands = index
	}
	e.resolver = resolve.New(nil, cands, e.kb, resolve.Options{})
	e.matcher.Store(matcher.NewBuilder().Build())
	e.cveGen.Store(-1)
	e.catalogGen.Store(-1)
	e.kbGen.Store(-1)
	return e
}

// Resolver is the resolution policy over the current catalogue.
func (e *Engine) Resolver() *resolve.Resolver { return e.resolver }

// generations are the store generations the engine was loaded from.
func (e *Engine) generations() (catalog, kb, cve int64) {
	return e.catalogGen.Load(), e.kbGen.Load(), e.cveGen.Load()
}

// CVEGeneration is the generation of the CVE data the match index was built from.
func (e *Engine) CVEGeneration() int64 { return e.cveGen.Load() }

// Load (re)builds whatever is older than the store: the catalogue (resolver and candidate
// index), the KB mappings and the match index. It reports whether identities may resolve
// differently (catalogue or KB changed) and whether the CVE data changed.
func (e *Engine) Load(ctx context.Context) (catalogChanged, cveChanged bool, err error) {
	e.refreshMu.Lock()
	defer e.refreshMu.Unlock()
	catGen, err := e.store.Generation(ctx, appliance.GenerationCatalog)
	if err != nil {
		return false, false, err
	}
	if catGen != e.catalogGen.Load() {
		if err := e.loadCatalog(ctx); err != nil {
			return false, false, err
		}
		e.catalogGen.Store(catGen)
		catalogChanged = true
	}
	kbGen, err := e.store.Generation(ctx, appliance.GenerationKB)
	if err != nil {
		return false, false, err
	}
	if kbGen != e.kbGen.Load() {
		n, err := e.kb.load(ctx, e.store)
		if err != nil {
			return false, false, err
		}
		e.resolver.Invalidate()
		e.kbGen.Store(kbGen)
		catalogChanged = true // resolution answers may change: re-resolve the unresolved
		e.log.Info("KB mappings loaded", slog.Int("mappings", n))
	}
	cveGen, err := e.store.Generation(ctx, appliance.GenerationCVE)
	if err != nil {
		return catalogChanged, false, err
	}
	if cveGen != e.cveGen.Load() {
		if err := e.loadMatcher(ctx); err != nil {
			return catalogChanged, false, err
		}
		e.cveGen.Store(cveGen)
		cveChanged = true
	}
	return catalogChanged, cveChanged, nil
}

func (e *Engine) loadCatalog(ctx context.Context) error {
	start := time.Now()
	var ids []appliance.CatalogEntry
	err := e.store.EachCatalogEntry(ctx, func(c appliance.CatalogEntry) error {
		c.Source = "" // resolution reads whether CVE data uses an identity and its platform, never where it came from
		ids = append(ids, c)
		return nil
	})
	if err != nil {
		return fmt.Errorf("load catalogue: %w", err)
	}
	if e.index != nil {
		if err := e.index.Rebuild(ctx, ids); err != nil {
			return fmt.Errorf("build candidate index: %w", err)
		}
	}
	e.resolver.SetCatalog(resolve.NewCatalog(ids))
	e.log.Info("catalogue loaded", slog.Int("identities", len(ids)), slog.Duration("took", time.Since(start)))
	return nil
}

func (e *Engine) loadMatcher(ctx context.Context) error {
	start := time.Now()
	b := matcher.NewBuilder()
	err := e.store.EachCVEConfiguration(ctx, func(id string, raw []byte) error {
		cfgs, err := nvd.DecodeConfigurations(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		b.Add(id, cfgs)
		return nil
	})
	if err != nil {
		return fmt.Errorf("load CVE configurations: %w", err)
	}
	if err := e.loadAdvisories(ctx); err != nil {
		return err
	}
	ix := b.Build()
	e.matcher.Store(ix)
	st := ix.Stats()
	e.log.Info("match index built", slog.Int("cves", st.CVEs), slog.Int("criteria", st.Criteria),
		slog.Duration("took", time.Since(start)))
	return nil
}

// match returns the findings for a resolved product at its version.
func (e *Engine) match(p appliance.Product) []appliance.MatchInput {
	if p.Resolution == appliance.ResolutionNotTracked {
		return nil // the organization does not track it: no advisory nor CVE applies
	}
	if out, ok := e.matchPackage(p); ok {
		return out
	}
	if !p.Identity.Resolved() {
		return nil
	}
	aliases := append([]appliance.Identity{{Vendor: p.Identity.Vendor, Product: p.Identity.Product}}, e.aliases(p)...)
	version, update := matchVersion(p)
	found := e.matcher.Load().Match(matcher.Query{Part: p.Identity.Part, Aliases: aliases, Version: version, Update: update})
	out := make([]appliance.MatchInput, 0, len(found))
	for _, f := range found {
		finding := nvdRange
		finding.FixedVersion = f.FixedVersion
		out = append(out, appliance.MatchInput{CVEID: f.CVEID, Criteria: f.Criteria, Platform: f.Platform, Finding: finding})
	}
	return out
}

// aliases are the other spellings of p's identity that CVE data uses (the matcher checks them
// all; the product shows them).
func (e *Engine) aliases(p appliance.Product) []appliance.Identity {
	if !p.Identity.Resolved() {
		return nil
	}
	all := e.resolver.Aliases(p.Identity.Vendor, p.Identity.Product)
	if len(all) <= 1 {
		return nil
	}
	return all[1:] // the first is the identity itself
}

// orgOverrides answers resolution's first question from one organization's confirmed mappings.
type orgOverrides struct {
	store appliance.Reader
	orgID int64
}

func (o orgOverrides) Override(ctx context.Context, key resolve.Key) (appliance.Override, bool, error) {
	ov, err := o.store.OverrideFor(ctx, o.orgID, key.Vendor, key.Product)
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.Override{}, false, nil
	}
	return ov, err == nil, err
}

// resolution is what a product records of how its identity was found.
type resolution struct {
	identity   appliance.Identity
	method     appliance.ResolutionMethod
	confidence float64
}

// notTracked is the resolution of a name the organization does not track.
var notTracked = resolution{method: appliance.ResolutionNotTracked, confidence: 1}

// overrideMap holds the overrides of an inventory's pairs, read in advance.
type overrideMap map[[2]string]appliance.Override

// lookup finds the override of a reported pair.
func (m overrideMap) lookup(vendor, name string) (appliance.Override, bool) {
	if len(m) == 0 {
		return appliance.Override{}, false
	}
	k := resolve.Normalize(vendor, name)
	ov, ok := m[[2]string{k.Vendor, k.Product}]
	return ov, ok
}

// sharedCache keeps the organization-independent resolution of raw reported pairs, so an
// unchanged inventory does not normalize its names again; it empties when the resolver's
// generation moves (catalogue or KB changed).
type sharedCache struct {
	mu  sync.RWMutex
	gen uint64
	m   map[pairKey]resolution
}

const sharedCacheSize = 200000

// resolveShared resolves a pair without organization overrides, through the cache.
func (e *Engine) resolveShared(ctx context.Context, vendor, name string) (resolution, error) {
	gen := e.resolver.Generation()
	k := pairKey{vendor, name}
	e.shared.mu.RLock()
	res, ok := e.shared.m[k]
	fresh := e.shared.gen == gen
	e.shared.mu.RUnlock()
	if ok && fresh {
		return res, nil
	}
	res, err := e.resolveWith(ctx, nil, vendor, name)
	if err != nil {
		return resolution{}, err
	}
	e.shared.mu.Lock()
	if e.shared.gen != gen || len(e.shared.m) >= sharedCacheSize {
		e.shared.gen, e.shared.m = gen, make(map[pairKey]resolution)
	}
	e.shared.m[k] = res
	e.shared.mu.Unlock()
	return res, nil
}

func (e *Engine) resolve(ctx context.Context, r appliance.Reader, orgID int64, vendor, name string) (resolution, error) {
	return e.resolveWith(ctx, orgOverrides{store: r, orgID: orgID}, vendor, name)
}

func (e *Engine) resolveWith(ctx context.Context, org resolve.OverrideSource, vendor, name string) (resolution, error) {
	res, err := e.resolver.Resolve(ctx, org, vendor, name)
	if err != nil {
		return resolution{}, err
	}
	if res.Method == appliance.ResolutionNotTracked {
		return notTracked, nil
	}
	return resolutionOf(res), nil
}

// resolutionOf is the resolver's result as the inventory keeps it.
func resolutionOf(res resolve.Result) resolution {
	if res.Method == appliance.ResolutionUnresolved || res.Vendor == "" {
		return resolution{method: appliance.ResolutionUnresolved, confidence: res.Confidence}
	}
	return resolution{identity: appliance.Identity{Part: res.Part, Vendor: res.Vendor, Product: res.Product},
		method: res.Method, confidence: res.Confidence}
}

// withoutRefused leaves unresolved what the item's own facts rule out (resolve.Refuses): a
// fuzzy guess for a distribution package, an identity of another platform's packages.
func (e *Engine) withoutRefused(r resolution, vendor string, pkg appliance.PackageInfo) resolution {
	if r.method != appliance.ResolutionUnresolved && e.resolver.Refuses(vendor, r.identity, r.method, pkg) {
		return resolution{method: appliance.ResolutionUnresolved, confidence: r.confidence}
	}
	return r
}

package resolve

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Result is the identity chosen for a reported pair; Vendor and Product are empty when
// Method is "unresolved", and Candidates then lists the best guesses for review.
type Result struct {
	Part, Vendor, Product string
	Method                appliance.ResolutionMethod
	Confidence            float64
	Candidates            []Candidate
}

// Candidate is a possible identity with its score in [0, 1].
type Candidate struct {
	Part, Vendor, Product, Title string
	Score                        float64
}

// Mapping is a published KB answer for a normalized pair.
type Mapping struct {
	appliance.Identity
	Confidence float64
	Curated    bool
}

// OverrideSource returns the decision a person of the organization made for key: an
// identity, or that the organization does not track the name.
type OverrideSource interface {
	Override(ctx context.Context, key Key) (appliance.Override, bool, error)
}

// KBSource returns the published KB mappings for key, in any order.
type KBSource interface {
	Mappings(ctx context.Context, key Key) ([]Mapping, error)
}

// CandidateSource proposes up to n fuzzy candidates for a normalized pair (kbindex does).
type CandidateSource interface {
	Candidates(ctx context.Context, vendor, product string, n int) ([]Candidate, error)
}

// Options tunes fuzzy acceptance and the cache; zero fields take the defaults.
type Options struct {
	Threshold  float64 // minimum fuzzy score to accept (default 0.75)
	Margin     float64 // minimum lead over the best non-alias runner-up (default 0.08)
	Candidates int     // candidates asked of the index (default 30)
	CacheSize  int     // cached pairs before the cache is reset (default 100000)
}

func (o Options) withDefaults() Options {
	if o.Threshold == 0 {
		o.Threshold = 0.75
	}
	if o.Margin == 0 {
		o.Margin = 0.08
	}
	if o.Candidates == 0 {
		o.Candidates = 30
	}
	if o.CacheSize == 0 {
		o.CacheSize = 100000
	}
	return o
}

// Resolver applies the resolution policy. It is safe for concurrent use.
type Resolver struct {
	opts  Options
	index CandidateSource
	kb    KBSource

	mu         sync.RWMutex
	catalog    *Catalog
	generation uint64
	cache      map[cacheKey]Result
}

// New builds a Resolver over cat; index and kb may be nil (no fuzzy step, no KB step).
func New(cat *Catalog, index CandidateSource, kb KBSource, opts Options) *Resolver {
	if cat == nil {
		cat = NewCatalog(nil)
	}
	return &Resolver{opts: opts.withDefaults(), index: index, kb: kb, catalog: cat, cache: map[cacheKey]Result{}}
}

// SetCatalog replaces the catalogue and drops every cached result.
func (r *Resolver) SetCatalog(cat *Catalog) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.catalog = cat
	r.resetLocked()
}

// Invalidate drops every cached result; call it when KB mappings or the index change.
func (r *Resolver) Invalidate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resetLocked()
}

// Generation counts invalidations; results computed under an older one are not cached.
func (r *Resolver) Generation() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.generation
}

func (r *Resolver) resetLocked() {
	r.generation++
	r.cache = map[cacheKey]Result{}
}

// Resolve resolves one reported pair. org holds the organization's confirmed mappings and
// may be nil; its answers are never cached because they belong to one organization.
func (r *Resolver) Resolve(ctx context.Context, org OverrideSource, vendor, product string) (Result, error) {
	key := Normalize(vendor, product)
	if org != nil {
		ov, ok, err := org.Override(ctx, key)
		if err != nil {
			return Result{}, fmt.Errorf("resolve %q/%q: override: %w", vendor, product, err)
		}
		if ok && ov.NotTracked {
			return Result{Method: appliance.ResolutionNotTracked, Confidence: 1}, nil
		}
		if ok {
			return r.identified(ov.Identity.Pair(), appliance.ResolutionOverride, 1), nil
		}
	}
	ck := cacheKey{Key: key, fullVendor: fullVendor(vendor)}
	if res, ok := r.cached(ck); ok {
		return res, nil
	}
	gen, cat := r.snapshot()
	res, err := r.resolveShared(ctx, cat, key, ck.fullVendor)
	if err != nil {
		return Result{}, fmt.Errorf("resolve %q/%q: %w", vendor, product, err)
	}
	r.store(gen, ck, res)
	return res, nil
}

// resolveShared runs the organization-independent steps: exact, KB, fuzzy. The KB only fills
// gaps: a mapping pushed by others never replaces the catalogue's exact identity of a reported
// pair (a poisoned "OpenSSL Project/OpenSSL → evilcorp:notopenssl" would hide OpenSSL's CVEs).
func (r *Resolver) resolveShared(ctx context.Context, cat *Catalog, key Key, fullVendor string) (Result, error) {
	q := newQuery(cat, key, fullVendor)
	if onlyGenericWords(key) {
		// Nothing anchors such a name: any identity would be a guess. Candidates stay for review.
		res, err := r.fuzzy(ctx, q)
		return Result{Method: appliance.ResolutionUnresolved, Candidates: res.Candidates}, err
	}
	if res, ok := q.exact(); ok {
		return res, nil
	}
	if res, ok, err := r.fromKB(ctx, cat, key); err != nil || ok {
		return res, err
	}
	return r.fuzzy(ctx, q)
}

func (r *Resolver) fromKB(ctx context.Context, cat *Catalog, key Key) (Result, bool, error) {
	if r.kb == nil {
		return Result{}, false, nil
	}
	mappings, err := r.kb.Mappings(ctx, key)
	if err != nil || len(mappings) == 0 {
		return Result{}, false, err
	}
	sort.SliceStable(mappings, func(i, j int) bool {
		if mappings[i].Curated != mappings[j].Curated {
			return mappings[i].Curated
		}
		return mappings[i].Confidence > mappings[j].Confidence
	})
	best := mappings[0]
	return identifiedIn(cat, best.Identity, appliance.ResolutionKB, best.Confidence), true, nil
}

func (r *Resolver) identified(vp appliance.Identity, method appliance.ResolutionMethod, confidence float64) Result {
	_, cat := r.snapshot()
	return identifiedIn(cat, vp, method, confidence)
}

// identifiedIn fills the part from the catalogue; an identity it does not know is an
// application, the part nearly every reported program has.
func identifiedIn(cat *Catalog, vp appliance.Identity, method appliance.ResolutionMethod, confidence float64) Result {
	part := "a"
	if id, ok := cat.Lookup(vp.Vendor, vp.Product); ok {
		part = id.Part
	}
	return Result{Part: part, Vendor: vp.Vendor, Product: vp.Product, Method: method, Confidence: confidence}
}

func (r *Resolver) snapshot() (uint64, *Catalog) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.generation, r.catalog
}

// cacheKey adds the publisher with its legal words ("the_document_foundation"), which the
// exact step also tries, to the normalized pair.
type cacheKey struct {
	Key
	fullVendor string
}

func (r *Resolver) cached(key cacheKey) (Result, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	res, ok := r.cache[key]
	return res, ok
}

func (r *Resolver) store(gen uint64, key cacheKey, res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if gen != r.generation {
		return
	}
	if len(r.cache) >= r.opts.CacheSize {
		r.cache = map[cacheKey]Result{}
	}
	r.cache[key] = res
}

// onlyGenericWords reports a name without publisher whose every word is a generic word and
// that no reviewed synonym or alias group names. A hyphenated token is a package's name ("base-files"), not a
// phrase, and is not split.
func onlyGenericWords(key Key) bool {
	if key.Vendor != "" || key.Product == "" {
		return false
	}
	if _, ok := productSynonyms[key.Product]; ok || curatedProducts[key.Product] {
		return false // a reviewed name of a project (login is shadow's, file is file(1))
	}
	for _, w := range strings.Split(key.Product, "_") {
		if !genericWords[w] {
			return false
		}
	}
	return true
}

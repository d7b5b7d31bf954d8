package inventory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/criticality"
	"github.com/vulnkeeper/vulnkeeper/appliance/resolve"
)

// Report is one agent submission: the full current inventory of a host.
type Report struct {
	Hostname     string
	Kind         appliance.AssetKind // "" is a host
	FQDN         string
	IPAddress    string
	OSName       string
	OSVersion    string
	OSKernel     string
	OS           appliance.HostOS // os-release facts; inferred from OSName/OSVersion when absent
	AgentID      string
	AgentVersion string
	Items        []Item
	// HasProducts is false when the body carried no "products" key: nothing then changes.
	HasProducts bool
	Delta       bool
}

// Item is one reported product.
type Item struct {
	Vendor, Product, Version, Path string
	Package                        appliance.PackageInfo // as reported; Release and Inferred are the server's (packages.go)
}

// Summary counts what a reconciliation did.
type Summary struct {
	ProductsCreated      int
	ProductsUpdated      int
	InstallationsCreated int
	InstallationsUpdated int
	InstallationsRemoved int
	TotalProducts        int
	StaleMatchesRemoved  int
}

// Result is the outcome of a submission.
type Result struct {
	AssetID  int64
	Hostname string
	Summary  Summary
	Warnings []string
}

const warnNoProducts = "the body has no \"products\" key: nothing was imported and no installation was removed " +
	"(send the full inventory as \"products\": [{vendor, product, version}]; \"products\": [] means nothing is installed)"

// submission is one inventory being reconciled: what its steps share, with the one timestamp
// every row it writes carries.
type submission struct {
	svc      *Service
	orgID    int64
	rep      Report
	fp       string // fingerprint of rep with the data it is matched against
	at       time.Time
	resolved map[itemKey]resolution
	rules    *criticality.Rules // the organization's criticality rules
	sum      Summary
	live     map[int64]appliance.Installation // the host's installations before, by product
	fresh    []appliance.Installation         // new installations, written in one statement
	// The reported products as a reader found them before the write transaction, and the
	// product change serial they were read at (see readProducts).
	read       map[appliance.ProductKey]appliance.Product
	readSerial int64
	readRule   map[int64]int // the criticality rules' value for each product read, by id
}

// Submit reconciles a host's inventory against what is stored, in one transaction.
func (s *Service) Submit(ctx context.Context, orgID int64, rep Report) (Result, error) {
	if err := normalizeReport(&rep); err != nil {
		return Result{}, err
	}
	s.engine.classify(&rep)
	if !rep.HasProducts {
		return s.noProducts(ctx, orgID, rep)
	}
	if it, ok := osItem(rep); ok { // the operating system is a product of the host too
		rep.Items = append(rep.Items, it)
	}
	sub := &submission{svc: s, orgID: orgID, rep: rep, fp: s.fingerprint(rep), at: s.now().UTC()}
	if res, done, err := sub.resubmitted(ctx); err != nil || done {
		return res, err
	}
	var err error
	if sub.resolved, err = s.resolveItems(ctx, orgID, rep.Items); err != nil {
		return Result{}, err
	}
	if sub.rules, err = s.criticalityRules(ctx, s.store, orgID); err != nil {
		return Result{}, err
	}
	if err := sub.readProducts(ctx); err != nil {
		return Result{}, err
	}
	res := Result{Hostname: rep.Hostname}
	err = s.store.InSharedTx(ctx, func(tx appliance.Tx) error {
		sub.sum, sub.fresh = Summary{}, make([]appliance.Installation, 0, len(rep.Items))
		id, err := sub.reconcile(ctx, tx)
		res.AssetID, res.Summary = id, sub.sum
		return err
	})
	if err != nil {
		return Result{}, err
	}
	s.findingsChanged(ctx)
	return res, nil
}

func (s *Service) noProducts(ctx context.Context, orgID int64, rep Report) (Result, error) {
	res := Result{Hostname: rep.Hostname, Warnings: []string{warnNoProducts}}
	a, err := appliance.OwnedAsset(ctx, s.store, orgID, rep.Hostname)
	switch {
	case err == nil:
		res.AssetID = a.ID
	case !errors.Is(err, appliance.ErrNotFound):
		return Result{}, err
	}
	return res, nil
}

// normalizeReport trims and bounds every string and folds duplicate items.
func normalizeReport(rep *Report) error {
	if rep.Delta {
		return appliance.Invalid("delta", "unsupported", "delta inventories are not supported: send the full inventory in \"products\"")
	}
	rep.Hostname = appliance.NormalizeHostname(rep.Hostname)
	fields := []struct {
		name string
		v    *string
		max  int
	}{
		{"hostname", &rep.Hostname, maxHostname}, {"fqdn", &rep.FQDN, maxHostname}, {"ip_address", &rep.IPAddress, 64},
		{"os.name", &rep.OSName, maxShort}, {"os.version", &rep.OSVersion, maxShort}, {"os.kernel", &rep.OSKernel, maxShort},
		{"agent.id", &rep.AgentID, maxShort}, {"agent.version", &rep.AgentVersion, maxShort},
	}
	for _, f := range fields {
		*f.v = strings.TrimSpace(*f.v)
		if err := checkLen(f.name, *f.v, 0, f.max); err != nil {
			return err
		}
	}
	if rep.Hostname == "" {
		return appliance.Invalid("hostname", "required", "hostname is required")
	}
	if len(rep.Items) > MaxProductsPerReport {
		return appliance.Invalid("products", "max_items", "at most %d products per inventory, got %d", MaxProductsPerReport, len(rep.Items))
	}
	return normalizeItems(rep)
}

func normalizeItems(rep *Report) error {
	seen := make(map[appliance.ProductKey]bool, len(rep.Items))
	out := rep.Items[:0]
	for i, it := range rep.Items {
		it.Vendor, it.Product = cleanText(it.Vendor), cleanText(it.Product)
		it.Version, it.Path = cleanText(it.Version), strings.TrimSpace(it.Path)
		prefix := fmt.Sprintf("products[%d].", i)
		if err := checkLen(prefix+"product", it.Product, 1, maxName); err != nil {
			return err
		}
		if err := checkLen(prefix+"version", it.Version, 1, maxVersion); err != nil {
			return err
		}
		if err := checkLen(prefix+"vendor", it.Vendor, 0, maxName); err != nil {
			return err
		}
		if err := checkLen(prefix+"path", it.Path, 0, maxPath); err != nil {
			return err
		}
		k := appliance.ProductKey{Vendor: it.Vendor, Name: it.Product, Version: it.Version}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, it)
	}
	rep.Items = out
	return nil
}

// cleanText trims and folds runs of white space and control characters into one space.
func cleanText(s string) string {
	if isCleanText(s) {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// isCleanText reports whether cleanText would return s unchanged: printable ASCII with no
// space at either end and no two in a row (what agents send almost always).
func isCleanText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e {
			if c != ' ' || i == 0 || i == len(s)-1 || s[i-1] == ' ' {
				return false
			}
		}
	}
	return true
}

// key is the natural key of the item's product.
func (it Item) key() appliance.ProductKey {
	return appliance.ProductKey{Vendor: it.Vendor, Name: it.Product, Version: it.Version, Release: it.Package.Release}
}

type pairKey struct{ vendor, name string }

// itemKey is what resolving an item reads: its pair and what its package says (an npm package
// and a Mac app of one name are not one identity).
type itemKey struct {
	vendor, name string
	pkg          appliance.PackageInfo
}

// resolveItems resolves each distinct reported (vendor, product) once, before the write
// transaction, so the transaction holds the writer only for the writes.
func (s *Service) resolveItems(ctx context.Context, orgID int64, items []Item) (map[itemKey]resolution, error) {
	overrides, err := s.overridesFor(ctx, orgID, items)
	if err != nil {
		return nil, err
	}
	out := make(map[itemKey]resolution, len(items))
	for _, it := range items {
		k := itemKey{it.Vendor, it.Product, it.Package}
		if _, ok := out[k]; ok {
			continue
		}
		r, err := s.resolveItem(ctx, overrides, it)
		if err != nil {
			return nil, err
		}
		out[k] = r
	}
	return out, nil
}

// resolveItem resolves one reported item: a name the organization does not track first,
// then a distribution or language package, the organization's confirmed identity, and the
// shared steps.
func (s *Service) resolveItem(ctx context.Context, overrides overrideMap, it Item) (resolution, error) {
	ov, overridden := overrides.lookup(it.Vendor, it.Product)
	if overridden && ov.NotTracked {
		return notTracked, nil
	}
	if r, ok, err := s.engine.resolvePackage(ctx, it); ok || err != nil {
		return r, err
	}
	if overridden {
		return resolution{identity: ov.Identity, method: appliance.ResolutionOverride, confidence: 1}, nil
	}
	if id, ok := osIdentity(it); ok {
		return resolution{identity: id, method: appliance.ResolutionExact, confidence: 1}, nil
	}
	if res, ok := s.engine.resolver.SourceIdentity(it.Vendor, it.Product, it.Package); ok {
		return resolutionOf(res), nil
	}
	r, err := s.engine.resolveShared(ctx, it.Vendor, it.Product)
	return s.engine.withoutRefused(r, it.Vendor, it.Package), err
}

// overridesFor reads the organization's overrides for all reported pairs in one query (none
// when the organization has confirmed nothing, the common case).
func (s *Service) overridesFor(ctx context.Context, orgID int64, items []Item) (overrideMap, error) {
	if has, err := s.store.HasOverrides(ctx, orgID); err != nil || !has {
		return nil, err
	}
	seen := make(map[[2]string]bool, len(items))
	keys := make([][2]string, 0, len(items))
	for _, it := range items {
		k := resolve.Normalize(it.Vendor, it.Product)
		pk := [2]string{k.Vendor, k.Product}
		if !seen[pk] {
			seen[pk] = true
			keys = append(keys, pk)
		}
	}
	found, err := s.store.OverridesFor(ctx, orgID, keys)
	return overrideMap(found), err
}

func (sub *submission) reconcile(ctx context.Context, tx appliance.Tx) (int64, error) {
	rep := sub.rep
	asset, err := sub.upsertAsset(ctx, tx)
	if err != nil {
		return 0, err
	}
	installed, err := tx.LiveInstalledProducts(ctx, asset.ID)
	if err != nil {
		return 0, err
	}
	sub.live = make(map[int64]appliance.Installation, len(installed))
	known := make(map[appliance.ProductKey]appliance.Product, len(installed))
	for _, ip := range installed {
		sub.live[ip.ProductID] = ip.Installation
		known[ip.Product.Key()] = ip.Product
	}
	keys := make([]appliance.ProductKey, len(rep.Items))
	var unknown []appliance.ProductKey
	for i, it := range rep.Items {
		keys[i] = it.key()
		if _, ok := known[keys[i]]; !ok {
			unknown = append(unknown, keys[i])
		}
	}
	more, err := sub.productsByKeys(ctx, tx, unknown)
	if err != nil {
		return 0, err
	}
	if len(known) == 0 { // a new host: every product is one just found
		known = more
	} else {
		for k, p := range more {
			if _, ok := known[k]; !ok { // what the transaction read of the host stays
				known[k] = p
			}
		}
	}
	kept := make(map[int64]bool, len(rep.Items))
	for i, it := range rep.Items {
		existing, found := known[keys[i]]
		p, err := sub.upsertProduct(ctx, tx, it, existing, found)
		if err != nil {
			return 0, err
		}
		kept[p.ID] = true
		if err := sub.install(ctx, tx, asset.ID, p.ID, it.Path); err != nil {
			return 0, err
		}
	}
	if err := tx.CreateInstallations(ctx, sub.fresh); err != nil {
		return 0, err
	}
	for pid, in := range sub.live {
		if kept[pid] {
			continue
		}
		if err := tx.RemoveInstallation(ctx, in.ID, sub.at); err != nil {
			return 0, err
		}
		sub.sum.InstallationsRemoved++
	}
	sub.sum.TotalProducts = len(rep.Items)
	return asset.ID, nil
}

// readProducts looks the reported products up on a reader, outside the write transaction,
// where the lookup would hold the one writer (it is most of what a new host costs); products
// read before at the same product change serial come from the service's cache.
func (sub *submission) readProducts(ctx context.Context) error {
	keys := make([]appliance.ProductKey, len(sub.rep.Items))
	for i, it := range sub.rep.Items {
		keys[i] = it.key()
	}
	cache := &sub.svc.products
	err := sub.svc.store.InSnapshot(ctx, func(r appliance.Reader) error {
		var err error
		if sub.readSerial, err = r.ProductChangeSerial(ctx); err != nil {
			return err
		}
		var missing []appliance.ProductKey
		sub.read, missing = cache.lookup(sub.readSerial, sub.orgID, keys)
		if len(missing) == 0 {
			return nil
		}
		more, err := r.ProductsByKeys(ctx, sub.orgID, missing)
		if err != nil {
			return err
		}
		cache.keep(sub.readSerial, sub.orgID, more)
		for k, p := range more {
			sub.read[k] = p
		}
		return nil
	})
	if err != nil {
		return err
	}
	sub.readRule = make(map[int64]int, len(sub.read))
	for _, p := range sub.read {
		sub.readRule[p.ID] = sub.rules.For(p)
	}
	return nil
}

// productsByKeys finds products by key in the transaction: from what readProducts read when no
// product has changed since, else by reading them again. The answer may hold other reported
// products too.
func (sub *submission) productsByKeys(ctx context.Context, tx appliance.Tx, keys []appliance.ProductKey) (map[appliance.ProductKey]appliance.Product, error) {
	serial, err := tx.ProductChangeSerial(ctx)
	if err != nil {
		return nil, err
	}
	if sub.read == nil || serial != sub.readSerial {
		sub.readRule = nil // products changed since: their rule is computed again
		return tx.ProductsByKeys(ctx, sub.orgID, keys)
	}
	return sub.read, nil // what was read for every reported key: a superset of keys
}

// upsertAsset writes the host's own fields and times.
func (sub *submission) upsertAsset(ctx context.Context, tx appliance.Tx) (appliance.Asset, error) {
	rep := sub.rep
	a, err := appliance.OwnedAsset(ctx, tx, sub.orgID, rep.Hostname)
	if err != nil && !errors.Is(err, appliance.ErrNotFound) {
		return appliance.Asset{}, err
	}
	fresh := errors.Is(err, appliance.ErrNotFound)
	if fresh {
		a = appliance.Asset{OrganizationID: sub.orgID, Hostname: rep.Hostname, CreatedAt: sub.at}
	}
	a.FQDN, a.IPAddress = rep.FQDN, rep.IPAddress
	a.OSName, a.OSVersion, a.OSKernel, a.OS = rep.OSName, rep.OSVersion, rep.OSKernel, rep.OS
	a.AgentID, a.AgentVersion, a.Kind = rep.AgentID, rep.AgentVersion, rep.Kind.Or()
	a.LastSeenAt, a.LastInventoryAt, a.InventoryHash = sub.at, sub.at, sub.fp
	if fresh {
		id, err := tx.CreateAsset(ctx, a)
		a.ID = id
		return a, err
	}
	return a, tx.UpdateAsset(ctx, a)
}

// upsertProduct finds or creates the product of an item, brings its identity up to date
// (unless a person set it) and its matches up to the current CVE data.
func (sub *submission) upsertProduct(ctx context.Context, tx appliance.Tx, it Item, p appliance.Product, found bool) (appliance.Product, error) {
	s, res := sub.svc, sub.resolved[itemKey{it.Vendor, it.Product, it.Package}]
	if !found {
		var err error
		p = appliance.Product{OrganizationID: sub.orgID, Vendor: it.Vendor, Name: it.Product, Version: it.Version,
			Identity: res.identity, Resolution: res.method, ResolutionConfidence: res.confidence,
			CreatedAt: sub.at, UpdatedAt: sub.at, MatchGeneration: -1, Package: it.Package}
		p.Criticality = sub.rules.For(p)
		if p.ID, err = tx.CreateProduct(ctx, p); err != nil {
			return appliance.Product{}, err
		}
		sub.sum.ProductsCreated++
		_, err = s.rematch(ctx, tx, p)
		return p, err
	}
	// A person's identity stays, unless the organization stopped tracking the name since.
	keep := p.Resolution == appliance.ResolutionOverride && res.method != appliance.ResolutionNotTracked
	changed := !p.DeletedAt.IsZero() || ((res.identity != p.Identity || res.method != p.Resolution) && !keep)
	if changed {
		p.DeletedAt = timeZero
		if !keep {
			p.Identity, p.Resolution, p.ResolutionConfidence = res.identity, res.method, res.confidence
		}
	}
	rule, read := sub.readRule[p.ID]
	if changed || !read {
		rule = sub.rules.For(p)
	}
	ruled := !p.CriticalitySet && rule != p.Criticality // products from before the rules, or a new identity
	if changed || ruled {
		if !p.CriticalitySet {
			p.Criticality = rule
		}
		p.UpdatedAt = sub.at
		if err := tx.UpdateProduct(ctx, p); err != nil {
			return appliance.Product{}, err
		}
		sub.sum.ProductsUpdated++
	}
	if changed || p.MatchGeneration != s.engine.CVEGeneration() {
		n, err := s.rematch(ctx, tx, p)
		if err != nil {
			return appliance.Product{}, err
		}
		sub.sum.StaleMatchesRemoved += n
	}
	return p, nil
}

// install records a product on the host: a new installation joins sub.fresh, a changed path
// is updated.
func (sub *submission) install(ctx context.Context, tx appliance.Tx, assetID, productID int64, path string) error {
	in, ok := sub.live[productID]
	if !ok {
		sub.fresh = append(sub.fresh, appliance.Installation{AssetID: assetID, ProductID: productID, Path: path, CreatedAt: sub.at})
		sub.sum.InstallationsCreated++
		return nil
	}
	if in.Path == path {
		return nil
	}
	sub.sum.InstallationsUpdated++
	return tx.UpdateInstallationPath(ctx, in.ID, path, sub.at)
}

// fingerprint identifies an inventory together with the data it is resolved and matched
// against: the same fingerprint twice means reconciling again would change nothing.
func (s *Service) fingerprint(rep Report) string {
	h := sha256.New()
	cat, kb, cve := s.engine.generations()
	fmt.Fprintf(h, "v2 %d %d %d %d\x1e", cat, kb, cve, s.engine.resolver.Generation())
	buf := make([]byte, 0, 96*len(rep.Items))
	for _, it := range rep.Items {
		k := it.Package
		for _, f := range [...]string{it.Vendor, it.Product, it.Version, it.Path, k.Source, k.Release, k.SourcePackage,
			k.SourceVersion, k.PURL, k.Arch, k.BundleID, k.Inferred} {
			buf = append(append(buf, f...), 0x1f)
		}
		buf = append(buf, 0x1e)
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// resubmitted handles an inventory identical to the host's last one: only the host's own
// fields and times are written. done is false when a full reconciliation is needed.
func (sub *submission) resubmitted(ctx context.Context) (Result, bool, error) {
	store, rep := sub.svc.store, sub.rep
	a, err := appliance.OwnedAsset(ctx, store, sub.orgID, rep.Hostname)
	if errors.Is(err, appliance.ErrNotFound) || (err == nil && a.InventoryHash != sub.fp) {
		return Result{}, false, nil
	}
	if err != nil {
		return Result{}, false, err
	}
	done := false
	err = store.InSharedTx(ctx, func(tx appliance.Tx) error {
		cur, err := appliance.OwnedAsset(ctx, tx, sub.orgID, rep.Hostname)
		if err != nil || cur.InventoryHash != sub.fp { // changed meanwhile: reconcile in full
			return err
		}
		_, err = sub.upsertAsset(ctx, tx)
		done = err == nil
		return err
	})
	res := Result{AssetID: a.ID, Hostname: rep.Hostname, Summary: Summary{TotalProducts: len(rep.Items)}}
	return res, done, err
}

package inventory

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
	"github.com/vulnkeeper/vulnkeeper/appliance/resolve"
	"github.com/vulnkeeper/vulnkeeper/appliance/risk"
)

var timeZero time.Time

// ProductDetail is a product with its hosts and vulnerabilities.
type ProductDetail struct {
	appliance.Product
	Aliases         []appliance.Identity // the other spellings NVD files the product's CVEs under
	Assets          []appliance.AssetRef // one page of AssetsPage
	AssetsPage      appliance.Page[appliance.AssetRef]
	Vulnerabilities []appliance.ProductVulnerability
}

// Page sizes of a product's hosts.
const (
	ProductAssetsPerPage    = 100
	MaxProductAssetsPerPage = 500
)

// ProductInput is a create or a partial update; nil fields are left alone. NotTracked
// (updates only) says whether the organization tracks the product's reported name at all.
type ProductInput struct {
	Name, Version, Vendor, CPE *string
	Criticality                *int
	NotTracked                 *bool
}

var productSorts = map[string]bool{"name": true, "vendor": true, "created_at": true, "criticality": true, "updated_at": true,
	"version": true, "vulnerability_count": true, "max_severity": true, "kev": true, "risk": true}

// ValidateFilter checks a list query; page and per-page bounds are the caller's.
func ValidateFilter(f appliance.ProductFilter) error {
	if f.Sort != "" && !productSorts[f.Sort] {
		return appliance.Invalid("sort", "enum", "sort must be one of name, vendor, created_at, criticality, updated_at, version, vulnerability_count, max_severity, kev, risk")
	}
	if f.Criticality != 0 && (f.Criticality < 1 || f.Criticality > 5) {
		return appliance.Invalid("criticality", "range", "criticality must be between 1 and 5")
	}
	switch f.Resolution {
	case "", appliance.ResolutionOverride, appliance.ResolutionKB, appliance.ResolutionExact, appliance.ResolutionFuzzy, appliance.ResolutionUnresolved,
		appliance.ResolutionPackage, appliance.ResolutionNotTracked:
		return nil
	}
	return appliance.Invalid("resolution", "enum", "resolution must be one of override, kb, exact, fuzzy, package, unresolved, not_tracked")
}

// Products lists one organization's products.
func (s *Service) Products(ctx context.Context, f appliance.ProductFilter) ([]appliance.Product, int, error) {
	if err := ValidateFilter(f); err != nil {
		return nil, 0, err
	}
	return s.store.ListProducts(ctx, f)
}

// EachProduct streams the organization's products the filter selects, pages ignored (exports).
func (s *Service) EachProduct(ctx context.Context, f appliance.ProductFilter, fn func(appliance.Product) error) error {
	if err := ValidateFilter(f); err != nil {
		return err
	}
	return s.store.EachProduct(ctx, f, fn)
}

// Product returns one product of the organization with the first page of its hosts and its vulnerabilities.
func (s *Service) Product(ctx context.Context, orgID, id int64) (ProductDetail, error) {
	return s.ProductPage(ctx, orgID, id, 1, ProductAssetsPerPage)
}

// ProductPage returns one product of the organization with one page of its hosts (by
// hostname) and its vulnerabilities.
func (s *Service) ProductPage(ctx context.Context, orgID, id int64, page, perPage int) (ProductDetail, error) {
	p, err := s.store.ProductByID(ctx, orgID, id)
	if err != nil {
		return ProductDetail{}, productErr(err, id)
	}
	page, perPage = max(page, 1), min(max(perPage, 1), MaxProductAssetsPerPage)
	assets, total, err := s.store.ProductAssetsPage(ctx, orgID, id, page, perPage)
	if err != nil {
		return ProductDetail{}, err
	}
	vulns, err := s.store.ProductVulnerabilities(ctx, orgID, id)
	if err != nil {
		return ProductDetail{}, err
	}
	rankByRisk(vulns, p.Criticality)
	return ProductDetail{Product: p, Aliases: s.engine.aliases(p), Assets: assets, Vulnerabilities: vulns,
		AssetsPage: appliance.Page[appliance.AssetRef]{Total: total, Page: page, PerPage: perPage}}, nil
}

// rankByRisk scores each finding at the product's criticality and orders them riskiest first
// (then by CVE id, newest first).
func rankByRisk(vs []appliance.ProductVulnerability, criticality int) {
	for i := range vs {
		vs[i].Risk = risk.Product(vs[i], criticality)
	}
	slices.SortStableFunc(vs, func(a, b appliance.ProductVulnerability) int {
		if c := cmp.Compare(b.Risk.Score, a.Risk.Score); c != 0 {
			return c
		}
		return strings.Compare(b.CVEID, a.CVEID)
	})
}

func productErr(err error, id int64) error {
	if errors.Is(err, appliance.ErrNotFound) {
		return errNoProduct(id)
	}
	return err
}

func errNoProduct(id int64) error {
	return appliance.NotFound("product %d does not exist", id)
}

// parseIdentity reads a person-supplied CPE 2.3 name into an identity.
func parseIdentity(s string) (appliance.Identity, string, error) {
	n, err := cpe.Parse(strings.TrimSpace(s))
	if err != nil || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "cpe:2.3:") {
		return appliance.Identity{}, "", appliance.Invalid("cpe", "format", "cpe must be a CPE 2.3 formatted string such as cpe:2.3:a:vendor:product:1.0:*:*:*:*:*:*:*")
	}
	if !strings.Contains("aoh", n.Part) || len(n.Part) != 1 || !cpe.ValidComponent(n.Vendor) || !cpe.ValidComponent(n.Product) {
		return appliance.Identity{}, "", appliance.Invalid("cpe", "format", "cpe must name a part (a, o, h), a vendor and a product")
	}
	update := n.Update
	if update == cpe.Any || update == cpe.NA {
		update = ""
	}
	return appliance.Identity{Part: n.Part, Vendor: strings.ToLower(n.Vendor), Product: strings.ToLower(n.Product)}, update, nil
}

func validateInput(in ProductInput, create bool) error {
	if create && (in.Name == nil || strings.TrimSpace(*in.Name) == "") {
		return appliance.Invalid("name", "required", "name is required")
	}
	if in.Name != nil {
		if err := checkLen("name", strings.TrimSpace(*in.Name), 1, maxName); err != nil {
			return err
		}
	}
	if in.Version != nil {
		if err := checkLen("version", strings.TrimSpace(*in.Version), 0, maxVersion); err != nil {
			return err
		}
	}
	if in.Vendor != nil {
		if err := checkLen("vendor", strings.TrimSpace(*in.Vendor), 0, maxName); err != nil {
			return err
		}
	}
	if in.Criticality != nil && (*in.Criticality < 1 || *in.Criticality > 5) {
		return appliance.Invalid("criticality", "range", "criticality must be between 1 and 5")
	}
	if in.NotTracked != nil && create {
		return appliance.Invalid("not_tracked", "unsupported", "not_tracked applies to a reported product; create it with a cpe or none")
	}
	if in.NotTracked != nil && in.CPE != nil {
		return appliance.Invalid("not_tracked", "exclusive", "send either cpe or not_tracked, not both")
	}
	return nil
}

// CreateProduct adds a product by hand; without a cpe its identity is resolved like a
// reported one.
func (s *Service) CreateProduct(ctx context.Context, orgID int64, in ProductInput) (appliance.Product, error) {
	if err := validateInput(in, true); err != nil {
		return appliance.Product{}, err
	}
	now := s.now().UTC()
	p := appliance.Product{OrganizationID: orgID, Name: strings.TrimSpace(*in.Name), CreatedAt: now, UpdatedAt: now, MatchGeneration: -1}
	if in.Vendor != nil {
		p.Vendor = strings.TrimSpace(*in.Vendor)
	}
	if in.Version != nil {
		p.Version = strings.TrimSpace(*in.Version)
	}
	if err := s.identify(ctx, &p, in.CPE); err != nil {
		return appliance.Product{}, err
	}
	if in.Criticality != nil {
		p.Criticality, p.CriticalitySet = *in.Criticality, true
	} else {
		rules, err := s.criticalityRules(ctx, s.store, orgID)
		if err != nil {
			return appliance.Product{}, err
		}
		p.Criticality = rules.For(p)
	}
	err := s.store.InTx(ctx, func(tx appliance.Tx) error {
		id, err := tx.CreateProduct(ctx, p)
		if err != nil {
			return err
		}
		p.ID = id
		_, err = s.rematch(ctx, tx, p)
		return err
	})
	if errors.Is(err, appliance.ErrConflict) {
		return appliance.Product{}, appliance.Conflict("a product %q %q version %q already exists", p.Vendor, p.Name, p.Version).Because(err)
	}
	return p, err
}

// identify sets p's identity from a given cpe, or resolves it.
func (s *Service) identify(ctx context.Context, p *appliance.Product, cpeText *string) error {
	if cpeText != nil && strings.TrimSpace(*cpeText) != "" {
		id, update, err := parseIdentity(*cpeText)
		if err != nil {
			return err
		}
		p.Identity, p.Update, p.Resolution, p.ResolutionConfidence = id, update, appliance.ResolutionOverride, 1
		return nil
	}
	res, err := s.engine.resolve(ctx, s.store, p.OrganizationID, p.Vendor, p.Name)
	if err != nil {
		return err
	}
	p.Identity, p.Update, p.Resolution, p.ResolutionConfidence = res.identity, "", res.method, res.confidence
	return nil
}

// errChangedMeanwhile refuses an update whose resolution was computed for a reported
// vendor/name another request changed in the meantime.
var errChangedMeanwhile = appliance.Conflict("the product was changed by another request; retry")

// productUpdate is what an update decided before its transaction: the parsed cpe a person
// confirms, or a fresh resolution of the reported vendor/name.
type productUpdate struct {
	in           ProductInput
	vendor, name string // reported pair the plan was made for
	confirm      bool
	ignore       bool // the organization stops tracking the reported name
	identity     appliance.Identity
	update       string
	reresolve    bool
	resolved     resolution
	track        map[int64]resolution // tracked again: fresh resolutions of the pair's not-tracked products
	userID       int64
	at           time.Time
}

// UpdateProduct applies a partial update. A cpe confirmed by a person becomes the
// organization's override for that reported vendor/name and applies to every version.
// Resolution (which reads the candidate index) runs first; reading the product, changing it
// and storing it happen in one transaction, so a concurrent delete makes this a 404.
func (s *Service) UpdateProduct(ctx context.Context, orgID, userID, id int64, in ProductInput) (ProductDetail, error) {
	if err := validateInput(in, false); err != nil {
		return ProductDetail{}, err
	}
	before, err := s.store.ProductByID(ctx, orgID, id)
	if err != nil {
		return ProductDetail{}, productErr(err, id)
	}
	plan, err := s.planUpdate(ctx, before, in)
	if err != nil {
		return ProductDetail{}, err
	}
	plan.userID = userID
	var p appliance.Product
	err = s.store.InTx(ctx, func(tx appliance.Tx) error {
		p, err = tx.ProductByID(ctx, orgID, id)
		if err != nil {
			return productErr(err, id)
		}
		if p.Vendor != plan.vendor || p.Name != plan.name {
			return errChangedMeanwhile
		}
		return s.applyUpdate(ctx, tx, &p, plan)
	})
	if errors.Is(err, appliance.ErrConflict) && !errors.Is(err, errChangedMeanwhile) {
		return ProductDetail{}, appliance.Conflict("a product %q %q version %q already exists", p.Vendor, p.Name, p.Version).Because(err)
	}
	if err != nil {
		return ProductDetail{}, err
	}
	s.findingsChanged(ctx)
	return s.Product(ctx, orgID, id)
}

// planUpdate parses a confirmed cpe or resolves a renamed product, outside any transaction.
func (s *Service) planUpdate(ctx context.Context, before appliance.Product, in ProductInput) (productUpdate, error) {
	plan := productUpdate{in: in, vendor: before.Vendor, name: before.Name, at: s.now().UTC()}
	after := before
	renamed := applyInput(&after, in)
	switch {
	case in.NotTracked != nil && *in.NotTracked:
		plan.confirm, plan.ignore = true, true
	case tracksAgain(before, in):
		track, err := s.planTrack(ctx, before)
		if err != nil {
			return plan, err
		}
		plan.track = track
	case in.CPE != nil && strings.TrimSpace(*in.CPE) != "":
		identity, update, err := parseIdentity(*in.CPE)
		if err != nil {
			return plan, err
		}
		plan.confirm, plan.identity, plan.update = true, identity, update
	case (in.CPE != nil && strings.TrimSpace(*in.CPE) == "") || renamed:
		res, err := s.engine.resolve(ctx, s.store, after.OrganizationID, after.Vendor, after.Name)
		if err != nil {
			return plan, err
		}
		plan.reresolve, plan.resolved = true, res
	}
	if plan.track != nil && renamed { // the product itself is resolved under its new name
		res, err := s.engine.resolve(ctx, s.store, after.OrganizationID, after.Vendor, after.Name)
		if err != nil {
			return plan, err
		}
		plan.track[before.ID] = res
	}
	return plan, nil
}

// applyUpdate changes p, freshly read within tx, as planned.
func (s *Service) applyUpdate(ctx context.Context, tx appliance.Tx, p *appliance.Product, plan productUpdate) error {
	applyInput(p, plan.in)
	p.UpdatedAt = plan.at
	if plan.confirm {
		return s.confirm(ctx, tx, *p, plan)
	}
	if plan.track != nil {
		return s.trackAgain(ctx, tx, *p, plan)
	}
	if plan.reresolve {
		res := plan.resolved
		p.Identity, p.Update, p.Resolution, p.ResolutionConfidence = res.identity, "", res.method, res.confidence
	}
	if err := tx.UpdateProduct(ctx, *p); err != nil {
		return err
	}
	if err := tx.ForgetInventoriesWith(ctx, p.ID); err != nil { // hosts still report the old name or version
		return err
	}
	_, err := s.rematch(ctx, tx, *p)
	return err
}

func applyInput(p *appliance.Product, in ProductInput) (renamed bool) {
	if in.Name != nil && strings.TrimSpace(*in.Name) != p.Name {
		p.Name, renamed = strings.TrimSpace(*in.Name), true
	}
	if in.Vendor != nil && strings.TrimSpace(*in.Vendor) != p.Vendor {
		p.Vendor, renamed = strings.TrimSpace(*in.Vendor), true
	}
	if in.Version != nil {
		p.Version = strings.TrimSpace(*in.Version)
	}
	if in.Criticality != nil {
		p.Criticality, p.CriticalitySet = *in.Criticality, true // a person's value: rules leave it alone
	}
	return renamed
}

// confirm stores a person's decision for p's reported vendor/name as an override (an
// identity, or "not tracked") and applies it, with fresh matches, to every product of the
// organization reported that way, within tx.
func (s *Service) confirm(ctx context.Context, tx appliance.Tx, p appliance.Product, plan productUpdate) error {
	key := resolve.Normalize(p.Vendor, p.Name)
	if err := tx.UpdateProduct(ctx, p); err != nil { // name, version and criticality of this one
		return err
	}
	ov := appliance.Override{OrganizationID: p.OrganizationID, VendorKey: key.Vendor, ProductKey: key.Product,
		ReportedVendor: p.Vendor, ReportedName: p.Name, Identity: plan.identity, NotTracked: plan.ignore, CreatedBy: plan.userID, CreatedAt: plan.at}
	if err := tx.SaveOverride(ctx, ov); err != nil {
		return err
	}
	res := resolution{identity: plan.identity, method: appliance.ResolutionOverride, confidence: 1}
	if plan.ignore {
		res = notTracked
	}
	same, err := decided(ctx, tx, p, key, plan.ignore)
	if err != nil {
		return err
	}
	for _, q := range same {
		q.Identity, q.Resolution, q.ResolutionConfidence, q.UpdatedAt = res.identity, res.method, res.confidence, plan.at
		if q.ID == p.ID || plan.ignore {
			q.Update = plan.update
		}
		if err := tx.UpdateProduct(ctx, q); err != nil {
			return err
		}
		if _, err := s.rematch(ctx, tx, q); err != nil {
			return err
		}
	}
	return nil
}

// DeleteProduct removes a product and its matches; its installation history stays. The
// product is read and deleted in one transaction.
func (s *Service) DeleteProduct(ctx context.Context, orgID, id int64) error {
	now := s.now().UTC()
	err := s.store.InTx(ctx, func(tx appliance.Tx) error {
		p, err := tx.ProductByID(ctx, orgID, id)
		if err != nil {
			return productErr(err, id)
		}
		p.DeletedAt, p.UpdatedAt, p.MatchGeneration = now, now, -1
		if err := tx.UpdateProduct(ctx, p); err != nil {
			return err
		}
		if err := tx.ForgetInventoriesWith(ctx, p.ID); err != nil { // a host reporting it again restores it
			return err
		}
		_, err = tx.ReplaceMatches(ctx, p.ID, nil, -1, now)
		return err
	})
	if err == nil {
		s.findingsChanged(ctx)
	}
	return err
}

// ReviewEntry is an unresolved reported pair with its best candidates.
type ReviewEntry struct {
	appliance.ReviewItem
	Candidates []resolve.Candidate
}

// Review lists one page of the organization's unresolved identities, most installed first,
// with the number of identities awaiting review.
func (s *Service) Review(ctx context.Context, orgID int64, page, perPage int) ([]ReviewEntry, int, error) {
	items, total, err := s.store.ReviewQueue(ctx, orgID, page, perPage)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ReviewEntry, 0, len(items))
	for _, it := range items {
		res, err := s.engine.resolver.Resolve(ctx, orgOverrides{store: s.store, orgID: orgID}, it.Vendor, it.Name)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, ReviewEntry{ReviewItem: it, Candidates: res.Candidates})
	}
	return out, total, nil
}

package inventory

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/resolve"
)

// tracksAgain reports whether an update undoes "not tracked": not_tracked false, or an
// empty cpe on a product the organization does not track.
func tracksAgain(before appliance.Product, in ProductInput) bool {
	if in.NotTracked != nil {
		return !*in.NotTracked
	}
	return in.CPE != nil && strings.TrimSpace(*in.CPE) == "" && before.Resolution == appliance.ResolutionNotTracked
}

// productsOfKey lists the organization's products, any version and spelling, whose reported
// pair normalizes to key, of those resolved by method only unless method is "".
func productsOfKey(ctx context.Context, r appliance.Reader, orgID int64, key resolve.Key, method appliance.ResolutionMethod) ([]appliance.Product, error) {
	pairs, err := r.ReportedNames(ctx, orgID, method)
	if err != nil {
		return nil, err
	}
	var out []appliance.Product
	for _, pair := range pairs {
		if resolve.Normalize(pair[0], pair[1]) != key {
			continue
		}
		ps, err := r.ProductsWithReported(ctx, orgID, pair[0], pair[1])
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if method == "" || p.Resolution == method {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// withProduct adds p to ps unless ps holds it.
func withProduct(ps []appliance.Product, p appliance.Product) []appliance.Product {
	if slices.ContainsFunc(ps, func(q appliance.Product) bool { return q.ID == p.ID }) {
		return ps
	}
	return append(ps, p)
}

func isNotTracked(p appliance.Product) bool { return p.Resolution == appliance.ResolutionNotTracked }

// decided lists the products a decision for p's normalized pair applies to now: "not
// tracked" to every spelling of the pair, as inventories will; an identity to the products
// reported exactly like p and to the pair's not-tracked ones (the decision it replaces).
func decided(ctx context.Context, tx appliance.Tx, p appliance.Product, key resolve.Key, ignore bool) ([]appliance.Product, error) {
	if ignore {
		return productsOfKey(ctx, tx, p.OrganizationID, key, "")
	}
	same, err := tx.ProductsWithReported(ctx, p.OrganizationID, p.Vendor, p.Name)
	if err != nil {
		return nil, err
	}
	ignored, err := productsOfKey(ctx, tx, p.OrganizationID, key, appliance.ResolutionNotTracked)
	for _, q := range ignored {
		same = withProduct(same, q)
	}
	return same, err
}

// planTrack resolves afresh, as an inventory would without the organization's decision,
// every not-tracked product of before's normalized pair (outside any transaction: resolution
// reads the candidate index).
func (s *Service) planTrack(ctx context.Context, before appliance.Product) (map[int64]resolution, error) {
	same, err := productsOfKey(ctx, s.store, before.OrganizationID, resolve.Normalize(before.Vendor, before.Name), appliance.ResolutionNotTracked)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]resolution, len(same))
	for _, p := range same {
		res, err := s.resolveItem(ctx, nil, Item{Vendor: p.Vendor, Product: p.Name, Version: p.Version, Package: p.Package})
		if err != nil {
			return nil, err
		}
		out[p.ID] = res
	}
	return out, nil
}

// trackAgain forgets the organization's "not tracked" decision for p's reported pair and
// gives the pair's products their planned resolutions with fresh matches, within tx. A
// confirmed identity (an override that is not "not tracked") stays.
func (s *Service) trackAgain(ctx context.Context, tx appliance.Tx, p appliance.Product, plan productUpdate) error {
	key := resolve.Normalize(plan.vendor, plan.name)
	ov, err := tx.OverrideFor(ctx, p.OrganizationID, key.Vendor, key.Product)
	switch {
	case err == nil && ov.NotTracked:
		err = tx.DeleteOverride(ctx, p.OrganizationID, key.Vendor, key.Product)
	case errors.Is(err, appliance.ErrNotFound):
		err = nil
	}
	if err != nil {
		return err
	}
	same, err := productsOfKey(ctx, tx, p.OrganizationID, key, appliance.ResolutionNotTracked)
	if err != nil {
		return err
	}
	for _, q := range withProduct(same, p) {
		res, ok := plan.track[q.ID]
		switch {
		case q.ID == p.ID:
			q = p // with the update's other fields (p's stored pair is the key: UpdateProduct checked it)
		case !ok || !isNotTracked(q): // decided otherwise meanwhile
			continue
		}
		if ok {
			q.Identity, q.Update, q.Resolution, q.ResolutionConfidence = res.identity, "", res.method, res.confidence
		}
		q.UpdatedAt = plan.at
		if err := tx.UpdateProduct(ctx, q); err != nil {
			return err
		}
		if q.ID == p.ID {
			if err := tx.ForgetInventoriesWith(ctx, p.ID); err != nil { // hosts may report the old name or version
				return err
			}
		}
		if _, err := s.rematch(ctx, tx, q); err != nil {
			return err
		}
	}
	return nil
}

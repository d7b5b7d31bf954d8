package inventory

import (
	"context"
	"errors"
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
// pair normalizes to key and that keep accepts.
func productsOfKey(ctx context.Context, r appliance.Reader, orgID int64, key resolve.Key, keep func(appliance.Product) bool) ([]appliance.Product, error) {
	pairs, err := r.ReportedNames(ctx, orgID)
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
			if keep(p) {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

func isNotTracked(p appliance.Product) bool { return p.Resolution == appliance.ResolutionNotTracked }

// planTrack resolves afresh, as an inventory would without the organization's decision,
// every not-tracked product of before's normalized pair (outside any transaction: resolution
// reads the candidate index).
func (s *Service) planTrack(ctx context.Context, before appliance.Product) (map[int64]resolution, error) {
	same, err := productsOfKey(ctx, s.store, before.OrganizationID, resolve.Normalize(before.Vendor, before.Name), isNotTracked)
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
	same, err := productsOfKey(ctx, tx, p.OrganizationID, key, func(q appliance.Product) bool { return q.ID == p.ID || isNotTracked(q) })
	if err != nil {
		return err
	}
	for _, q := range same {
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

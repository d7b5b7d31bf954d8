package inventory

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/resolve"
)

// kbSource answers resolution's KB step from the published mappings pulled from the
// licence server, indexed by the normalized reported pair.
type kbSource struct {
	byKey atomic.Pointer[map[resolve.Key][]resolve.Mapping]
}

func (k *kbSource) Mappings(_ context.Context, key resolve.Key) ([]resolve.Mapping, error) {
	m := k.byKey.Load()
	if m == nil {
		return nil, nil
	}
	return append([]resolve.Mapping(nil), (*m)[key]...), nil
}

func (k *kbSource) load(ctx context.Context, r appliance.Reader) (int, error) {
	out := map[resolve.Key][]resolve.Mapping{}
	n := 0
	err := r.EachKBMapping(ctx, func(m appliance.KBMapping) error {
		if !m.Published || m.Retracted || m.Source == appliance.SourceNVD {
			return nil
		}
		key := resolve.Normalize(m.VendorPattern, m.ProductPattern)
		out[key] = append(out[key], resolve.Mapping{Identity: appliance.Identity{Vendor: m.CPEVendor, Product: m.CPEProduct},
			Confidence: m.Confidence, Curated: m.Source == appliance.SourceCurated})
		n++
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("load KB mappings: %w", err)
	}
	k.byKey.Store(&out)
	return n, nil
}

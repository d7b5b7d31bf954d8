package resolve

import (
	"sort"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Catalog answers exact questions about the software-identity catalogue from memory. It is
// immutable once built; a changed catalogue is a new Catalog given to Resolver.SetCatalog.
type Catalog struct {
	byPair    map[appliance.Identity][]appliance.CatalogEntry
	byProduct map[string][]appliance.CatalogEntry
	vendors   map[string][]appliance.CatalogEntry // a vendor's identities
	bound     map[appliance.Identity]string       // identities bound to a package platform (Refuses), by pair
}

// NewCatalog indexes identities by (vendor, product), by product and by vendor. The same
// identity given twice (read from two catalogue files) is one entry, merged as the store
// merges it.
func NewCatalog(identities []appliance.CatalogEntry) *Catalog {
	identities = mergeDuplicates(identities)
	c := &Catalog{
		byPair:    make(map[appliance.Identity][]appliance.CatalogEntry, len(identities)),
		byProduct: make(map[string][]appliance.CatalogEntry, len(identities)),
		vendors:   make(map[string][]appliance.CatalogEntry, len(identities)/3),
		bound:     map[appliance.Identity]string{},
	}
	for _, id := range identities {
		c.add(id)
	}
	for product, ids := range c.byProduct {
		sort.Slice(ids, func(i, j int) bool { return identityLess(ids[i], ids[j]) })
		c.byProduct[product] = ids
	}
	return c
}

func (c *Catalog) add(id appliance.CatalogEntry) {
	vp := appliance.Identity{Vendor: id.Vendor, Product: id.Product}
	c.byPair[vp] = append(c.byPair[vp], id)
	c.byProduct[id.Product] = append(c.byProduct[id.Product], id)
	c.vendors[id.Vendor] = append(c.vendors[id.Vendor], id)
	if packagePlatforms[id.Platform] {
		c.bound[vp] = id.Platform
	}
}

// Len is the number of distinct (vendor, product) pairs.
func (c *Catalog) Len() int { return len(c.byPair) }

// Lookup returns the identity of (vendor, product), preferring applications over operating
// systems over hardware, and non-deprecated entries.
func (c *Catalog) Lookup(vendor, product string) (appliance.CatalogEntry, bool) {
	ids := c.byPair[appliance.Identity{Vendor: vendor, Product: product}]
	if len(ids) == 0 {
		return appliance.CatalogEntry{}, false
	}
	best := ids[0]
	for _, id := range ids[1:] {
		if identityLess(id, best) {
			best = id
		}
	}
	return best, true
}

// ByProduct returns every identity spelling product, in a stable order.
func (c *Catalog) ByProduct(product string) []appliance.CatalogEntry { return c.byProduct[product] }

// HasVendor reports whether any identity has this vendor.
func (c *Catalog) HasVendor(vendor string) bool { return len(c.vendors[vendor]) > 0 }

// ByVendor returns every identity of vendor, in the order they were given.
func (c *Catalog) ByVendor(vendor string) []appliance.CatalogEntry { return c.vendors[vendor] }

func identityLess(a, b appliance.CatalogEntry) bool {
	if a.Deprecated != b.Deprecated {
		return !a.Deprecated
	}
	if a.Part != b.Part {
		return partRank(a.Part) < partRank(b.Part)
	}
	if a.Vendor != b.Vendor {
		return a.Vendor < b.Vendor
	}
	return a.Product < b.Product
}

func partRank(part string) int {
	switch part {
	case "a":
		return 0
	case "o":
		return 1
	default:
		return 2
	}
}

// mergeDuplicates folds entries of one (part, vendor, product): used by CVE data when either
// is, its platform merged, the first title kept; the input is returned as is when unique.
func mergeDuplicates(ids []appliance.CatalogEntry) []appliance.CatalogEntry {
	at := make(map[appliance.Identity]int, len(ids))
	var merged []appliance.CatalogEntry
	for i, id := range ids {
		j, dup := at[id.Identity]
		if !dup {
			at[id.Identity] = len(at)
			if merged != nil {
				merged = append(merged, id)
			}
			continue
		}
		if merged == nil {
			merged = make([]appliance.CatalogEntry, 0, len(ids))
			for _, e := range ids[:i] {
				if k := at[e.Identity]; k == len(merged) {
					merged = append(merged, e)
				}
			}
		}
		have := &merged[j]
		have.CVEUsed = have.CVEUsed || id.CVEUsed
		have.Deprecated = have.Deprecated && id.Deprecated
		have.Platform = appliance.MergePlatform(have.Platform, id.Platform)
		if have.Title == "" {
			have.Title = id.Title
		}
	}
	if merged == nil {
		return ids
	}
	return merged
}

package resolve

import (
	"sort"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Catalog answers exact questions about the software-identity catalogue from memory. It is
// immutable once built; a changed catalogue is a new Catalog given to Resolver.SetCatalog.
// Each identity is stored once; the indexes hold positions, which keeps the server's resident
// catalogue small (its heap is what the garbage collector works against).
type Catalog struct {
	entries   []appliance.CatalogEntry
	byPair    map[vendorProduct]int32  // the entry Lookup answers for a pair
	byProduct map[string][]int32       // in identityLess order
	vendors   map[string][]int32       // a vendor's identities
	bound     map[vendorProduct]string // identities bound to a package platform (Refuses)
}

type vendorProduct struct{ vendor, product string }

// NewCatalog indexes identities by (vendor, product), by product and by vendor. The same
// identity given twice (read from two catalogue files) is one entry.
func NewCatalog(identities []appliance.CatalogEntry) *Catalog {
	identities = mergeDuplicates(identities)
	c := &Catalog{
		entries:   identities,
		byPair:    make(map[vendorProduct]int32, len(identities)),
		byProduct: make(map[string][]int32, len(identities)),
		vendors:   make(map[string][]int32, len(identities)/3),
		bound:     map[vendorProduct]string{},
	}
	for i, id := range identities {
		vp := vendorProduct{id.Vendor, id.Product}
		if best, ok := c.byPair[vp]; !ok || identityLess(id, identities[best]) {
			c.byPair[vp] = int32(i)
		}
		c.byProduct[id.Product] = append(c.byProduct[id.Product], int32(i))
		c.vendors[id.Vendor] = append(c.vendors[id.Vendor], int32(i))
		if packagePlatforms[id.Platform] {
			c.bound[vp] = id.Platform
		}
	}
	for _, idx := range c.byProduct {
		sort.Slice(idx, func(i, j int) bool { return identityLess(identities[idx[i]], identities[idx[j]]) })
	}
	return c
}

// Len is the number of distinct (vendor, product) pairs.
func (c *Catalog) Len() int { return len(c.byPair) }

// Lookup returns the identity of (vendor, product), preferring applications over operating
// systems over hardware, and non-deprecated entries.
func (c *Catalog) Lookup(vendor, product string) (appliance.CatalogEntry, bool) {
	i, ok := c.byPair[vendorProduct{vendor, product}]
	if !ok {
		return appliance.CatalogEntry{}, false
	}
	return c.entries[i], true
}

// ByProduct returns every identity spelling product, in a stable order.
func (c *Catalog) ByProduct(product string) []appliance.CatalogEntry {
	return c.pick(c.byProduct[product])
}

func (c *Catalog) pick(idx []int32) []appliance.CatalogEntry {
	if len(idx) == 0 {
		return nil
	}
	out := make([]appliance.CatalogEntry, len(idx))
	for i, j := range idx {
		out[i] = c.entries[j]
	}
	return out
}

// HasVendor reports whether any identity has this vendor.
func (c *Catalog) HasVendor(vendor string) bool { return len(c.vendors[vendor]) > 0 }

// ByVendor returns every identity of vendor, in the order they were given.
func (c *Catalog) ByVendor(vendor string) []appliance.CatalogEntry { return c.pick(c.vendors[vendor]) }

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

// mergeDuplicates folds the entries of one (part, vendor, product) into one
// (CatalogEntry.Absorb), keeping first-seen order.
func mergeDuplicates(ids []appliance.CatalogEntry) []appliance.CatalogEntry {
	at := make(map[appliance.Identity]int, len(ids))
	out := make([]appliance.CatalogEntry, 0, len(ids))
	for _, id := range ids {
		if j, dup := at[id.Identity]; dup {
			out[j].Absorb(id)
			continue
		}
		at[id.Identity] = len(out)
		out = append(out, id)
	}
	return out
}

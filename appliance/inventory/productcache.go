package inventory

import (
	"sync"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// productCache keeps products as reconciliation read them, valid while the store's product
// change serial stays where it was when they were read: a new host of a known fleet then
// finds its products without a query. Any product change moves the serial and empties it.
type productCache struct {
	mu     sync.Mutex
	serial int64
	byKey  map[orgProductKey]appliance.Product
}

type orgProductKey struct {
	org int64
	key appliance.ProductKey
}

// maxCachedProducts bounds the cache; past it, it starts over.
const maxCachedProducts = 100_000

// lookup returns the cached products of keys at serial, and the keys it does not have.
func (c *productCache) lookup(serial, org int64, keys []appliance.ProductKey) (map[appliance.ProductKey]appliance.Product, []appliance.ProductKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	found := make(map[appliance.ProductKey]appliance.Product, len(keys))
	if c.byKey == nil || c.serial != serial {
		return found, keys
	}
	var missing []appliance.ProductKey
	for _, k := range keys {
		if p, ok := c.byKey[orgProductKey{org, k}]; ok {
			found[k] = p
		} else {
			missing = append(missing, k)
		}
	}
	return found, missing
}

// keep adds products read at serial; products of an older serial are dropped first.
func (c *productCache) keep(serial, org int64, products map[appliance.ProductKey]appliance.Product) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil || c.serial != serial || len(c.byKey)+len(products) > maxCachedProducts {
		if serial < c.serial { // read before the cache's serial: already outdated
			return
		}
		c.byKey, c.serial = make(map[orgProductKey]appliance.Product, len(products)), serial
	}
	for k, p := range products {
		c.byKey[orgProductKey{org, k}] = p
	}
}

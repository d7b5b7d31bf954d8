package inventory

import "github.com/vulnkeeper/vulnkeeper/appliance"

// MatchProduct exposes the engine's matcher to the benchmarks of inventory_test.
func (e *Engine) MatchProduct(p appliance.Product) []appliance.MatchInput { return e.match(p) }

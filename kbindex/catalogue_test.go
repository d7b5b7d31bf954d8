package kbindex

import (
	"context"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	"github.com/vulnkeeper/vulnkeeper/appliance/catalog"
)

const cataloguePath = "../../shared/data/cpe/vendor_product.tsv.gz"

// loadCatalogue reads the real catalogue; a missing file fails the test.
func loadCatalogue(t testing.TB) []appliance.CatalogEntry {
	t.Helper()
	var ids []appliance.CatalogEntry
	_, err := catalog.ParseFile(context.Background(), cataloguePath, func(id appliance.CatalogEntry) error {
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		t.Fatalf("catalogue: %v", err)
	}
	if len(ids) < 100000 {
		t.Fatalf("catalogue: only %d identities", len(ids))
	}
	return ids
}

package kbindex

import (
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// loadCatalogue reads the real catalogue; a missing file fails the test.
func loadCatalogue(t testing.TB) []appliance.CatalogEntry {
	t.Helper()
	ids := storetest.Catalogue(t)
	if len(ids) < 100000 {
		t.Fatalf("catalogue: only %d identities", len(ids))
	}
	return ids
}

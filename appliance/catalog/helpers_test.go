package catalog

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Real files, by path relative to this package; tests fail when one is missing.
const (
	vendorProductTSV = "../../../shared/data/cpe/vendor_product.tsv.gz"
	dictionaryXML    = "../../../shared/data/cpe/official-cpe-dictionary_v2.3-2015-10-14.xml.gz"
	catalogMiniTSV   = "../../../shared/conformance/fixtures/catalog-mini.tsv"
	nvdCPESample     = "testdata/nvd-cpe-api-sample.json"
	starterCatalog   = "../../data/defaults/catalog.tsv"
	demoFeed         = "../../data/defaults/demo-feed.json"
	demoKEV          = "../../data/defaults/kev.json"
)

// parseAll runs ParseFile and returns every identity, failing the test on error.
func parseAll(tb testing.TB, path string) []appliance.CatalogEntry {
	tb.Helper()
	var got []appliance.CatalogEntry
	n, err := ParseFile(context.Background(), path, func(id appliance.CatalogEntry) error {
		got = append(got, id)
		return nil
	})
	if err != nil {
		tb.Fatalf("ParseFile(%s): %v", path, err)
	}
	if n != len(got) {
		tb.Fatalf("ParseFile(%s) returned %d, callback saw %d", path, n, len(got))
	}
	return got
}

// parseString runs Parse on s and returns identities and the error.
func parseString(s string) ([]appliance.CatalogEntry, error) {
	var got []appliance.CatalogEntry
	_, err := Parse(context.Background(), strings.NewReader(s), func(id appliance.CatalogEntry) error {
		got = append(got, id)
		return nil
	})
	return got, err
}

func countParts(ids []appliance.CatalogEntry) map[string]int {
	parts := map[string]int{}
	for _, id := range ids {
		parts[id.Part]++
	}
	return parts
}

func byKey(ids []appliance.CatalogEntry) map[identityKey]appliance.CatalogEntry {
	m := make(map[identityKey]appliance.CatalogEntry, len(ids))
	for _, id := range ids {
		m[keyOf(id)] = id
	}
	return m
}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	return b
}

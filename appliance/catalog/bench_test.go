package catalog

import (
	"bytes"
	"context"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func benchmarkParse(b *testing.B, path string) {
	data := readFile(b, path)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var identities int
	for b.Loop() {
		n, err := Parse(context.Background(), bytes.NewReader(data), func(appliance.CatalogEntry) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		identities = n
	}
	b.ReportMetric(float64(identities)*float64(b.N)/b.Elapsed().Seconds(), "identities/s")
}

// BenchmarkParseTSV imports the 110,094-row vendor_product.tsv.gz (gunzip included).
func BenchmarkParseTSV(b *testing.B) { benchmarkParse(b, vendorProductTSV) }

// BenchmarkParseDictionary imports the 2015 CPE dictionary (101,371 items, 29 MB of XML).
func BenchmarkParseDictionary(b *testing.B) { benchmarkParse(b, dictionaryXML) }

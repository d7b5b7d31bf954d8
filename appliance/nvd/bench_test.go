package nvd

import (
	"context"
	"testing"
)

// BenchmarkImportAllFeeds parses every real NVD 2.0 feed; records/s is the figure to watch.
func BenchmarkImportAllFeeds(b *testing.B) {
	paths := nvdFeeds(b)
	records := 0
	for b.Loop() {
		records = 0
		for _, path := range paths {
			stats, err := ImportFile(context.Background(), path, HandlerFuncs{})
			if err != nil {
				b.Fatal(err)
			}
			records += stats.CVEs
		}
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(records), "records/op")
}

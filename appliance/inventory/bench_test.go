package inventory_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/appliance/nvd"
)

const kevCatalogue = sharedData + "/kev/known_exploited_vulnerabilities.json"

// nvdFeeds are all NVD CVE 2.0 feeds of the shared data; none found fails the benchmark.
func nvdFeeds(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(sharedData + "/nvd/nvdcve-2.0-*.json.gz")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no NVD 2.0 feeds under %s/nvd (%v)", sharedData, err)
	}
	return files
}

// BenchmarkFeedImport imports every NVD 2.0 feed and the KEV catalogue into a fresh store.
func BenchmarkFeedImport(b *testing.B) {
	files := append(nvdFeeds(b), kevCatalogue)
	var records int
	var took time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w := newWorld(b)
		b.StartTimer()
		start := time.Now()
		for _, f := range files {
			st := importFeed(b, w.importer, f)
			records += st.CVEs + st.Rejected
		}
		took += time.Since(start)
	}
	b.ReportMetric(float64(records)/took.Seconds(), "CVEs/s")
	b.ReportMetric(float64(records)/float64(b.N), "CVEs/op")
}

// BenchmarkHostMatch500 matches a 500-product host against every NVD 2.0 feed imported;
// the versions sit on the range bounds and exact versions the data names.
func BenchmarkHostMatch500(b *testing.B) {
	files := nvdFeeds(b)
	w := newWorld(b, files...)
	products := hostProducts(b, files[len(files)-3:], 500)
	b.Run("match", func(b *testing.B) {
		matches := 0
		for b.Loop() {
			matches = 0
			for _, p := range products {
				matches += len(w.engine.MatchProduct(p))
			}
		}
		b.ReportMetric(float64(matches), "matches/host")
	})
	b.Run("submit", func(b *testing.B) {
		items := make([]inventory.Item, len(products))
		for i, p := range products {
			items[i] = item(p.Identity.Vendor, p.Identity.Product, p.Version)
		}
		n := 0
		for b.Loop() {
			n++
			w.submit(b, w.acme, report(fmt.Sprintf("bench-%d", n), items...))
		}
	})
}

var errEnough = errors.New("enough products")

// hostProducts reads vulnerable criteria from the feeds into n resolved products of
// distinct identities, each at a version the criterion names.
func hostProducts(tb testing.TB, feeds []string, n int) []appliance.Product {
	tb.Helper()
	seen := map[appliance.Identity]bool{}
	var out []appliance.Product
	collect := func(_ context.Context, c nvd.CVE) error {
		for _, cfg := range c.Configurations {
			for _, node := range cfg.Nodes {
				for _, m := range node.Matches {
					p, ok := productOf(m)
					if !ok || !m.Vulnerable || seen[p.Identity] {
						continue
					}
					seen[p.Identity] = true
					if out = append(out, p); len(out) == n {
						return errEnough
					}
				}
			}
		}
		return nil
	}
	for _, f := range feeds {
		if _, err := nvd.ImportFile(context.Background(), f, nvd.HandlerFuncs{OnCVE: collect}); errors.Is(err, errEnough) {
			return out
		} else if err != nil {
			tb.Fatalf("read %s: %v", f, err)
		}
	}
	tb.Fatalf("the feeds name only %d vulnerable identities, want %d", len(out), n)
	return nil
}

func productOf(m nvd.Match) (appliance.Product, bool) {
	name, err := cpe.Parse(m.Criteria)
	if err != nil || !cpe.ValidComponent(name.Vendor) || !cpe.ValidComponent(name.Product) {
		return appliance.Product{}, false
	}
	version := name.Version
	for _, v := range []string{m.VersionEndIncluding, m.VersionEndExcluding, m.VersionStartIncluding, m.VersionStartExcluding, "1.0"} {
		if version != cpe.Any && version != cpe.NA && version != "" {
			break
		}
		version = v
	}
	id := appliance.Identity{Part: name.Part, Vendor: strings.ToLower(name.Vendor), Product: strings.ToLower(name.Product)}
	return appliance.Product{Identity: id, Version: version, Resolution: appliance.ResolutionExact}, true
}

package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// The issue 11 scale: 10,000 hosts × 300 products each (VK_BENCH_HOSTS overrides the host
// count, for a quicker look), over real CVE data.
const (
	exposureBenchPerHost    = 300
	exposureBenchDistinct   = 3000 // products of the organization
	exposureBenchUnresolved = 300  // of them, names waiting for review (some in two versions)
	exposureBenchVulnerable = 4    // one product in this many has findings
)

var exposureBenchFeeds = []string{"../../shared/data/nvd/nvdcve-2.0-2015.json.gz", "../../shared/data/nvd/nvdcve-2.0-recent.json.gz",
	"../../shared/data/kev/known_exploited_vulnerabilities.json"}

// BenchmarkExposureRoutes measures each list, detail, the dashboard and the review queue
// through the real handler over a real SQLite file holding a generated fleet (written with
// the store's own write methods, which keep the counts), and reports each route's p95.
func BenchmarkExposureRoutes(b *testing.B) {
	hosts := 10000
	if v, err := strconv.Atoi(os.Getenv("VK_BENCH_HOSTS")); err == nil && v > 0 {
		hosts = v
	}
	w := newInvWorld(b, append([]string{catalogMini}, exposureBenchFeeds...)...)
	start := time.Now()
	fl := generateExposureFleet(b, w, hosts)
	b.Logf("generated %d hosts × %d products (%d distinct, %d with findings) in %s", hosts, exposureBenchPerHost,
		exposureBenchDistinct, len(fl.vulnerable), time.Since(start).Round(time.Second))
	if drift, err := w.Store.CountDrift(context.Background()); err != nil || len(drift) > 0 {
		b.Fatalf("counts drift after generation: %v %.5v", err, drift)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(ids []int64) int64 { return ids[rng.IntN(len(ids))] }
	routes := []struct {
		name string
		path func() string
	}{
		{"assets", func() string { return fmt.Sprintf("/api/assets?page=%d", 1+rng.IntN(hosts/50)) }},
		{"assets_by_findings", func() string { return "/api/assets?sort=findings&order=desc&has_vulnerabilities=true" }},
		{"assets_search", func() string { return fmt.Sprintf("/api/assets?search=host-%d", rng.IntN(hosts/10)) }},
		{"asset_detail", func() string { return fmt.Sprintf("/api/assets/%d", pick(fl.hosts)) }},
		{"vulnerabilities", func() string { return "/api/vulnerabilities" }},
		{"vulnerabilities_kev_by_hosts", func() string { return "/api/vulnerabilities?kev=true&sort=hosts&order=desc" }},
		{"vulnerabilities_search", func() string { return "/api/vulnerabilities?search=remote&page=2" }},
		{"vulnerability_detail", func() string { return "/api/vulnerabilities/" + fl.cves[rng.IntN(len(fl.cves))] }},
		{"dashboard", func() string { return "/api/dashboard" }},
		{"review_queue", func() string { return "/api/resolution/review" }},
		{"products", func() string { return fmt.Sprintf("/api/products?page=%d", 1+rng.IntN(exposureBenchDistinct/50)) }},
		{"products_by_kev", func() string { return "/api/products?sort=kev&order=desc&has_vulnerabilities=true" }},
		{"product_detail", func() string { return fmt.Sprintf("/api/products/%d", pick(fl.vulnerable)) }},
	}
	for _, rt := range routes {
		b.Run(rt.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				path := rt.path()
				t0 := time.Now()
				res := w.alice.do(b, "GET", path, nil)
				took = append(took, time.Since(t0))
				if res.Status != http.StatusOK {
					b.Fatalf("GET %s: %d %.300s", path, res.Status, res.Body)
				}
			}
			slices.Sort(took)
			p95 := took[min(len(took)-1, len(took)*95/100)]
			b.ReportMetric(float64(p95.Microseconds())/1000, "p95-ms")
		})
	}
}

// exposureFleet are the generated ids the routes read.
type exposureFleet struct {
	hosts, vulnerable []int64
	cves              []string // CVEs some product has
}

// generateExposureFleet writes acme's products (some with findings on real CVEs, some
// unresolved) and hosts × exposureBenchPerHost installations, in transactions of 100 hosts.
func generateExposureFleet(tb testing.TB, w *invWorld, hosts int) exposureFleet {
	tb.Helper()
	ctx := context.Background()
	org, err := w.Accounts.Organization(ctx, "acme")
	if err != nil {
		tb.Fatal(err)
	}
	var cveIDs []string
	if err := w.Store.EachCVEConfiguration(ctx, func(id string, _ []byte) error {
		cveIDs = append(cveIDs, id)
		return nil
	}); err != nil || len(cveIDs) < 1000 {
		tb.Fatalf("CVE data: %d CVEs (%v)", len(cveIDs), err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Now().UTC()
	var fl exposureFleet
	products := make([]int64, exposureBenchDistinct)
	usedCVE := map[string]bool{}
	err = w.Store.InTx(ctx, func(tx appliance.Tx) error {
		for i := range products {
			p := appliance.Product{OrganizationID: org.ID, Vendor: fmt.Sprintf("Vendor %d", i/3), Name: fmt.Sprintf("Product %d", i/2),
				Version: fmt.Sprintf("%d.%d", i%7, i), Criticality: 2, CreatedAt: now, UpdatedAt: now,
				Identity:   appliance.Identity{Part: "a", Vendor: fmt.Sprintf("vendor%d", i/3), Product: fmt.Sprintf("product%d", i/2)},
				Resolution: appliance.ResolutionExact, ResolutionConfidence: 1}
			if i < exposureBenchUnresolved { // pairs of versions of one name: the queue's groups of two
				p.Identity, p.Resolution, p.ResolutionConfidence = appliance.Identity{}, appliance.ResolutionUnresolved, 0
			}
			id, err := tx.CreateProduct(ctx, p)
			if err != nil {
				return err
			}
			products[i] = id
			if i >= exposureBenchUnresolved && i%exposureBenchVulnerable == 0 {
				var ms []appliance.MatchInput
				for range 1 + rng.IntN(12) {
					cve := cveIDs[rng.IntN(len(cveIDs))]
					if !slices.ContainsFunc(ms, func(m appliance.MatchInput) bool { return m.CVEID == cve }) {
						ms = append(ms, appliance.MatchInput{CVEID: cve, Criteria: "cpe:2.3:a:generated:*"})
						usedCVE[cve] = true
					}
				}
				if _, err := tx.ReplaceMatches(ctx, id, ms, 1, now); err != nil {
					return err
				}
				fl.vulnerable = append(fl.vulnerable, id)
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("generate products: %v", err)
	}
	for cve := range usedCVE {
		fl.cves = append(fl.cves, cve)
	}
	slices.Sort(fl.cves)
	// Popular products are on most hosts, the long tail on few: draw from a skewed pool.
	for first := 0; first < hosts; first += 100 {
		err := w.Store.InTx(ctx, func(tx appliance.Tx) error {
			for h := first; h < min(first+100, hosts); h++ {
				seen := now.Add(-time.Duration(rng.IntN(4*86400)) * time.Second)
				id, err := tx.CreateAsset(ctx, appliance.Asset{OrganizationID: org.ID, Hostname: fmt.Sprintf("host-%05d", h),
					OSName: []string{"Windows", "Ubuntu", "macOS"}[h%3], OSVersion: "1", CreatedAt: seen, LastSeenAt: seen, LastInventoryAt: seen})
				if err != nil {
					return err
				}
				fl.hosts = append(fl.hosts, id)
				ins := make([]appliance.Installation, 0, exposureBenchPerHost)
				chosen := map[int]bool{}
				for len(ins) < exposureBenchPerHost {
					k := int(float64(len(products)) * rng.Float64() * rng.Float64())
					if chosen[k] {
						continue
					}
					chosen[k] = true
					ins = append(ins, appliance.Installation{AssetID: id, ProductID: products[k], CreatedAt: seen})
				}
				if err := tx.CreateInstallations(ctx, ins); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatalf("generate hosts: %v", err)
		}
	}
	return fl
}

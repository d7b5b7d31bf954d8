package web

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// BenchmarkUIPages renders every page of the web UI through the real handler, signed in
// through the sign-in form, over a real SQLite file holding the fleet (1,000 hosts ×
// 300 products by default, VK_BENCH_HOSTS to change it) and every shared NVD feed and KEV:
// it reports each page's p95 server time and its largest gzip-compressed size.
func BenchmarkUIPages(b *testing.B) {
	hosts := 1000
	if v, err := strconv.Atoi(os.Getenv("VK_BENCH_HOSTS")); err == nil && v > 0 {
		hosts = v
	}
	feeds, _ := filepath.Glob("../../shared/data/nvd/nvdcve-2.0-*.json.gz")
	feeds = append(feeds, "../../shared/data/kev/known_exploited_vulnerabilities.json")
	w := &invWorld{}
	w.build(b, withInventory(&w.inv, append([]string{catalogMini}, feeds...)...), withDeps(func(_ testing.TB, d *Deps, st *sqlitestore.Store) {
		d.Containers = containers.NewContainers(st, nil)
		d.Remediation = remediation.NewRemediation(st, nil)
	}))
	start := time.Now()
	fl := generateExposureFleet(b, w, hosts)
	b.Logf("%d feeds, %d hosts × %d products generated in %s", len(feeds), hosts, exposureBenchPerHost, time.Since(start).Round(time.Second))
	c := w.uiLogin(b, "alice", testPassword)
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func(ids []int64) int64 { return ids[rng.IntN(len(ids))] }
	pages := []struct {
		name string
		path func() string
	}{
		{"overview", func() string { return "/" }},
		{"hosts", func() string { return fmt.Sprintf("/hosts?page=%d", 1+rng.IntN(max(hosts/50, 1))) }},
		{"hosts_by_findings", func() string { return "/hosts?sort=findings&order=desc" }},
		{"host", func() string { return fmt.Sprintf("/hosts/%d", pick(fl.hosts)) }},
		{"vulnerabilities", func() string { return "/vulnerabilities" }},
		{"vulnerabilities_kev", func() string { return "/vulnerabilities?kev=true&sort=hosts&order=desc" }},
		{"vulnerability", func() string { return "/vulnerabilities/" + fl.cves[rng.IntN(len(fl.cves))] }},
		{"products", func() string { return fmt.Sprintf("/products?page=%d", 1+rng.IntN(exposureBenchDistinct/50)) }},
		{"products_by_risk", func() string { return "/products?sort=risk&has_vulnerabilities=true" }},
		{"product", func() string { return fmt.Sprintf("/products/%d", pick(fl.vulnerable)) }},
		{"review", func() string { return "/review" }},
		{"containers", func() string { return "/containers" }},
		{"remediation", func() string { return "/remediation" }},
		{"keys", func() string { return "/admin/keys" }},
		{"account", func() string { return "/account" }},
	}
	for _, pg := range pages {
		b.Run(pg.name, func(b *testing.B) {
			var took []time.Duration
			largest := 0
			for b.Loop() {
				path := pg.path()
				req, _ := http.NewRequest("GET", c.env.URL+path, nil)
				req.Header.Set("Accept-Encoding", "gzip")
				t0 := time.Now()
				res, err := c.http.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				took = append(took, time.Since(t0))
				if res.StatusCode != http.StatusOK {
					b.Fatalf("GET %s: %d %.300s", path, res.StatusCode, body)
				}
				size := len(body)
				if res.Header.Get("Content-Encoding") != "gzip" { // small pages go uncompressed
					var z bytes.Buffer
					zw := gzip.NewWriter(&z)
					_, _ = zw.Write(body)
					_ = zw.Close()
					size = min(size, z.Len())
				}
				largest = max(largest, size)
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[min(len(took)-1, len(took)*95/100)].Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(largest)/1024, "max-KB-gz")
		})
	}
}

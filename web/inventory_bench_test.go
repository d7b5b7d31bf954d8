package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

const (
	benchHosts    = 1000
	benchPerHost  = 300
	benchDistinct = 5000
	// benchAgents is how many agents post at once: the load generator shares the server's
	// two cores, as the measurement through the binary did.
	benchAgents = 8
)

// newIngestWorld is the ingestion benchmarks' server: the full catalogue, every shared NVD
// feed, KEV, and the shared OSV advisories imported into a real SQLite file.
func newIngestWorld(b *testing.B) *invWorld {
	b.Helper()
	feeds, _ := filepath.Glob("../../shared/data/nvd/nvdcve-2.0-*.json.gz")
	if len(feeds) == 0 {
		b.Fatal("no shared NVD feeds")
	}
	files := append([]string{fullCatalogue}, feeds...)
	files = append(files, "../../shared/data/kev/known_exploited_vulnerabilities.json")
	start := time.Now()
	w := newInvWorld(b, files...)
	ctx := context.Background()
	for _, dir := range []string{advData + "/ubuntu-osv", advData + "/redhat/almalinux-osv", advData + "/debian/osv", advData + "/ghsa-osv"} {
		if _, err := w.inv.Importer.ImportOSVDir(ctx, dir, os.DirFS(dir)); err != nil {
			b.Fatalf("import %s: %v", dir, err)
		}
	}
	if err := w.inv.Service.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("catalogue, %d NVD feeds, KEV and advisories imported in %s", len(feeds), time.Since(start).Round(time.Second))
	return w
}

// BenchmarkInventoryNew submits 1,000 new hosts × 300 products (5,000 distinct products)
// through the real handler and SQLite file from benchAgents concurrent agents; one op is the
// fleet. The first op also resolves and matches the 5,000 distinct products; the figure
// "warm" is new hosts whose products the server already knows, the steady state of a fleet.
func BenchmarkInventoryNew(b *testing.B) {
	w := newIngestWorld(b)
	f := newFleet(b, benchHosts, benchPerHost, benchDistinct)
	created := func(s inventorySummary) bool {
		return s.InstallationsCreated == benchPerHost && s.TotalProducts == benchPerHost
	}
	start := time.Now()
	f.post(b, w.acme, f.bodies(b, "cold"), created)
	cold := time.Since(start)
	round := 0
	for b.Loop() {
		round++
		f.post(b, w.acme, f.bodies(b, fmt.Sprintf("new%d", round)), created)
	}
	b.ReportMetric(float64(benchHosts)/cold.Seconds(), "cold-inventories/s")
	b.ReportMetric(float64(benchHosts*b.N)/b.Elapsed().Seconds(), "inventories/s")
}

// BenchmarkInventoryUnchanged resubmits the same 1,000 inventories: nothing changes.
func BenchmarkInventoryUnchanged(b *testing.B) {
	w := newIngestWorld(b)
	f := newFleet(b, benchHosts, benchPerHost, benchDistinct)
	bodies := f.bodies(b, "same")
	f.post(b, w.acme, bodies, func(inventorySummary) bool { return true })
	unchanged := inventorySummary{TotalProducts: benchPerHost}
	for b.Loop() {
		f.post(b, w.acme, bodies, func(s inventorySummary) bool { return s == unchanged })
	}
	b.ReportMetric(float64(benchHosts*b.N)/b.Elapsed().Seconds(), "inventories/s")
}

// bodies encodes every host's inventory once (hostnames prefixed), as an agent has it ready.
func (f fleet) bodies(tb testing.TB, prefix string) [][]byte {
	tb.Helper()
	out := make([][]byte, len(f.hosts))
	for h, items := range f.hosts {
		out[h] = mustJSON(tb, map[string]any{"hostname": fmt.Sprintf("%s-%04d", prefix, h), "products": items})
	}
	return out
}

// post sends the bodies from benchAgents concurrent agents and checks every answer.
func (f fleet) post(tb testing.TB, agent *client, bodies [][]byte, check func(inventorySummary) bool) {
	tb.Helper()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchAgents}, Timeout: time.Minute}
	defer hc.CloseIdleConnections()
	next := make(chan int)
	errs := make(chan error, benchAgents)
	var wg sync.WaitGroup
	for range benchAgents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range next {
				if err := postInventory(hc, agent, bodies[h], check); err != nil {
					errs <- fmt.Errorf("host %d: %w", h, err)
					for range next { // drain, so the sender finishes
					}
					return
				}
			}
		}()
	}
	for h := range bodies {
		next <- h
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

func postInventory(hc *http.Client, agent *client, body []byte, check func(inventorySummary) bool) error {
	req, err := http.NewRequest("POST", agent.env.URL+"/api/agent/inventory", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range agent.header {
		req.Header[k] = vs
	}
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d (%v): %.300s", res.StatusCode, err, raw)
	}
	var ans inventoryResponse
	if err := json.Unmarshal(raw, &ans); err != nil {
		return err
	}
	if !check(ans.Summary) {
		return fmt.Errorf("unexpected summary %+v", ans.Summary)
	}
	return nil
}

package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// repeated is prefix, n copies of item joined by commas, then suffix.
func repeated(prefix, item string, n int, suffix string) []byte {
	var b bytes.Buffer
	b.Grow(len(prefix) + n*(len(item)+1) + len(suffix))
	b.WriteString(prefix)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item)
	}
	b.WriteString(suffix)
	return b.Bytes()
}

// heapPeak samples the live heap while fn runs and returns how far it rose above where it was,
// and how long fn took.
func heapPeak(fn func()) (rise uint64, took time.Duration) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	peak.Store(base)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var s runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&s)
			if s.HeapAlloc > peak.Load() {
				peak.Store(s.HeapAlloc)
			}
		}
	})
	start := time.Now()
	fn()
	took = time.Since(start)
	close(done)
	wg.Wait()
	return peak.Load() - base, took
}

// boundedEnv is a server with inventory and container services and one agent key of "acme".
func boundedEnv(t testing.TB) (*testEnv, *client) {
	var inv inventoryServices
	env := newTestEnv(t, withInventory(&inv, catalogMini))
	attachScans(env)
	env.createOrg(t, "acme")
	key, _ := env.createAgentKey(t, "acme")
	return env, env.agent(key)
}

// TestAgentBodiesAreBoundedWhileRead posts the bodies that made the server allocate gigabytes
// (issue 8 §1) through the real router: each is refused within a second, with a heap that rises
// by a bounded amount, and nothing is stored.
func TestAgentBodiesAreBoundedWhileRead(t *testing.T) {
	env, agent := boundedEnv(t)
	digest := "sha256:" + strings.Repeat("a", 64)
	findings := func(n int) []byte {
		return repeated(`{"hostname":"h1","images":[{"image_name":"app:1","image_id":"`+digest+
			`","scan_results":{"SchemaVersion":2,"Results":[{"Target":"t","Vulnerabilities":[`,
			`{"VulnerabilityID":"CVE-2024-1","PkgName":"p"}`, n, `]}]}}]}`)
	}
	cases := []struct {
		name       string
		path       string
		body       []byte
		wantStatus int
		wantField  string
		maxRiseMB  uint64
	}{
		{"32 MB of empty products", "/api/agent/inventory",
			repeated(`{"hostname":"h1","products":[`, `{}`, 11<<20, `]}`), http.StatusRequestEntityTooLarge, "body", 64},
		{"10,001 products", "/api/agent/inventory",
			repeated(`{"hostname":"h1","products":[`, `{"product":"p","version":"1"}`, 10_001, `]}`), http.StatusBadRequest, "products", 64},
		{"12 MB of empty images", "/api/agent/container-scan",
			repeated(`{"hostname":"h1","images":[`, `{}`, 4<<20, `]}`), http.StatusBadRequest, "images", 64},
		{"51 images", "/api/agent/container-scan",
			repeated(`{"hostname":"h1","images":[`, `{"image_name":"a:1"}`, 51, `]}`), http.StatusBadRequest, "images", 16},
		{"8 MB of empty findings in one image", "/api/agent/container-scan", findings(8 << 20 / 46), http.StatusBadRequest, "images[0].scan_results", 64},
		{"a body past the container cap", "/api/agent/container-scan", findings(33 << 20 / 46), http.StatusRequestEntityTooLarge, "body", 64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var res response
			rise, took := heapPeak(func() { res = agent.do(t, "POST", c.path, c.body) })
			if res.Status != c.wantStatus {
				t.Fatalf("status %d, want %d: %s", res.Status, c.wantStatus, res.Body)
			}
			if e := decodeBody[errorBody](t, res); e.Details.Field != c.wantField {
				t.Errorf("details.field %q, want %q (%s)", e.Details.Field, c.wantField, res.Body)
			}
			t.Logf("%d bytes refused in %v, heap rose %.1f MB", len(c.body), took, float64(rise)/(1<<20))
			if took > time.Second {
				t.Errorf("refusal took %v, want well under a second", took)
			}
			if rise > c.maxRiseMB<<20 {
				t.Errorf("heap rose %.1f MB, want at most %d MB", float64(rise)/(1<<20), c.maxRiseMB)
			}
		})
	}
	if _, err := env.Store.AssetByHostname(t.Context(), "h1"); !isNotFound(err) {
		t.Errorf("a refused body stored its host: %v", err)
	}
}

func isNotFound(err error) bool { return err != nil && strings.Contains(err.Error(), "not found") }

// TestProductListAcceptsTheCap: exactly 10,000 items decode; the cap is not off by one.
func TestProductListAcceptsTheCap(t *testing.T) {
	var req inventoryRequest
	body := repeated(`{"hostname":"h1","products":[`, `{}`, 10_000, `]}`)
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("10,000 products refused: %v", err)
	}
	if len(*req.Products) != 10_000 {
		t.Fatalf("decoded %d products", len(*req.Products))
	}
	var scan containerScanRequest
	if err := json.Unmarshal(repeated(`{"hostname":"h1","images":[`, `{}`, 50, `]}`), &scan); err != nil || len(scan.Images) != 50 {
		t.Fatalf("50 images: %d, %v", len(scan.Images), err)
	}
}

// TestStoredStringsMustBeCleanText: invalid UTF-8 and NUL in any string of a body is a 400
// naming the field, and nothing is stored.
func TestStoredStringsMustBeCleanText(t *testing.T) {
	env, agent := boundedEnv(t)
	admin := func() *client {
		env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
		return env.login(t, "alice", testPassword)
	}()
	cases := []struct {
		name, path string
		c          *client
		body       string
		field      string
		constraint string
	}{
		{"raw invalid UTF-8 in a vendor", "/api/agent/inventory", agent,
			"{\"hostname\":\"h1\",\"products\":[{\"product\":\"a\"},{\"vendor\":\"Ac\xffme\",\"product\":\"x\"}]}", "products[1].vendor", "utf8"},
		{"NUL escape in a hostname", "/api/agent/inventory", agent, `{"hostname":"h\u00001","products":[]}`, "hostname", "nul"},
		{"unpaired surrogate in a version", "/api/agent/inventory", agent,
			`{"hostname":"h1","products":[{"product":"x","version":"1\ud800"}]}`, "products[0].version", "utf8"},
		{"NUL in an os name", "/api/agent/inventory", agent, `{"hostname":"h1","os":{"name":"Lin\u0000ux"},"products":[]}`, "os.name", "nul"},
		{"NUL in a container image name", "/api/agent/container-scan", agent,
			`{"hostname":"h1","images":[{"image_name":"app\u0000:1","image_id":"x","scan_results":{}}]}`, "images[0].image_name", "nul"},
		{"invalid UTF-8 in a product name (person route)", "/api/products", admin,
			"{\"name\":\"Fire\xc3fox\",\"vendor\":\"Mozilla\",\"version\":\"1\"}", "name", "utf8"},
		{"NUL in a login user name", "/api/auth/login", env.anonymous(), `{"username":"al\u0000ice","password":"x"}`, "username", "nul"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := c.c.do(t, "POST", c.path, []byte(c.body))
			if res.Status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", res.Status, res.Body)
			}
			e := decodeBody[errorBody](t, res)
			if e.Details.Field != c.field || e.Details.Constraint != c.constraint {
				t.Errorf("details %+v, want field %q constraint %q", e.Details, c.field, c.constraint)
			}
		})
	}
	if _, err := env.Store.AssetByHostname(t.Context(), "h1"); !isNotFound(err) {
		t.Errorf("a refused inventory stored its host: %v", err)
	}
	// Clean text, including a real U+FFFD and an escaped pair, is stored as sent.
	res := agent.do(t, "POST", "/api/agent/inventory", []byte(`{"hostname":"h1","products":[{"product":"Caf\u00e9 \ud83d\ude00 `+"\uFFFD"+`","version":"1"}]}`))
	if res.Status != http.StatusOK {
		t.Fatalf("clean inventory: %d %s", res.Status, res.Body)
	}
}

// TestHostnamesAreNormalized: "PC-01." and "pc-01" are one host; another organization's key
// gets 409 for it, on inventories, heartbeats and container scans alike.
func TestHostnamesAreNormalized(t *testing.T) {
	env, agent := boundedEnv(t)
	env.createOrg(t, "rival")
	rivalKey, _ := env.createAgentKey(t, "rival")
	rival := env.agent(rivalKey)

	first := decodeBody[inventoryResponse](t, agent.do(t, "POST", "/api/agent/inventory", map[string]any{"hostname": " PC-01. ", "products": []any{}}))
	if first.Hostname != "pc-01" {
		t.Errorf("stored hostname %q, want pc-01", first.Hostname)
	}
	again := decodeBody[inventoryResponse](t, agent.do(t, "POST", "/api/agent/inventory", map[string]any{"hostname": "pc-01", "products": []any{}}))
	if again.AssetID != first.AssetID {
		t.Errorf("pc-01 is asset %d, PC-01. was %d", again.AssetID, first.AssetID)
	}
	hb := decodeBody[heartbeatResponse](t, agent.do(t, "POST", "/api/agent/heartbeat", map[string]any{"hostname": "Pc-01."}))
	if hb.AssetID != first.AssetID {
		t.Errorf("heartbeat of Pc-01. is asset %d, want %d", hb.AssetID, first.AssetID)
	}
	scan := scanFixture(t)
	scan["hostname"] = "PC-01"
	for _, req := range []struct {
		path string
		body any
	}{
		{"/api/agent/inventory", map[string]any{"hostname": "PC-01", "products": []any{}}},
		{"/api/agent/heartbeat", map[string]any{"hostname": "pc-01."}},
		{"/api/agent/container-scan", scan},
	} {
		res := rival.do(t, "POST", req.path, req.body)
		if res.Status != http.StatusConflict {
			t.Errorf("%s by another organization: %d, want 409 (%s)", req.path, res.Status, res.Body)
		}
	}
	imgs, total, err := env.Store.ListContainerImages(t.Context(), appliance.ContainerFilter{OrganizationID: 2, Page: 1, PerPage: 10})
	if err != nil || total != 0 || len(imgs) != 0 {
		t.Errorf("the refused scan stored %d images (%v)", total, err)
	}
	// The owner's scan of the same host is accepted and filed under the normalized name.
	res := agent.do(t, "POST", "/api/agent/container-scan", scan)
	if res.Status != http.StatusOK {
		t.Fatalf("owner's scan: %d %s", res.Status, res.Body)
	}
	if got := decodeBody[containerScanResponse](t, res).Hostname; got != "pc-01" {
		t.Errorf("scan hostname %q, want pc-01", got)
	}
}

// BenchmarkRefuseHugeAgentBodies reports time and heap of refusing the bodies.
func BenchmarkRefuseHugeAgentBodies(b *testing.B) {
	_, agent := boundedEnv(b)
	bodies := map[string][]byte{
		"inventory-32MB-empty-items": repeated(`{"hostname":"h1","products":[`, `{}`, 11<<20, `]}`),
		"scan-12MB-empty-images":     repeated(`{"hostname":"h1","images":[`, `{}`, 4<<20, `]}`),
	}
	for name, body := range bodies {
		b.Run(name, func(b *testing.B) {
			var worst uint64
			for b.Loop() {
				rise, _ := heapPeak(func() { agent.do(b, "POST", pathFor(name), body) })
				worst = max(worst, rise)
			}
			b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MB")
		})
	}
}

func pathFor(name string) string {
	if strings.HasPrefix(name, "scan") {
		return "/api/agent/container-scan"
	}
	return "/api/agent/inventory"
}

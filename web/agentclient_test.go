package web

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/agentrun"
	"github.com/vulnkeeper/vulnkeeper/appliance/collect"
)

// scriptedServer answers inventory posts with the given statuses in turn (then 200) and
// records what it received.
type scriptedServer struct {
	mu       sync.Mutex
	statuses []int
	retry    string
	posts    []agentInventoryJSON
	headers  []http.Header
}

func (s *scriptedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/api/agent/config":
		writeJSON(w, 200, agentConfigJSON{ScanInterval: 3600})
		return
	case "/api/agent/heartbeat":
		writeJSON(w, 200, heartbeatResponse{Status: "ok"})
		return
	}
	s.headers = append(s.headers, r.Header.Clone())
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		writeErrorBody(w, 400, "validation_error", "not gzip", errorDetails{})
		return
	}
	var inv agentInventoryJSON
	if err := json.NewDecoder(zr).Decode(&inv); err != nil {
		writeErrorBody(w, 400, "validation_error", "bad json", errorDetails{})
		return
	}
	s.posts = append(s.posts, inv)
	if len(s.statuses) > 0 {
		st := s.statuses[0]
		s.statuses = s.statuses[1:]
		if s.retry != "" {
			w.Header().Set("Retry-After", s.retry)
		}
		writeErrorBody(w, st, "x", "scripted", errorDetails{})
		return
	}
	writeJSON(w, 200, inventoryResponse{Status: "success"})
}

type fakeInventory struct{ inv collect.Inventory }

func (f fakeInventory) collect() (collect.Inventory, error) { return f.inv, nil }

// newScriptedRunner builds a runner against srv whose waits are recorded, not slept.
func newScriptedRunner(t *testing.T, url string, opts AgentClientOptions) (*agentrun.Runner, *[]time.Duration, string) {
	t.Helper()
	opts.Server, opts.Key = url, "vk_test"
	cli, err := NewAgentClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	dir := t.TempDir()
	inv := fakeInventory{collect.Inventory{Hostname: "h1", Products: []collect.Product{{Vendor: "v", Product: "p", Version: "1", Source: "deb"}}}}
	r, err := agentrun.New(cli, agentrun.Options{StateDir: dir, Version: "1.2.3", Collect: inv.collect,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return r, &waits, dir
}

func TestAgentClientRetries(t *testing.T) {
	cases := []struct {
		name      string
		statuses  []int
		retry     string
		want      agentrun.Outcome
		posts     int
		waitRange [][2]time.Duration
	}{
		{"429 honours Retry-After", []int{429}, "7", agentrun.Sent, 2, [][2]time.Duration{{7 * time.Second, 7 * time.Second}}},
		{"5xx backs off with jitter", []int{503, 502}, "", agentrun.Sent, 3,
			[][2]time.Duration{{time.Second, 3 * time.Second}, {2 * time.Second, 6 * time.Second}}},
		{"400 is not retried", []int{400}, "", agentrun.Spooled, 1, nil},
		{"401 is not retried", []int{401}, "", agentrun.Spooled, 1, nil},
		{"gives up after the attempts, spooled", []int{503, 503, 503, 503}, "1", agentrun.Spooled, 4,
			[][2]time.Duration{{time.Second, time.Second}, {time.Second, time.Second}, {time.Second, time.Second}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := &scriptedServer{statuses: c.statuses, retry: c.retry}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			r, waits, dir := newScriptedRunner(t, hs.URL, AgentClientOptions{})
			out, err := r.Cycle(t.Context())
			if out != c.want || (err == nil) != (c.want == agentrun.Sent) {
				t.Fatalf("outcome %q err %v, want %q", out, err, c.want)
			}
			if len(srv.posts) != c.posts || len(*waits) != len(c.waitRange) {
				t.Fatalf("%d posts, waits %v", len(srv.posts), *waits)
			}
			for i, w := range *waits {
				if w < c.waitRange[i][0] || w > c.waitRange[i][1] {
					t.Errorf("wait %d = %v, want within %v", i, w, c.waitRange[i])
				}
			}
			_, statErr := os.Stat(filepath.Join(dir, "spool.json"))
			if spooled := statErr == nil; spooled != (c.want == agentrun.Spooled) {
				t.Errorf("spool present = %v", spooled)
			}
			h := srv.headers[0]
			if h.Get("Content-Encoding") != "gzip" || h.Get("X-Agent-Key") != "vk_test" {
				t.Errorf("headers %v", h)
			}
			p := srv.posts[0]
			if p.Hostname != "h1" || p.Agent.Version != "1.2.3" || p.Agent.ID != r.AgentID() || len(p.Products) != 1 {
				t.Errorf("posted %+v", p)
			}
		})
	}
}

// TLS: an unknown certificate is refused; the CA file or a matching pin admits it; a pin
// that does not match refuses it even with the CA.
func TestAgentClientTLS(t *testing.T) {
	hs := httptest.NewTLSServer(&scriptedServer{})
	defer hs.Close()
	der := hs.Certificate().Raw
	sum := sha256.Sum256(der)
	pin := hex.EncodeToString(sum[:])
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	wrong := strings.Repeat("ab", 32)
	for _, c := range []struct {
		name string
		opts AgentClientOptions
		ok   bool
	}{
		{"system roots only", AgentClientOptions{}, false},
		{"CA file", AgentClientOptions{CAFile: ca}, true},
		{"pin alone", AgentClientOptions{PinSHA256: pin}, true},
		{"pin with colons and CA", AgentClientOptions{CAFile: ca, PinSHA256: colons(pin)}, true},
		{"wrong pin with CA", AgentClientOptions{CAFile: ca, PinSHA256: wrong}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _, _ := newScriptedRunner(t, hs.URL, c.opts)
			out, err := r.Cycle(t.Context())
			if (err == nil) != c.ok {
				t.Fatalf("outcome %q err %v", out, err)
			}
		})
	}
	if _, err := NewAgentClient(AgentClientOptions{Server: hs.URL, PinSHA256: "abc"}); err == nil {
		t.Error("a short pin was accepted")
	}
}

func colons(h string) string {
	var parts []string
	for i := 0; i < len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.ToUpper(strings.Join(parts, ":"))
}

package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"runtime"
	"testing"
	"time"
)

func gzipped(t testing.TB, parts ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	for _, p := range parts {
		if _, err := zw.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// postEncoded posts raw bytes with a Content-Encoding to an agent route.
func postEncoded(t testing.TB, env *testEnv, key, path, encoding string, body io.Reader) response {
	t.Helper()
	req, err := http.NewRequest("POST", env.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Agent-Key", key)
	req.Header.Set("Content-Type", "application/json")
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

func TestAgentRoutesAcceptGzip(t *testing.T) {
	var inv inventoryServices
	env := newTestEnv(t, withInventory(&inv, catalogMini))
	env.createOrg(t, "acme")
	key, _ := env.createAgentKey(t, "acme")
	body := []byte(`{"hostname":"gz-host","products":[{"vendor":"Igor Pavlov","product":"7-Zip","version":"19.00"}]}`)
	good := gzipped(t, body)

	res := postEncoded(t, env, key, "/api/agent/inventory", "gzip", bytes.NewReader(good))
	if res.Status != 200 {
		t.Fatalf("gzip inventory: %d %s", res.Status, res.Body)
	}
	if got := decodeBody[inventoryResponse](t, res); got.Hostname != "gz-host" || got.Summary.TotalProducts != 1 {
		t.Errorf("answer %+v", got)
	}
	hb := gzipped(t, []byte(`{"hostname":"gz-host","agent_version":"1.0.0"}`))
	if res := postEncoded(t, env, key, "/api/agent/heartbeat", "gzip", bytes.NewReader(hb)); res.Status != 200 {
		t.Errorf("gzip heartbeat: %d %s", res.Status, res.Body)
	}
	corrupt := append([]byte(nil), good...)
	corrupt[len(corrupt)-6] ^= 0xff // the CRC-32 trailer no longer matches
	for _, c := range []struct {
		name, enc string
		body      []byte
		status    int
		code      string
	}{
		{"brotli refused", "br", body, 415, "unsupported_media_type"},
		{"not gzip at all", "gzip", body, 400, "validation_error"},
		{"corrupt gzip stream", "gzip", corrupt, 400, "validation_error"},
		{"plain body still accepted", "", body, 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := postEncoded(t, env, key, "/api/agent/inventory", c.enc, bytes.NewReader(c.body))
			if res.Status != c.status {
				t.Fatalf("status %d, want %d: %s", res.Status, c.status, res.Body)
			}
			if c.code != "" {
				wantError(t, res, c.code)
			}
		})
	}
}

// A gzip bomb (1 GiB of JSON whitespace in about 1 MB) is refused at the decompressed cap:
// 413, quickly, without inflating the rest.
func TestAgentGzipBombRefusedCheaply(t *testing.T) {
	var inv inventoryServices
	env := newTestEnv(t, withInventory(&inv, catalogMini))
	env.createOrg(t, "acme")
	key, _ := env.createAgentKey(t, "acme")
	parts := [][]byte{[]byte(`{"hostname":"bomb","products":[`)}
	spaces := bytes.Repeat([]byte(" "), 1<<20)
	for range 1024 {
		parts = append(parts, spaces)
	}
	bomb := gzipped(t, parts...)
	if len(bomb) > 8<<20 {
		t.Fatalf("bomb is %d bytes compressed", len(bomb))
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := postEncoded(t, env, key, "/api/agent/inventory", "gzip", bytes.NewReader(bomb))
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if res.Status != 413 {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	wantError(t, res, "payload_too_large")
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("bomb: %d bytes compressed, 1 GiB inflated; refused in %v after allocating %d MB (cap %d MB)",
		len(bomb), elapsed, allocated>>20, env.Server.opts.MaxBodyBytes>>20)
	// far below the 1 GiB it inflates to; what is allocated is the JSON decoder's buffer up to the cap
	if elapsed > 5*time.Second || allocated > 256<<20 {
		t.Errorf("bomb cost %v and %d MB", elapsed, allocated>>20)
	}
}

package web

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestDocumentsAndFallbacks(t *testing.T) {
	env := newTestEnv(t)
	anon := env.anonymous()
	runScenarios(t, []scenario{
		{"health when ready", "GET", "/healthz", nil, anon, 200, nil},
		{"openapi document", "GET", "/api/openapi.json", nil, anon, 200, func(t *testing.T, res response) {
			doc := decodeBody[struct {
				OpenAPI string         `json:"openapi"`
				Paths   map[string]any `json:"paths"`
			}](t, res)
			if doc.OpenAPI != "3.1.0" || len(doc.Paths) == 0 {
				t.Errorf("openapi = %q with %d paths, want 3.1.0 with paths", doc.OpenAPI, len(doc.Paths))
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
		}},
		{"docs page", "GET", "/api/docs/", nil, anon, 200, func(t *testing.T, res response) {
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("Content-Type = %q, want text/html", ct)
			}
		}},
		{"swagger bundle", "GET", "/api/docs/swagger-ui-bundle.js", nil, anon, 200, func(t *testing.T, res response) {
			if ct := res.Header.Get("Content-Type"); !strings.Contains(ct, "javascript") || len(res.Body) < 10_000 {
				t.Errorf("Content-Type = %q, %d bytes; want a JavaScript bundle", ct, len(res.Body))
			}
		}},
		{"missing docs asset", "GET", "/api/docs/nothing.js", nil, anon, 404, wantErrorCode("not_found")},
		{"unknown route", "GET", "/api/nothing", nil, anon, 404, wantErrorCode("not_found")},
		{"licence route on an installation", "GET", "/api/v1/kb/mappings/pull", nil, anon, 404, wantErrorCode("not_found")},
		{"wrong method", "DELETE", "/api/openapi.json", nil, anon, 405, func(t *testing.T, res response) {
			wantError(t, res, "method_not_allowed")
			if allow := res.Header.Get("Allow"); !strings.Contains(allow, "GET") {
				t.Errorf("Allow = %q, want GET in it", allow)
			}
		}},
	})
}

func TestHealthGatedByReadiness(t *testing.T) {
	env := newTestEnv(t)
	env.Server.SetReady(false)
	c := env.anonymous()
	if res := c.do(t, "GET", "/healthz", nil); res.Status != 503 {
		t.Fatalf("before ready: status %d, want 503", res.Status)
	}
	env.Server.SetReady(true)
	res := c.do(t, "GET", "/healthz", nil)
	if st := decodeBody[map[string]string](t, res)["status"]; res.Status != 200 || st != "ok" {
		t.Errorf("after ready: status %d, body status %q", res.Status, st)
	}
}

func TestCommonHeaders(t *testing.T) {
	env := newTestEnv(t)
	res := env.anonymous().do(t, "GET", "/healthz", nil)
	want := map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Cache-Control": "no-store"}
	for name, value := range want {
		if got := res.Header.Get(name); got != value {
			t.Errorf("%s = %q, want %q", name, got, value)
		}
	}
	if len(res.Header.Get("X-Request-ID")) != 16 {
		t.Errorf("X-Request-ID = %q, want 16 hex digits", res.Header.Get("X-Request-ID"))
	}
}

var routeParam = regexp.MustCompile(`[:*]([A-Za-z_]+)`)

// TestEveryRouteIsDocumented fails when a registered route is missing from the OpenAPI
// document (path with {param} and method).
func TestEveryRouteIsDocumented(t *testing.T) {
	for _, license := range []bool{false, true} {
		var opts []envOption
		if license {
			opts = append(opts, withLicenseServer())
		}
		env := newTestEnv(t, opts...)
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(env.Server.openapi, &doc); err != nil {
			t.Fatal(err)
		}
		for _, rt := range env.Server.apiRoutes() {
			path := routeParam.ReplaceAllString(rt.path, "{$1}")
			if _, ok := doc.Paths[path][strings.ToLower(rt.method)]; !ok {
				t.Errorf("license=%v: %s %s (as %s) is not in the OpenAPI document", license, rt.method, rt.path, path)
			}
		}
	}
}

func TestLicenseServerServesNoInstallationRoutes(t *testing.T) {
	env := newTestEnv(t, withLicenseServer())
	runScenarios(t, []scenario{
		{"health", "GET", "/healthz", nil, env.anonymous(), 200, nil},
		{"login", "POST", "/api/auth/login", loginRequest{"alice", testPassword}, env.anonymous(), 404, wantErrorCode("not_found")},
		{"agent config", "GET", "/api/agent/config", nil, env.anonymous(), 404, wantErrorCode("not_found")},
	})
}

// TestGracefulShutdown cancels Serve while a login's body is still arriving: the request
// must complete with 200, Serve must return nil, and new connections must be refused.
func TestGracefulShutdown(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleMember)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- env.Server.Serve(ctx, ln) }()

	body, feed := io.Pipe()
	req, err := http.NewRequest("POST", "http://"+ln.Addr().String()+"/api/auth/login", body)
	if err != nil {
		t.Fatal(err)
	}
	// With 100-continue the client hands over body bytes only once the handler reads the
	// body, so after the first write below the request is surely in flight.
	req.Header.Set("Expect", "100-continue")
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
	answered := make(chan *http.Response, 1)
	go func() {
		res, err := client.Do(req)
		if err != nil {
			t.Errorf("in-flight request: %v", err)
		}
		answered <- res
	}()
	if _, err := io.WriteString(feed, `{"username":"alice",`); err != nil {
		t.Fatal(err)
	}
	cancel()
	waitUntilRefused(t, ln.Addr().String())
	if _, err := io.WriteString(feed, `"password":"`+testPassword+`"}`); err != nil {
		t.Fatal(err)
	}
	feed.Close()
	if res := <-answered; res == nil || res.StatusCode != 200 {
		t.Fatalf("in-flight request after cancel: %v, want 200", res)
	} else {
		res.Body.Close()
	}
	if err := <-served; err != nil {
		t.Errorf("Serve returned %v, want nil", err)
	}
}

// waitUntilRefused returns once addr accepts no new connections (the shutdown has begun).
func waitUntilRefused(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return
		}
		conn.Close()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("listener still accepts connections after cancel")
}

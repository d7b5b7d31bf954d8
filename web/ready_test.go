package web

import (
	"net/http"
	"testing"
)

// Until the indexes are loaded (and again while stopping) only /healthz answers: every other
// route is 503 with the error body and a Retry-After, never a half-initialised answer.
func TestRoutesWaitForReadiness(t *testing.T) {
	env := newTestEnv(t)
	env.Server.SetReady(false)
	anon := env.anonymous()
	res := anon.do(t, "GET", "/api/openapi.json", nil)
	if res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("before ready: %d %v, want 503 with Retry-After", res.Status, res.Header)
	}
	wantErrorCode("unavailable")(t, res)
	if res := anon.do(t, "GET", "/healthz", nil); res.Status != http.StatusServiceUnavailable {
		t.Fatalf("healthz before ready: %d, want 503", res.Status)
	}
	env.Server.SetReady(true)
	if res := anon.do(t, "GET", "/api/openapi.json", nil); res.Status != http.StatusOK {
		t.Fatalf("after ready: %d, want 200", res.Status)
	}
}

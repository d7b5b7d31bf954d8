package web

import (
	"net/http"
	"strings"
	"testing"
)

// /metrics needs a key of the metrics scope (Bearer, as Prometheus sends it, or X-API-Key);
// it counts requests by route pattern and status.
func TestMetrics(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	scraper, _ := env.createAgentKey(t, "acme", "metrics")
	agent, _ := env.createAgentKey(t, "acme", "agent")
	env.agent(agent).do(t, "GET", "/api/agent/config", nil)
	env.anonymous().do(t, "GET", "/api/products/7", nil)

	runScenarios(t, []scenario{
		{"no key", "GET", "/metrics", nil, env.anonymous(), http.StatusUnauthorized, nil},
		{"agent-scope key", "GET", "/metrics", nil, env.anonymous().withHeader("Authorization", "Bearer "+agent), http.StatusForbidden, nil},
		{"metrics key as X-API-Key", "GET", "/metrics", nil, env.anonymous().withHeader("X-API-Key", scraper), http.StatusOK, nil},
	})
	res := env.anonymous().withHeader("Authorization", "Bearer "+scraper).do(t, "GET", "/metrics", nil)
	body := string(res.Body)
	for _, want := range []string{
		`vulnkeeper_http_requests_total{method="GET",route="/api/agent/config",status="200"} 1`,
		`vulnkeeper_http_requests_total{method="GET",route="/api/products/:id",status="401"} 1`,
		"go_goroutines",
	} {
		if res.Status != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("metrics: status %d, missing %q", res.Status, want)
		}
	}
}

package web

import (
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestAgentAuthentication(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	key, _ := env.createAgentKey(t, "acme")
	revokedKey, revoked := env.createAgentKey(t, "acme")
	if err := env.Accounts.RevokeAgentKey(t.Context(), "acme", revoked.ID); err != nil {
		t.Fatal(err)
	}
	metricsKey, _ := env.createAgentKey(t, "acme", "metrics")
	person := env.login(t, "alice", testPassword)
	wantConfig := toAgentConfigJSON(appliance.DefaultAgentConfig())
	checkConfig := func(t *testing.T, res response) {
		if got := decodeBody[agentConfigJSON](t, res); got != wantConfig {
			t.Errorf("config = %+v, want %+v", got, wantConfig)
		}
	}
	runScenarios(t, []scenario{
		{"X-Agent-Key", "GET", "/api/agent/config", nil, env.agent(key), 200, checkConfig},
		{"X-API-Key", "GET", "/api/agent/config", nil, env.anonymous().withHeader("X-API-Key", key), 200, checkConfig},
		{"no key", "GET", "/api/agent/config", nil, env.anonymous(), 401, wantErrorCode("unauthorized")},
		{"unknown key", "GET", "/api/agent/config", nil, env.agent("vk_0000000000000000000000000000000000000000000000"), 401,
			wantErrorCode("unauthorized")},
		{"revoked key", "GET", "/api/agent/config", nil, env.agent(revokedKey), 401, wantErrorCode("unauthorized")},
		{"key without the agent scope", "GET", "/api/agent/config", nil, env.agent(metricsKey), 403, wantErrorCode("forbidden")},
		{"session cookie alone", "GET", "/api/agent/config", nil, person, 401, wantErrorCode("unauthorized")},
		{"agent key on a session route", "GET", "/api/auth/me", nil, env.agent(key), 401, wantErrorCode("unauthorized")},
		{"agent key on a session write", "POST", "/api/auth/logout", nil, env.agent(key), 401, wantErrorCode("unauthorized")},
	})
}

func TestAgentKeyLastUsedRecorded(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	key, k := env.createAgentKey(t, "acme")
	if res := env.agent(key).do(t, "GET", "/api/agent/config", nil); res.Status != 200 {
		t.Fatalf("status %d", res.Status)
	}
	keys, err := env.Accounts.AgentKeys(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].ID != k.ID || keys[0].LastUsedAt.IsZero() {
		t.Errorf("keys = %+v, want key %d with a last use", keys, k.ID)
	}
}

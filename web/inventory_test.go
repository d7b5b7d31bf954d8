package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// invWorld is a server with the inventory wired over imported fixtures, two organizations
// (acme, globex), an admin in each and an agent key each.
type invWorld struct {
	*testEnv
	inv          inventoryServices
	acme, globex *client // agents
	alice, carol *client // people
}

func newInvWorld(t testing.TB, files ...string) *invWorld {
	t.Helper()
	w := &invWorld{}
	return w.build(t, withInventory(&w.inv, files...))
}

func (w *invWorld) build(t testing.TB, opts ...envOption) *invWorld {
	t.Helper()
	w.testEnv = newTestEnv(t, opts...)
	for _, org := range []string{"acme", "globex"} {
		w.createOrg(t, org)
	}
	w.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	w.createUser(t, "globex", "carol", appliance.RoleOrgAdmin)
	acmeKey, _ := w.createAgentKey(t, "acme")
	globexKey, _ := w.createAgentKey(t, "globex")
	w.acme, w.globex = w.agent(acmeKey), w.agent(globexKey)
	w.alice, w.carol = w.login(t, "alice", testPassword), w.login(t, "carol", testPassword)
	return w
}

func inv(vendor, product, version string) inventoryItem {
	return inventoryItem{Vendor: vendor, Product: product, Version: version}
}

// hostA is the conformance suite's first host.
var hostA = []inventoryItem{
	inv("openssl", "openssl", "1.1.1k"),
	inv("Google LLC", "Google Chrome", "116.0.5845.96"),
	inv("Notepad++ Team", "Notepad++ (64-bit x64)", "8.5.6"),
	inv("Apache Software Foundation", "Apache Log4j", "2.17.1"),
	inv("Acme Widgets", "Totally Unknown Widget", "1.0"),
	inv("Igor Pavlov", "7-Zip 21.07 (x64)", "21.07"),
	inv("Mozilla", "Mozilla Firefox (x64 en-US)", "118.0.1"),
}

func inventoryBody(host string, items ...inventoryItem) map[string]any {
	return map[string]any{"hostname": host, "products": append([]inventoryItem{}, items...)} // never null
}

// wantSummary checks a 200 inventory answer's counts.
func wantSummary(want inventorySummary) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		got := decodeBody[inventoryResponse](t, res)
		if got.Status != "success" || got.AssetID == 0 || got.Summary != want || len(got.Warnings) != 0 {
			t.Errorf("answer = %+v, want success with %+v", got, want)
		}
	}
}

// wantField checks a 400 validation_error naming field in its details.
func wantField(field string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		if b := wantError(t, res, "validation_error"); b.Details.Field != field {
			t.Errorf("details.field = %q, want %q", b.Details.Field, field)
		}
	}
}

func TestInventoryScenarios(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini, kevMini)
	full := map[string]any{"hostname": "host-a", "fqdn": "host-a.example.internal", "ip_address": "10.0.0.5",
		"os":    map[string]string{"name": "Windows", "version": "10.0.19045", "kernel": "10.0.19045"},
		"agent": map[string]string{"id": "agent-1", "version": "1.4.0"}, "products": hostA}
	tooMany := make([]inventoryItem, 10001)
	for i := range tooMany {
		tooMany[i] = inv("v", fmt.Sprintf("p%d", i), "1")
	}
	apiKey := w.anonymous().withHeader("X-API-Key", w.acme.header.Get("X-Agent-Key"))
	runScenarios(t, []scenario{
		{"no key", "POST", "/api/agent/inventory", full, w.anonymous(), 401, wantErrorCode("unauthorized")},
		{"first inventory", "POST", "/api/agent/inventory", full, w.acme, 200,
			wantSummary(inventorySummary{ProductsCreated: 7, InstallationsCreated: 7, TotalProducts: 7})},
		{"unchanged", "POST", "/api/agent/inventory", full, w.acme, 200, wantSummary(inventorySummary{TotalProducts: 7})},
		{"one omitted, X-API-Key", "POST", "/api/agent/inventory", inventoryBody("host-a", hostA[:6]...), apiKey, 200,
			wantSummary(inventorySummary{InstallationsRemoved: 1, TotalProducts: 6})},
		{"no products key", "POST", "/api/agent/inventory", `{"hostname":"host-a","software":[{"name":"x","version":"1"}]}`, w.acme, 200,
			func(t *testing.T, res response) {
				got := decodeBody[inventoryResponse](t, res)
				if len(got.Warnings) == 0 || got.Summary != (inventorySummary{}) || got.AssetID == 0 {
					t.Errorf("answer = %+v, want warnings, zero counts and the asset id", got)
				}
			}},
		{"delta", "POST", "/api/agent/inventory", `{"hostname":"host-a","delta":true,"software_added":[]}`, w.acme, 400, wantField("delta")},
		{"malformed", "POST", "/api/agent/inventory", `{not json`, w.acme, 400, wantErrorCode("validation_error")},
		{"missing version", "POST", "/api/agent/inventory", `{"hostname":"host-a","products":[{"vendor":"v","product":"p"}]}`, w.acme, 400,
			wantField("products[0].version")},
		{"no hostname", "POST", "/api/agent/inventory", `{"products":[]}`, w.acme, 400, wantField("hostname")},
		{"a number for a version", "POST", "/api/agent/inventory",
			`{"hostname":"host-a","products":[{"product":"a","version":"1"},{"product":"b","version":"1"},{"product":"c","version":2}]}`,
			w.acme, 400, wantField("products[2].version")},
		{"products not an array", "POST", "/api/agent/inventory", `{"hostname":"host-a","products":{"product":"a"}}`, w.acme, 400,
			wantField("products")},
		{"too many products", "POST", "/api/agent/inventory", inventoryBody("host-a", tooMany...), w.acme, 400, wantField("products")},
		{"os not an object", "POST", "/api/agent/inventory", `{"hostname":"host-a","os":"linux","products":[]}`, w.acme, 400, wantField("os")},
		{"another organization's host", "POST", "/api/agent/inventory", inventoryBody("host-a"), w.globex, 409, wantErrorCode("conflict")},
		{"empty products", "POST", "/api/agent/inventory", inventoryBody("host-a"), w.acme, 200,
			wantSummary(inventorySummary{InstallationsRemoved: 6})},
	})
}

func TestInventoryRecordsTheHost(t *testing.T) {
	w := newInvWorld(t, catalogMini)
	ctx := context.Background()
	body := map[string]any{"hostname": " pc-1 ", "fqdn": "pc-1.example", "os": map[string]string{"name": "Debian", "version": "12"},
		"agent": map[string]string{"id": "a-1", "version": "2.0"}, "products": []inventoryItem{inv(" openssl ", "openssl", "1.1.1k")}}
	res := w.acme.do(t, "POST", "/api/agent/inventory", body)
	if res.Status != 200 || decodeBody[inventoryResponse](t, res).Hostname != "pc-1" {
		t.Fatalf("status %d, body %s; want 200 for hostname pc-1", res.Status, res.Body)
	}
	a, err := w.Store.AssetByHostname(ctx, "pc-1")
	if err != nil {
		t.Fatal(err)
	}
	if a.IPAddress != "127.0.0.1" || a.FQDN != "pc-1.example" || a.OSName != "Debian" || a.AgentVersion != "2.0" || a.LastInventoryAt.IsZero() {
		t.Errorf("asset = %+v, want the request's address 127.0.0.1 and the reported facts", a)
	}
	body["ip_address"] = "10.1.2.3"
	w.acme.do(t, "POST", "/api/agent/inventory", body)
	if a, _ := w.Store.AssetByHostname(ctx, "pc-1"); a.IPAddress != "10.1.2.3" {
		t.Errorf("ip_address = %q, want the reported 10.1.2.3", a.IPAddress)
	}
}

func TestHeartbeatAndAgentConfig(t *testing.T) {
	cfg := appliance.AgentConfig{ScanIntervalSeconds: 3600, IncludeUpdates: false, IncludeServices: true,
		MinimumAgentVersion: "2.1.0", ForceFullScan: true}
	w := &invWorld{}
	w.build(t, withDeps(func(_ testing.TB, d *Deps, _ *sqlitestore.Store) { d.AgentConfig = cfg }), withInventory(&w.inv, catalogMini))
	res := w.acme.do(t, "POST", "/api/agent/heartbeat", map[string]string{"hostname": "hb-1", "agent_version": "1.4.0"})
	hb := decodeBody[heartbeatResponse](t, res)
	if res.Status != 200 || hb.Status != "ok" || hb.AssetID == 0 || hb.Config.ScanInterval != 3600 || hb.Config.IncludeUpdates {
		t.Errorf("heartbeat: %d %+v, want ok with an asset id and the configured scan interval", res.Status, hb)
	}
	if _, err := time.Parse(time.RFC3339, hb.ServerTime); err != nil || !strings.HasSuffix(hb.ServerTime, "Z") {
		t.Errorf("server_time %q is not UTC RFC 3339", hb.ServerTime)
	}
	again := decodeBody[inventoryResponse](t, w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("hb-1")))
	if again.AssetID != hb.AssetID {
		t.Errorf("inventory after heartbeat: asset %d, want the heartbeat's %d", again.AssetID, hb.AssetID)
	}
	got := decodeBody[agentConfigJSON](t, w.acme.do(t, "GET", "/api/agent/config", nil))
	if got != toAgentConfigJSON(cfg) {
		t.Errorf("config = %+v, want %+v", got, toAgentConfigJSON(cfg))
	}
	runScenarios(t, []scenario{
		{"heartbeat of another organization's host", "POST", "/api/agent/heartbeat", map[string]string{"hostname": "hb-1"}, w.globex, 409, wantErrorCode("conflict")},
		{"heartbeat without hostname", "POST", "/api/agent/heartbeat", map[string]string{}, w.acme, 400, wantField("hostname")},
		{"heartbeat without key", "POST", "/api/agent/heartbeat", map[string]string{"hostname": "x"}, w.anonymous(), 401, nil},
	})
}

// FuzzInventory posts arbitrary bodies: each is answered 200 or a 4xx with the error body,
// never a 500 or a panic.
func FuzzInventory(f *testing.F) {
	for _, seed := range []string{
		`{"hostname":"h","products":[]}`, `{"hostname":"h"}`, `{"hostname":"h","delta":true}`,
		`{"hostname":"h","products":[{"vendor":"openssl","product":"openssl","version":"1.1.1k"}]}`,
		`{"hostname":"h","os":{"name":"Windows"},"agent":{"id":"1"},"products":[{"product":"x","version":"1","path":"/x"}]}`,
		`{"hostname":"\u0000","products":[{"vendor":"\t","product":"p\n","version":" 1 "}]}`, `[]`, `null`, `{"os":[]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Add(mustJSON(f, map[string]any{"hostname": "host-a", "products": hostA}))
	w := newInvWorld(f, catalogMini, nvdMini)
	f.Fuzz(func(t *testing.T, body []byte) {
		res := w.acme.do(t, "POST", "/api/agent/inventory", body)
		switch {
		case res.Status == http.StatusOK:
			decodeBody[inventoryResponse](t, res)
		case res.Status >= 400 && res.Status < 500:
			if b := decodeBody[errorBody](t, res); b.Error == "" || b.Message == "" {
				t.Errorf("status %d without the error body: %s", res.Status, res.Body)
			}
		default:
			t.Errorf("status %d for %q: %s", res.Status, body, res.Body)
		}
	})
}

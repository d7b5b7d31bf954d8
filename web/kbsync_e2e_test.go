package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/kb"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// withKBSync wires the installation's KB client over HTTP (NewKBClient) into the server.
func withKBSync(into **kb.Client) envOption {
	return withDeps(func(_ testing.TB, d *Deps, st *sqlitestore.Store) {
		*into = kb.NewClient(st, NewKBClient(), licensing.DefaultOptions(), slog.New(slog.DiscardHandler))
		d.KBSync = *into
	})
}

// publishCommunity has three other installations push m to the licence server directly.
func publishCommunity(t *testing.T, lic *licensing.Server, hub *kb.Hub, m kb.Mapping) {
	t.Helper()
	ctx := context.Background()
	for i := range 3 {
		id := fmt.Sprintf("peer-%d", i)
		code, err := lic.CreateCode(ctx, "professional", time.Hour, "")
		if err != nil {
			t.Fatal(err)
		}
		act, err := lic.Activate(ctx, code, id)
		if err != nil {
			t.Fatal(err)
		}
		who, err := lic.Authenticate(ctx, licensing.Credential(act.License), id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hub.Push(ctx, who, id, "professional", []kb.Mapping{m}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKBSyncEndToEnd runs a licence server and an installation, each a real server on its own
// SQLite file, and syncs the installation's KB over HTTP.
func TestKBSyncEndToEnd(t *testing.T) {
	ctx := context.Background()
	server := newLicEnv(t, licensing.DefaultOptions())
	seedKB(t, server.Store, 0, 200, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	widget := kb.Mapping{VendorPattern: "Acme Widgets", ProductPattern: "Totally Unknown Widget", CPEVendor: "openssl", CPEProduct: "openssl"}
	if err := server.hub.Curate(ctx, widget); err != nil {
		t.Fatal(err)
	}
	publishCommunity(t, server.lic, server.hub, kb.Mapping{VendorPattern: "Rare", ProductPattern: "Rare Tool", CPEVendor: "google", CPEProduct: "chrome"})

	var client *kb.Client
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini, nvdMini), withKBSync(&client))
	w.createUser(t, "acme", "bob", appliance.RoleMember)
	bob := w.login(t, "bob", testPassword)
	for _, body := range []map[string]any{inventoryBody("host-a", inv("Acme Widgets", "Totally Unknown Widget", "1.1.1k"), inv("Rare", "Rare Tool", "116.0.5845.96"),
		inv("Other Corp", "Other Thing", "2.0"))} {
		if res := w.acme.do(t, "POST", "/api/agent/inventory", body); res.Status != 200 {
			t.Fatalf("inventory: %d %s", res.Status, res.Body)
		}
	}
	if p := find(t, w.alice, "Totally Unknown Widget", "1.1.1k"); p == nil || p.Resolution != "unresolved" {
		t.Fatalf("before the sync the widget is %+v, want unresolved", p)
	}

	payload, err := client.Activate(ctx, server.URL, server.code(t, "professional", 30*24*time.Hour), licensing.EncodePublicKey(server.lic.PublicKey()))
	if err != nil || payload.Edition != appliance.EditionProfessional {
		t.Fatalf("activate over HTTP: %+v, %v", payload, err)
	}
	if err := client.Sync(ctx); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	if err := w.inv.Service.Refresh(ctx); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	for _, c := range []struct{ name, version, cpe string }{
		{"Totally Unknown Widget", "1.1.1k", "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*"},
		{"Rare Tool", "116.0.5845.96", "cpe:2.3:a:google:chrome:116.0.5845.96:*:*:*:*:*:*:*"},
	} {
		p := find(t, w.alice, c.name, c.version)
		if p == nil || p.Resolution != string(appliance.ResolutionKB) || deref(p.CPE) != c.cpe {
			t.Errorf("%s after the sync: %+v, want resolution kb with %s", c.name, p, c.cpe)
		}
	}
	if p := find(t, w.alice, "Totally Unknown Widget", "1.1.1k"); p != nil && len(vulnIDs(p)) == 0 {
		t.Errorf("the widget resolved to openssl 1.1.1k but matches no CVE")
	}

	// A person confirms an identity; the next sync pushes it to the licence server.
	other := find(t, w.alice, "Other Thing", "2.0")
	if other == nil {
		t.Fatal("Other Thing is missing")
	}
	res := w.alice.do(t, "PUT", fmt.Sprintf("/api/products/%d", other.ID), map[string]any{"cpe": "cpe:2.3:a:apache:log4j:2.0:*:*:*:*:*:*:*"})
	if res.Status != 200 {
		t.Fatalf("PUT cpe: %d %s", res.Status, res.Body)
	}
	if err := client.Sync(ctx); err != nil {
		t.Fatalf("second sync: %v", err)
	}
	installationID, _ := client.InstallationID(ctx)
	row, err := server.Store.KBMappingByTuple(ctx, "community", kb.TupleKey(kb.Mapping{VendorPattern: "Other Corp", ProductPattern: "Other Thing", CPEVendor: "apache", CPEProduct: "log4j"}))
	if err != nil || row.ContributionCount != 1 || row.Published || row.Confidence != kb.CommunityConfidenceCap {
		t.Errorf("the pushed override on the licence server: %+v (%v), want one unpublished contribution at 0.90", row, err)
	}
	if pending, _ := w.Store.PendingOverrides(ctx, 500); len(pending) != 0 {
		t.Errorf("%d overrides still pending after the push by %s", len(pending), installationID)
	}

	runScenarios(t, []scenario{
		{"status for an admin", "GET", "/api/kb/status", nil, w.alice, 200, func(t *testing.T, res response) {
			st := decodeBody[kbStatusJSON](t, res)
			if !st.Licensed || st.Edition != "professional" || st.InstallationID != installationID || st.ServerURL != server.URL ||
				st.LastPull == nil || st.LastPush == nil || st.Pulled != 202 || st.Pushed != 1 || st.LastError != "" || st.ExpiresAt == nil {
				t.Errorf("status = %s", res.Body)
			}
		}},
		{"status for a member", "GET", "/api/kb/status", nil, bob, 403, wantErrorCode("forbidden")},
		{"status without a session", "GET", "/api/kb/status", nil, w.anonymous(), 401, nil},
	})
}

// An installation without a licence reports so, and a failing licence server is visible.
func TestKBStatusWithoutAndWithFailures(t *testing.T) {
	var client *kb.Client
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini), withKBSync(&client))
	res := w.alice.do(t, "GET", "/api/kb/status", nil)
	st := decodeBody[kbStatusJSON](t, res)
	if res.Status != 200 || st.Licensed || st.InstallationID == "" || st.LastPull != nil {
		t.Errorf("unlicensed status: %d %s", res.Status, res.Body)
	}
	server := newLicEnv(t, licensing.DefaultOptions())
	ctx := context.Background()
	if _, err := client.Activate(ctx, server.URL, "VK-NOT-A-REAL-CODE", ""); err == nil {
		t.Fatal("a malformed code was activated")
	}
	if _, err := client.Activate(ctx, server.URL, server.code(t, "standard", time.Hour), ""); err != nil {
		t.Fatal(err)
	}
	if err := client.Sync(ctx); err != nil {
		t.Fatalf("sync: %v", err)
	}
	st = decodeBody[kbStatusJSON](t, w.alice.do(t, "GET", "/api/kb/status", nil))
	if !st.Licensed || st.Edition != "standard" || st.LastPull == nil || st.LastPush != nil || st.LastError != "" {
		t.Errorf("standard status after a sync: %+v", st)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	if err := w.Store.InTx(ctx, func(tx appliance.Tx) error { return tx.SetSetting(ctx, "license.server_url", gone.URL) }); err != nil {
		t.Fatal(err)
	}
	if err := client.Sync(ctx); err == nil {
		t.Fatal("a sync with an unreachable licence server succeeded")
	}
	st = decodeBody[kbStatusJSON](t, w.alice.do(t, "GET", "/api/kb/status", nil))
	if st.LastError == "" || st.LastErrorAt == nil || st.ServerURL != gone.URL {
		t.Errorf("status after a failed sync: %+v, want the error visible", st)
	}
}

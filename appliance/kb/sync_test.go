package kb

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
)

// publish has three other installations push m, so the server publishes it.
func (w *world) publish(t testing.TB, m Mapping) {
	t.Helper()
	ctx := context.Background()
	for i := range 3 {
		id := fmt.Sprintf("peer-%d-%s", i, strings.ToLower(m.CPEProduct))
		code, _ := w.lic.CreateCode(ctx, "professional", time.Hour, "")
		act, err := w.lic.Activate(ctx, code, id)
		if err != nil {
			t.Fatal(err)
		}
		who, err := w.lic.Authenticate(ctx, licensing.Credential(act.License), id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.hub.Push(ctx, who, id, "professional", []Mapping{m}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSyncPagesIncrementallyAndAppliesRetractions(t *testing.T) {
	w := newWorld(t, 400)
	ctx := context.Background()
	log4j := mapping("Apache Software Foundation", "Apache Log4j", "apache", "log4j")
	w.seedServer(t, 1000, log4j)
	w.publish(t, mapping("Igor Pavlov", "7-Zip", "7-zip", "7-zip"))
	w.activate(t, "standard", time.Hour)
	if err := w.client.Sync(ctx); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	// 1002 mappings in pages of 400: three pages.
	if w.transport.pulls != 3 || w.transport.pushes != 0 {
		t.Errorf("first sync made %d pulls and %d pushes, want 3 and none (standard edition)", w.transport.pulls, w.transport.pushes)
	}
	got := contents(t, w.install)
	if n := strings.Count(got, "\ncat "); n != 1000 || !strings.Contains(got, "kb curated Apache Software Foundation Apache Log4j→apache:log4j 1.00") ||
		!strings.Contains(got, "kb community Igor Pavlov 7-Zip→7-zip:7-zip 0.50") {
		t.Fatalf("installation after sync (%d catalogue rows):\n%.600s", n, got)
	}
	st, _ := w.client.Status(ctx)
	if st.Pulled != 1002 || st.LastPull.IsZero() || st.LastError != "" || !st.Licensed || st.Edition != "standard" {
		t.Errorf("status = %+v, want 1002 pulled, no error", st)
	}
	w.transport.pulls = 0
	if err := w.client.Sync(ctx); err != nil || w.transport.pulls != 1 || contents(t, w.install) != got {
		t.Errorf("an idle sync: %v, %d pulls, changed=%v; want one empty pull", err, w.transport.pulls, contents(t, w.install) != got)
	}
	time.Sleep(2 * time.Millisecond) // the retraction gets a later updated_at than the last sync saw
	if err := w.hub.Withdraw(ctx, "curated", log4j); err != nil {
		t.Fatal(err)
	}
	if err := w.client.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	after := contents(t, w.install)
	if strings.Contains(after, "log4j") || !strings.Contains(after, "7-zip:7-zip") {
		t.Errorf("after the retraction:\n%.400s\nwant log4j gone, 7-zip kept", after)
	}
	if st, _ = w.client.Status(ctx); st.Pulled != 1003 {
		t.Errorf("pulled = %d, want 1003 (the retraction only)", st.Pulled)
	}
}

func TestSyncPushesConfirmedOverrides(t *testing.T) {
	for _, edition := range []string{"professional", "standard"} {
		t.Run(edition, func(t *testing.T) {
			w := newWorld(t, 50000)
			ctx := context.Background()
			w.activate(t, edition, time.Hour)
			err := w.install.InTx(ctx, func(tx appliance.Tx) error {
				org, err := tx.CreateOrganization(ctx, appliance.Organization{Name: "acme", CreatedAt: time.Now()})
				if err != nil {
					return err
				}
				return tx.SaveOverride(ctx, appliance.Override{OrganizationID: org, VendorKey: "acme widgets", ProductKey: "totally unknown widget",
					ReportedVendor: "Acme Widgets", ReportedName: "Totally Unknown Widget", Identity: appliance.Identity{Part: "a", Vendor: "openssl", Product: "openssl"},
					CreatedAt: time.Now()})
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.client.Sync(ctx); err != nil {
				t.Fatalf("sync: %v", err)
			}
			pending, _ := w.install.PendingOverrides(ctx, 500)
			row, rowErr := w.server.KBMappingByTuple(ctx, "community", TupleKey(mapping("Acme Widgets", "Totally Unknown Widget", "openssl", "openssl")))
			st, _ := w.client.Status(ctx)
			if edition == "standard" {
				if w.transport.pushes != 0 || len(pending) != 1 || !errors.Is(rowErr, appliance.ErrNotFound) {
					t.Errorf("standard edition pushed %d times; %d pending; server row %v", w.transport.pushes, len(pending), rowErr)
				}
				return
			}
			if w.transport.pushes != 1 || len(pending) != 0 || rowErr != nil || row.ContributionCount != 1 || row.Published ||
				row.Confidence != CommunityConfidenceCap || st.Pushed != 1 || st.LastPush.IsZero() {
				t.Errorf("pushes %d, pending %d, server row %+v (%v), status %+v", w.transport.pushes, len(pending), row, rowErr, st)
			}
			if err := w.client.Sync(ctx); err != nil || w.transport.pushes != 1 {
				t.Errorf("second sync: %v, %d pushes; nothing new to push", err, w.transport.pushes)
			}
		})
	}
}

func TestSyncFailuresAreRecorded(t *testing.T) {
	ctx := context.Background()
	t.Run("no licence: nothing to do, and it says so", func(t *testing.T) {
		w := newWorld(t, 10)
		st, err := w.client.Status(ctx)
		if err := w.client.Sync(ctx); !errors.Is(err, ErrNoLicence) || w.transport.pulls != 0 {
			t.Errorf("sync without a licence: %v, %d pulls", err, w.transport.pulls)
		}
		if err != nil || st.Licensed || !strings.HasPrefix(st.InstallationID, "inst-") {
			t.Errorf("status = %+v (%v)", st, err)
		}
	})
	t.Run("expired licence", func(t *testing.T) {
		w := newWorld(t, 10)
		p := w.activate(t, "professional", time.Hour)
		w.client.now = func() time.Time { return p.ExpiresAt.Add(time.Second) }
		err := w.client.Sync(ctx)
		st, _ := w.client.Status(ctx)
		if err == nil || w.transport.pulls != 0 || !strings.Contains(st.LastError, "expired") || st.LastErrorAt.IsZero() {
			t.Errorf("sync: %v, %d pulls, status %+v; want the expiry recorded", err, w.transport.pulls, st)
		}
	})
	t.Run("server refuses", func(t *testing.T) {
		w := newWorld(t, 10)
		w.activate(t, "standard", time.Hour)
		if err := w.install.InTx(ctx, func(tx appliance.Tx) error { return tx.SetSetting(ctx, keyLicense, forgeLicence(t, w)) }); err != nil {
			t.Fatal(err)
		}
		w.client.opts.PublicKey = "" // the forged licence is only read, not verified, without a pinned key
		if err := w.install.InTx(ctx, func(tx appliance.Tx) error { return tx.SetSetting(ctx, keyPublicKey, "") }); err != nil {
			t.Fatal(err)
		}
		err := w.client.Sync(ctx)
		st, _ := w.client.Status(ctx)
		if !errors.Is(err, appliance.ErrUnauthorized) || !strings.Contains(st.LastError, "pull") {
			t.Errorf("sync with an unknown credential: %v, last error %q", err, st.LastError)
		}
	})
}

// forgeLicence is a licence for the installation signed by a key the server never used.
func forgeLicence(t testing.TB, w *world) string {
	t.Helper()
	id, _ := w.client.InstallationID(context.Background())
	now := time.Now().UTC().Truncate(time.Second)
	text, err := licensing.Sign(testOnlyKey(), licensing.Payload{LicenseID: "forged", InstallationID: id, Edition: appliance.EditionStandard,
		IssuedAt: now, ExpiresAt: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func TestActivateRefusesAForeignKey(t *testing.T) {
	w := newWorld(t, 10)
	ctx := context.Background()
	code, _ := w.lic.CreateCode(ctx, "professional", time.Hour, "")
	other := foreignPublicKey()
	if _, err := w.client.Activate(ctx, serverURL, code, other); err == nil {
		t.Fatal("a licence signed by another key was accepted")
	}
	if st, _ := w.client.Status(ctx); st.Licensed {
		t.Error("the refused licence was stored")
	}
	if _, err := w.client.Activate(ctx, " ", code, ""); err == nil {
		t.Error("an empty server URL was accepted")
	}
	p, err := w.client.Activate(ctx, serverURL+"/", code, w.publicKey())
	st, _ := w.client.Status(ctx)
	if err != nil || p.Edition != appliance.EditionProfessional || st.ServerURL != serverURL || !st.Licensed {
		t.Errorf("activation: %+v (%v), status %+v", p, err, st)
	}
}

func TestImportSnapshot(t *testing.T) {
	w := newWorld(t, 50000)
	ctx := context.Background()
	w.seedServer(t, 300, mapping("Apache Software Foundation", "Apache Log4j", "apache", "log4j"))
	w.publish(t, mapping("Igor Pavlov", "7-Zip", "7-zip", "7-zip"))
	osEntry := appliance.CatalogEntry{Identity: appliance.Identity{Part: "o", Vendor: "microsoft", Product: "windows_10"}, Source: "nvd"}
	if err := w.server.InTx(ctx, func(tx appliance.Tx) error { return tx.UpsertCatalogEntry(ctx, osEntry, time.Now()) }); err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	n, err := w.hub.Export(ctx, &file)
	if err != nil || n != 303 {
		t.Fatalf("export: %d, %v", n, err)
	}
	signed := file.Bytes()
	tampered := bytes.Clone(signed)
	tampered[len(tampered)/2] ^= 0x01
	var unsigned bytes.Buffer
	gz := gzip.NewWriter(&unsigned)
	_, _ = gz.Write([]byte(`{"format":"vulnkeeper-kb-snapshot","version":1,"count":0,"mappings":[]}`))
	_ = gz.Close()
	foreign := foreignPublicKey()
	before := contents(t, w.install)
	refusals := []struct {
		name string
		file []byte
		key  string
	}{
		{"one byte flipped", tampered, w.publicKey()},
		{"unsigned gzip JSON", unsigned.Bytes(), w.publicKey()},
		{"another server's key", signed, foreign},
		{"no pinned key", signed, ""},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			_, err := w.client.ImportSnapshot(ctx, bytes.NewReader(c.file), c.key)
			var ve *appliance.ValidationError
			if err == nil || !errors.Is(err, licensing.ErrBadSignature) && !errors.As(err, &ve) {
				t.Errorf("import: %v, want a signature or validation error", err)
			}
			if after := contents(t, w.install); after != before {
				t.Errorf("a refused import changed the store")
			}
		})
	}
	got, err := w.client.ImportSnapshot(ctx, bytes.NewReader(signed), w.publicKey())
	after := contents(t, w.install)
	// The operating system keeps its part: a snapshot carries it like a pull does.
	if err != nil || got != 303 || strings.Count(after, "\ncat ") != 301 || !strings.Contains(after, "apache:log4j") ||
		!strings.Contains(after, "7-zip:7-zip") || !strings.Contains(after, "cat o:microsoft:windows_10") {
		t.Errorf("import: %d, %v; store:\n%.500s", got, err, after)
	}
}

// TestOlderSnapshotIsRefused: replaying an older, genuinely signed snapshot after a newer one
// changes nothing, so a retraction cannot be undone with an old file (issue 8 §4).
func TestOlderSnapshotIsRefused(t *testing.T) {
	w := newWorld(t, 400)
	ctx := context.Background()
	log4j := mapping("Apache Software Foundation", "Apache Log4j", "apache", "log4j")
	w.seedServer(t, 10, log4j)
	var old, newer bytes.Buffer
	if _, err := w.hub.Export(ctx, &old); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	if err := w.hub.Withdraw(ctx, "curated", log4j); err != nil {
		t.Fatal(err)
	}
	if _, err := w.hub.Export(ctx, &newer); err != nil {
		t.Fatal(err)
	}
	if _, err := w.client.ImportSnapshot(ctx, bytes.NewReader(newer.Bytes()), w.publicKey()); err != nil {
		t.Fatalf("import the newer snapshot: %v", err)
	}
	before := contents(t, w.install)
	if strings.Contains(before, "log4j") {
		t.Fatalf("the retracted mapping is there after the newer snapshot:\n%s", before)
	}
	_, err := w.client.ImportSnapshot(ctx, bytes.NewReader(old.Bytes()), w.publicKey())
	if !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("replaying the older snapshot: %v, want a conflict", err)
	}
	if after := contents(t, w.install); after != before {
		t.Errorf("the refused snapshot changed the installation:\n%s", after)
	}
	// The same snapshot again is harmless (idempotent), and serials grow per export.
	if _, err := w.client.ImportSnapshot(ctx, bytes.NewReader(newer.Bytes()), w.publicKey()); err != nil {
		t.Errorf("re-importing the held snapshot: %v", err)
	}
	pub := w.lic.PublicKey()
	o, _ := ReadSnapshot(bytes.NewReader(old.Bytes()), pub)
	n, _ := ReadSnapshot(bytes.NewReader(newer.Bytes()), pub)
	if o.Serial != 1 || n.Serial != 2 {
		t.Errorf("serials %d and %d, want 1 and 2", o.Serial, n.Serial)
	}
}

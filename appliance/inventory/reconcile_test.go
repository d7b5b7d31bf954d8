package inventory_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

// TestReconciliationSequence submits one host's inventories in order; each step's summary
// must be exact.
func TestReconciliationSequence(t *testing.T) {
	w := newWorld(t, catalogMini, nvdMini, kevMini)
	withPath := item("openssl", "openssl", "1.1.1k")
	withPath.Path = "/usr/lib/libssl.so"
	steps := []struct {
		name string
		rep  inventory.Report
		want inventory.Summary
	}{
		{"first inventory", report("host-a", hostA...),
			inventory.Summary{ProductsCreated: 7, InstallationsCreated: 7, TotalProducts: 7}},
		{"unchanged resubmission", report("host-a", hostA...), inventory.Summary{TotalProducts: 7}},
		{"one product omitted", report("host-a", hostA[:6]...), inventory.Summary{InstallationsRemoved: 1, TotalProducts: 6}},
		{"omitted product back", report("host-a", hostA...), inventory.Summary{InstallationsCreated: 1, TotalProducts: 7}},
		{"path changed", report("host-a", append([]inventory.Item{withPath}, hostA[1:]...)...),
			inventory.Summary{InstallationsUpdated: 1, TotalProducts: 7}},
		{"no products key", inventory.Report{Hostname: "host-a"}, inventory.Summary{}},
		{"empty products", report("host-a"), inventory.Summary{InstallationsRemoved: 7}},
		{"second host shares products", report("host-b", hostA[:2]...),
			inventory.Summary{InstallationsCreated: 2, TotalProducts: 2}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if got := w.submit(t, w.acme, s.rep); got != s.want {
				t.Errorf("summary = %+v, want %+v", got, s.want)
			}
		})
	}
}

func TestRemovedInstallationKeepsProduct(t *testing.T) {
	w := newWorld(t, catalogMini, nvdMini)
	w.submit(t, w.acme, report("host-a", hostA...))
	w.submit(t, w.acme, report("host-a", hostA[1:]...))
	d := w.product(t, "openssl", "openssl", "1.1.1k")
	if d.AssetCount != 0 || len(d.Assets) != 0 {
		t.Errorf("removed product: asset_count %d, assets %v; want none live", d.AssetCount, d.Assets)
	}
	items, total, err := w.service.Products(context.Background(), appliance.ProductFilter{OrganizationID: w.acme, Search: "openssl", Page: 1, PerPage: 50})
	if err != nil || total != 1 || len(items) != 1 || items[0].AssetCount != 0 {
		t.Errorf("list after removal = %+v (total %d, err %v), want openssl listed with asset_count 0", items, total, err)
	}
}

func TestNoProductsKeyWarnsAndKeepsEverything(t *testing.T) {
	w := newWorld(t, catalogMini)
	first, err := w.service.Submit(context.Background(), w.acme, report("host-a", hostA...))
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.service.Submit(context.Background(), w.acme, inventory.Report{Hostname: "host-a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) == 0 || res.AssetID != first.AssetID || res.Summary != (inventory.Summary{}) {
		t.Errorf("result = %+v, want a warning, asset %d and zero counts", res, first.AssetID)
	}
	if d := w.product(t, "openssl", "openssl", "1.1.1k"); d.AssetCount != 1 {
		t.Errorf("asset_count after a body without products = %d, want 1", d.AssetCount)
	}
}

func TestSubmitValidation(t *testing.T) {
	w := newWorld(t, catalogMini)
	tooMany := make([]inventory.Item, inventory.MaxProductsPerReport+1)
	for i := range tooMany {
		tooMany[i] = item("v", fmt.Sprintf("p%d", i), "1")
	}
	cases := []struct {
		name  string
		rep   inventory.Report
		field string
	}{
		{"delta", inventory.Report{Hostname: "h", Delta: true, HasProducts: true}, "delta"},
		{"no hostname", report("  "), "hostname"},
		{"hostname too long", report(strings.Repeat("h", 256)), "hostname"},
		{"too many products", report("h", tooMany...), "products"},
		{"missing version", report("h", item("v", "p", "")), "products[0].version"},
		{"blank version", report("h", item("v", "p", " \t")), "products[0].version"},
		{"missing product", report("h", item("v", "p", "1"), item("v", "", "1")), "products[1].product"},
		{"version too long", report("h", item("v", "p", strings.Repeat("1", 129))), "products[0].version"},
		{"vendor too long", report("h", item(strings.Repeat("v", 256), "p", "1")), "products[0].vendor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := w.service.Submit(context.Background(), w.acme, c.rep)
			wantInvalid(t, err, c.field)
		})
	}
}

func TestHostnameOfAnotherOrganizationConflicts(t *testing.T) {
	w := newWorld(t, catalogMini)
	w.submit(t, w.acme, report("host-a", hostA[:1]...))
	for _, rep := range []inventory.Report{report("host-a"), report("HOST-A", hostA...), {Hostname: "host-a"}} {
		_, err := w.service.Submit(context.Background(), w.globex, rep)
		if !errors.Is(err, appliance.ErrConflict) {
			t.Errorf("globex submits %q (products %v): err = %v, want ErrConflict", rep.Hostname, rep.HasProducts, err)
		}
	}
	if d := w.product(t, "openssl", "openssl", "1.1.1k"); d.AssetCount != 1 {
		t.Errorf("acme's installation after the refused submissions: asset_count %d, want 1", d.AssetCount)
	}
}

func TestDuplicatesFoldedAndStringsTrimmed(t *testing.T) {
	w := newWorld(t, catalogMini)
	rep := report("  host-a \n",
		item(" openssl ", "open\tssl", " 1.1.1k "),
		item("openssl", "open  ssl", "1.1.1k"),
		item("openssl", "open ssl", "1.1.1k"))
	rep.FQDN, rep.IPAddress = " host-a.example ", " 10.0.0.5 "
	res, err := w.service.Submit(context.Background(), w.acme, rep)
	if err != nil {
		t.Fatal(err)
	}
	want := inventory.Summary{ProductsCreated: 1, InstallationsCreated: 1, TotalProducts: 1}
	if res.Hostname != "host-a" || res.Summary != want {
		t.Errorf("result = %+v, want hostname host-a and %+v", res, want)
	}
	a, err := w.store.AssetByHostname(context.Background(), "host-a")
	if err != nil || a.FQDN != "host-a.example" || a.IPAddress != "10.0.0.5" {
		t.Errorf("asset = %+v (%v), want trimmed fqdn and ip_address", a, err)
	}
	w.product(t, "openssl", "open ssl", "1.1.1k") // fails the test unless the folded key exists
}

func TestHeartbeat(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	id, err := w.service.Heartbeat(ctx, w.acme, " pc-9 ", "1.0.0", "192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	again, err := w.service.Heartbeat(ctx, w.acme, "pc-9", "1.1.0", "192.0.2.8")
	if err != nil || again != id {
		t.Fatalf("second heartbeat = %d, %v; want the same asset %d", again, err, id)
	}
	a, err := w.store.AssetByHostname(ctx, "pc-9")
	if err != nil || a.ID != id || a.AgentVersion != "1.1.0" || a.IPAddress != "192.0.2.7" || a.LastSeenAt.IsZero() {
		t.Errorf("asset = %+v (%v), want agent 1.1.0, first ip kept, last seen set", a, err)
	}
	if _, err := w.service.Heartbeat(ctx, w.globex, "pc-9", "", ""); !errors.Is(err, appliance.ErrConflict) {
		t.Errorf("another organization's heartbeat: err = %v, want ErrConflict", err)
	}
	_, err = w.service.Heartbeat(ctx, w.acme, "", "", "")
	wantInvalid(t, err, "hostname")
	if got := w.service.AgentConfig(); got != appliance.DefaultAgentConfig() {
		t.Errorf("AgentConfig() = %+v, want the configured %+v", got, appliance.DefaultAgentConfig())
	}
}

// changedAfterRead is the store with a change committed right after each snapshot read the
// service makes: between reconciliation's early read of the products and its transaction.
type changedAfterRead struct {
	appliance.Store
	after func()
}

func (s *changedAfterRead) InSnapshot(ctx context.Context, fn func(appliance.Reader) error) error {
	err := s.Store.InSnapshot(ctx, fn)
	if s.after != nil {
		s.after()
		s.after = nil
	}
	return err
}

// TestProductsReadEarlyAreCheckedInTheTransaction: reconciliation reads a host's products
// before it takes the writer and keeps them for the next hosts; a product deleted after that
// read is seen as deleted in the transaction (the host's report restores it), and a later host
// is not answered from what was read before the deletion.
func TestProductsReadEarlyAreCheckedInTheTransaction(t *testing.T) {
	w := newWorld(t, catalogMini, nvdMini)
	ctx := context.Background()
	store := &changedAfterRead{Store: w.store}
	svc := inventory.NewService(store, w.engine, appliance.DefaultAgentConfig(), slog.New(slog.DiscardHandler))
	openssl := item("openssl", "openssl", "1.1.1k")
	submit := func(host string) inventory.Summary {
		t.Helper()
		res, err := svc.Submit(ctx, w.acme, report(host, openssl))
		if err != nil {
			t.Fatalf("submit %s: %v", host, err)
		}
		return res.Summary
	}
	submit("host-1")
	found, err := w.store.ProductsByKeys(ctx, w.acme, []appliance.ProductKey{{Vendor: "openssl", Name: "openssl", Version: "1.1.1k"}})
	if err != nil || len(found) != 1 {
		t.Fatalf("product of host-1: %v %v", found, err)
	}
	var id int64
	for _, p := range found {
		id = p.ID
	}
	deleteIt := func() {
		if err := svc.DeleteProduct(ctx, w.acme, id); err != nil {
			t.Fatalf("delete product: %v", err)
		}
	}
	store.after = deleteIt // deleted between host-2's read and its transaction
	restored := inventory.Summary{ProductsUpdated: 1, InstallationsCreated: 1, TotalProducts: 1}
	if got := submit("host-2"); got != restored {
		t.Errorf("host-2: %+v, want the product restored: %+v", got, restored)
	}
	deleteIt() // deleted after host-2 read (and kept) it
	if got := submit("host-3"); got != restored {
		t.Errorf("host-3: %+v, want the product restored again: %+v", got, restored)
	}
	if p, err := svc.Product(ctx, w.acme, id); err != nil || !p.DeletedAt.IsZero() {
		t.Errorf("product after host-3: deleted %v (%v), want live", p.DeletedAt, err)
	}
}

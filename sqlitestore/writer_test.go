package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// TestGroupCommitKeepsEachWriteAtomic holds the writer inside one shared write while four more
// arrive, then lets it go: the writes that waited run in the same transaction, and each is
// kept or undone on its own — a failing write and a panicking one leave nothing, a write
// whose caller gave up never runs, the others are committed.
func TestGroupCommitKeepsEachWriteAtomic(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	org := func(name string) func(appliance.Tx) error {
		return func(tx appliance.Tx) error {
			_, err := tx.CreateOrganization(ctx, appliance.Organization{Name: name, CreatedAt: time.Now()})
			return err
		}
	}
	started, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- st.InSharedTx(ctx, func(tx appliance.Tx) error {
			err := org("first")(tx)
			close(started)
			<-release
			return err
		})
	}()
	<-started
	groupsBefore := st.groups.Load()
	errBoom := errors.New("boom")
	type outcome struct {
		name string
		err  error
	}
	outcomes := make(chan outcome, 4)
	write := func(name string, ctx context.Context, fn func(appliance.Tx) error) {
		go func() {
			defer func() {
				if p := recover(); p != nil {
					outcomes <- outcome{name, fmt.Errorf("panic: %v", p)}
				}
			}()
			outcomes <- outcome{name, st.InSharedTx(ctx, fn)}
		}()
	}
	cancelled, cancel := context.WithCancel(ctx)
	write("kept", ctx, org("kept"))
	write("failed", ctx, func(tx appliance.Tx) error { _ = org("failed")(tx); return errBoom })
	write("panicked", ctx, func(tx appliance.Tx) error { _ = org("panicked")(tx); panic("boom") })
	write("cancelled", cancelled, org("cancelled"))
	for deadline := time.Now().Add(10 * time.Second); st.queued.Load() < 4; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want 4", st.queued.Load())
		}
	}
	cancel()
	time.Sleep(20 * time.Millisecond) // the three others are blocked handing over their write
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("first write: %v", err)
	}
	want := map[string]string{"kept": "", "failed": "boom", "panicked": "panic: boom", "cancelled": "context canceled"}
	for range 4 {
		o := <-outcomes
		got := ""
		if o.err != nil {
			got = o.err.Error()
		}
		if got != want[o.name] {
			t.Errorf("%s: error %q, want %q", o.name, got, want[o.name])
		}
	}
	if n := st.groups.Load() - groupsBefore; n != 1 {
		t.Errorf("%d transactions committed, want the writes that waited committed with the first in 1", n)
	}
	for name, kept := range map[string]bool{"first": true, "kept": true, "failed": false, "panicked": false, "cancelled": false} {
		_, err := st.OrganizationByName(ctx, name)
		if kept != (err == nil) {
			t.Errorf("organization %q: %v, want kept %v", name, err, kept)
		}
	}
}

// TestWriteAfterCloseFails: a closed store refuses writes instead of blocking.
func TestWriteAfterCloseFails(t *testing.T) {
	st := newStore(t)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	err := st.InTx(context.Background(), func(appliance.Tx) error { return nil })
	if !errors.Is(err, errStoreClosed) {
		t.Errorf("InTx after Close = %v, want %v", err, errStoreClosed)
	}
}

// TestProductChangeSerial: the serial moves when a product is created, changed or deleted,
// and not when only its kept counts move (installations), so products read at one serial
// are current while it stays; a snapshot keeps seeing the serial it started with.
func TestProductChangeSerial(t *testing.T) {
	st := newStore(t)
	s := seedTwoOrgs(t, st)
	ctx := context.Background()
	now := time.Now()
	var productID, assetID int64
	serial := func() int64 {
		t.Helper()
		n, err := st.ProductChangeSerial(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	steps := []struct {
		name  string
		moves bool
		fn    func(tx appliance.Tx) error
	}{
		{"product created", true, func(tx appliance.Tx) (err error) {
			productID, err = tx.CreateProduct(ctx, appliance.Product{OrganizationID: s.orgA, Vendor: "v", Name: "p", Version: "1",
				Criticality: 3, CreatedAt: now, UpdatedAt: now})
			return err
		}},
		{"host created", false, func(tx appliance.Tx) (err error) {
			assetID, err = tx.CreateAsset(ctx, appliance.Asset{OrganizationID: s.orgA, Hostname: "h", CreatedAt: now, LastSeenAt: now})
			return err
		}},
		{"installed (counts move)", false, func(tx appliance.Tx) error {
			return tx.CreateInstallations(ctx, []appliance.Installation{{AssetID: assetID, ProductID: productID, CreatedAt: now}})
		}},
		{"identity changed", true, func(tx appliance.Tx) error {
			p, err := tx.ProductByID(ctx, s.orgA, productID)
			if err != nil {
				return err
			}
			p.Identity = appliance.Identity{Part: "a", Vendor: "v", Product: "p"}
			return tx.UpdateProduct(ctx, p)
		}},
	}
	for _, step := range steps {
		before := serial()
		if err := st.InTx(ctx, step.fn); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if moved := serial() != before; moved != step.moves {
			t.Errorf("%s: serial moved %v, want %v", step.name, moved, step.moves)
		}
	}
	if _, n, err := st.ProductAssetsPage(ctx, s.orgA, productID, 1, 10); err != nil || n != 1 {
		t.Errorf("hosts of the product = %d (%v), want 1", n, err)
	}
	err := st.InSnapshot(ctx, func(r appliance.Reader) error {
		before, err := r.ProductChangeSerial(ctx)
		if err != nil {
			return err
		}
		err = st.InTx(ctx, func(tx appliance.Tx) error { // another product, committed meanwhile
			_, err := tx.CreateProduct(ctx, appliance.Product{OrganizationID: s.orgA, Vendor: "v", Name: "q", Version: "1",
				Criticality: 3, CreatedAt: now, UpdatedAt: now})
			return err
		})
		if err != nil {
			return err
		}
		after, err := r.ProductChangeSerial(ctx)
		if err == nil && after != before {
			t.Errorf("serial in a snapshot moved from %d to %d", before, after)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

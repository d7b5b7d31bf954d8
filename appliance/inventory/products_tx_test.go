package inventory_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

// raceStore is the real store with a hook that runs just before each write transaction
// takes the writer lock and one that runs just after it commits.
type raceStore struct {
	appliance.Store
	before, after func()
}

func (r *raceStore) InTx(ctx context.Context, fn func(appliance.Tx) error) error {
	if r.before != nil {
		r.before()
	}
	err := r.Store.InTx(ctx, fn)
	if r.after != nil {
		r.after()
	}
	return err
}

func (w *world) serviceOver(st appliance.Store) *inventory.Service {
	return inventory.NewService(st, w.engine, appliance.DefaultAgentConfig(), slog.New(slog.DiscardHandler))
}

// deletedMeanwhile is the store as a service sees it when another request deletes product
// id of acme just before the service's first write transaction.
func deletedMeanwhile(t *testing.T, w *world, id int64) *raceStore {
	race := &raceStore{Store: w.store}
	race.before = func() {
		race.before = nil
		if err := w.service.DeleteProduct(context.Background(), w.acme, id); err != nil {
			t.Errorf("concurrent delete: %v", err)
		}
	}
	return race
}

// A product deleted by another request between the update's read and its write stays
// deleted, and the update is a 404, whatever the update changes.
func TestProductUpdateRacingADeleteIsNotFound(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   inventory.ProductInput
	}{
		{"criticality", inventory.ProductInput{Criticality: ptr(5)}},
		{"rename", inventory.ProductInput{Name: ptr("openssl-fips")}},
		{"confirm cpe", inventory.ProductInput{CPE: ptr("cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, catalogMini, nvdMini)
			w.submit(t, w.acme, report("host-a", hostA...))
			ctx := context.Background()
			id := w.product(t, "openssl", "openssl", "1.1.1k").ID
			_, err := w.serviceOver(deletedMeanwhile(t, w, id)).UpdateProduct(ctx, w.acme, 0, id, tc.in)
			if !errors.Is(err, appliance.ErrNotFound) {
				t.Fatalf("update after a concurrent delete: err = %v, want ErrNotFound", err)
			}
			if _, err := w.service.Product(ctx, w.acme, id); !errors.Is(err, appliance.ErrNotFound) {
				t.Errorf("the deleted product came back: err = %v", err)
			}
		})
	}
}

// A delete is read and written in one transaction: deleting what another request deleted
// a moment before is a 404 and changes nothing.
func TestProductDeleteRacingADeleteIsNotFound(t *testing.T) {
	w := newWorld(t, catalogMini, nvdMini)
	w.submit(t, w.acme, report("host-a", hostA...))
	ctx := context.Background()
	id := w.product(t, "openssl", "openssl", "1.1.1k").ID
	if err := w.serviceOver(deletedMeanwhile(t, w, id)).DeleteProduct(ctx, w.acme, id); !errors.Is(err, appliance.ErrNotFound) {
		t.Fatalf("second delete: err = %v, want ErrNotFound", err)
	}
}

// The client disconnecting right after the delete committed does not leave the
// assignment about the deleted product open.
func TestAutoResolutionSurvivesAClientThatLeftAfterTheCommit(t *testing.T) {
	w := newWorld(t, catalogMini, nvdMini)
	w.submit(t, w.acme, report("host-a", hostA...))
	acc := accounts.NewAccounts(w.store, accounts.AuthOptions{ConcurrentHashes: 2})
	admin, err := acc.CreateUser(context.Background(), "acme", "alice", appliance.RoleOrgAdmin, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	rem := remediation.NewRemediation(w.store, nil)
	id := w.product(t, "openssl", "openssl", "1.1.1k").ID
	a, err := rem.Create(context.Background(), admin, remediation.Input{AssignedTo: ptr("alice"), ProductID: ptr(id)})
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	svc := w.serviceOver(&raceStore{Store: w.store, after: cancel})
	svc.OnFindingsChanged(func(ctx context.Context) {
		if _, err := rem.AutoResolve(ctx); err != nil {
			t.Errorf("auto-resolution: %v", err)
		}
	})
	if err := svc.DeleteProduct(ctx, w.acme, id); err != nil {
		t.Fatal(err)
	}
	rec, err := rem.Get(context.Background(), w.acme, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != "resolved" {
		t.Errorf("assignment about the deleted product is %s, want resolved", rec.Status)
	}
}

func ptr[T any](v T) *T { return &v }

package web

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"

	"github.com/vulnkeeper/vulnkeeper/appliance/kb"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// licenceKey is the licence servers' signing key in these tests.
func licenceKey() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("web licence tests"))
	return ed25519.NewKeyFromSeed(seed[:])
}

// licEnv is a licence server over real HTTP and its licensing service.
type licEnv struct {
	*testEnv
	lic *licensing.Server
	hub *kb.Hub
}

// newLicEnv builds a licence server (routes under /api/v1) with the given options.
func newLicEnv(t testing.TB, opts licensing.Options, more ...envOption) *licEnv {
	t.Helper()
	e := &licEnv{}
	wire := withDeps(func(_ testing.TB, d *Deps, st *sqlitestore.Store) {
		e.lic, e.hub = licensing.NewServer(st, licenceKey(), opts), kb.NewHub(st, licenceKey())
		d.Licensing, d.KBHub = e.lic, e.hub
	})
	e.testEnv = newTestEnv(t, append([]envOption{withLicenseServer(), wire}, more...)...)
	return e
}

// code issues an activation code of a customer of its own.
func (e *licEnv) code(t testing.TB, edition string, term time.Duration) string {
	t.Helper()
	code, err := e.lic.CreateCode(context.Background(), edition, term, "")
	if err != nil {
		t.Fatalf("create code: %v", err)
	}
	return code
}

// installation is a licensed installation's caller: Bearer credential, installation and edition headers.
func (e *licEnv) installation(t testing.TB, edition, id string) *client {
	t.Helper()
	res := e.anonymous().do(t, "POST", "/api/v1/license/activate", activateRequest{ActivationCode: e.code(t, edition, 365*24*time.Hour), InstallationID: id})
	if res.Status != http.StatusOK {
		t.Fatalf("activate %s: %d %s", id, res.Status, res.Body)
	}
	act := decodeBody[activateResponse](t, res)
	return e.as(licensing.Credential(act.License), id, edition)
}

// as is a caller presenting credential for installation id with X-Edition.
func (e *licEnv) as(credential, id, edition string) *client {
	c := e.anonymous().withHeader("Authorization", "Bearer "+credential).withHeader("X-Installation-ID", id)
	if edition != "" {
		c = c.withHeader("X-Edition", edition)
	}
	return c
}

func pushBody(installation string, ms ...pushMappingJSON) pushRequest {
	return pushRequest{InstallationID: installation, Mappings: append([]pushMappingJSON{}, ms...)}
}

func pm(vp, pp, cv, cp string, confidence *float64) pushMappingJSON {
	return pushMappingJSON{VendorPattern: vp, ProductPattern: pp, CPEVendor: cv, CPEProduct: cp, Confidence: confidence}
}

func ptr[T any](v T) *T { return &v }

// pulled decodes a pull answer.
func pulled(t testing.TB, res response) pullResponse {
	t.Helper()
	if res.Status != http.StatusOK {
		t.Fatalf("pull: %d %s", res.Status, res.Body)
	}
	return decodeBody[pullResponse](t, res)
}

// realRows is n (part, vendor, product) rows of the real catalogue; a missing file fails.
func realRows(t testing.TB, n int) [][3]string {
	t.Helper()
	rows := storetest.CPERows(t, n)
	if len(rows) < n {
		t.Fatalf("real catalogue: %d rows, want %d", len(rows), n)
	}
	out := make([][3]string, len(rows))
	for i, r := range rows {
		out[i] = [3]string{r.Part, r.Vendor, r.Product}
	}
	return out
}

// seedKB stores community published mappings and catalogue identities from real rows, every
// one updated at the same instant, straight into the licence server's store.
func seedKB(t testing.TB, st *sqlitestore.Store, community, catalog int, at time.Time) {
	t.Helper()
	rows := realRows(t, community+catalog)
	ctx := context.Background()
	err := st.InTx(ctx, func(tx appliance.Tx) error {
		for i, r := range rows {
			if i >= community {
				if err := tx.UpsertCatalogEntry(ctx, appliance.CatalogEntry{Identity: appliance.Identity{Part: r[0], Vendor: r[1], Product: r[2]}, Source: "nvd"}, at); err != nil {
					return err
				}
				continue
			}
			m := appliance.KBMapping{Source: appliance.SourceCommunity, VendorPattern: r[1], ProductPattern: r[2], CPEVendor: r[1], CPEProduct: r[2],
				TupleKey: fmt.Sprintf("seed-%d", i), Confidence: 0.9, ContributionCount: 3, Published: true, CreatedAt: at, UpdatedAt: at}
			if _, err := tx.UpsertKBMapping(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("seed KB: %v", err)
	}
}

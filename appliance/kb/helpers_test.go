package kb

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// Real CPE identities from the shared test data.

const serverURL = "https://licence.example.test"

func openStore(t testing.TB, name string) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), name), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func keyOf(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte(label))
	return ed25519.NewKeyFromSeed(seed[:])
}

func signingKey() ed25519.PrivateKey { return keyOf("kbsync-test") }

// testOnlyKey is a key the licence server never uses.
func testOnlyKey() ed25519.PrivateKey { return keyOf("someone else") }

func foreignPublicKey() string {
	return licensing.EncodePublicKey(testOnlyKey().Public().(ed25519.PublicKey))
}

// direct is a Transport that calls a licence server in process, with its page size capped at
// maxPage so the client's offset paging is exercised; it counts the calls.
type direct struct {
	srv      *licensing.Server
	hub      *Hub
	maxPage  int
	pulls    int
	pushes   int
	pushedMs []Mapping
}

func (d *direct) Activate(ctx context.Context, _, code, installationID string) (string, error) {
	act, err := d.srv.Activate(ctx, code, installationID)
	return act.License, err
}

func (d *direct) auth(ctx context.Context, cred Credentials) (licensing.Licensee, error) {
	return d.srv.Authenticate(ctx, cred.Bearer, cred.InstallationID)
}

func (d *direct) Pull(ctx context.Context, _ string, cred Credentials, since time.Time, hasSince bool, offset, limit int) (Page, error) {
	d.pulls++
	who, err := d.auth(ctx, cred)
	if err != nil {
		return Page{}, err
	}
	q := appliance.PullQuery{Since: since, HasSince: hasSince, Offset: offset, Limit: min(limit, d.maxPage)}
	var page Page
	page.Total, err = d.hub.Pull(ctx, who, q, func(m appliance.KBMapping) error {
		page.Mappings = append(page.Mappings, Published(m))
		return nil
	})
	page.HasMore = offset+len(page.Mappings) < page.Total
	return page, err
}

func (d *direct) Push(ctx context.Context, _ string, cred Credentials, ms []Mapping) error {
	d.pushes++
	who, err := d.auth(ctx, cred)
	if err != nil {
		return err
	}
	d.pushedMs = append(d.pushedMs, ms...)
	_, err = d.hub.Push(ctx, who, cred.InstallationID, cred.Edition, ms)
	return err
}

// world is a licence server store and an installation store with a client between them.
type world struct {
	server    *sqlitestore.Store
	lic       *licensing.Server
	hub       *Hub
	install   *sqlitestore.Store
	transport *direct
	client    *Client
}

func newWorld(t testing.TB, maxPage int) *world {
	t.Helper()
	w := &world{server: openStore(t, "server.db"), install: openStore(t, "install.db")}
	w.lic = licensing.NewServer(w.server, signingKey(), licensing.DefaultOptions())
	w.hub = NewHub(w.server, signingKey())
	w.transport = &direct{srv: w.lic, hub: w.hub, maxPage: maxPage}
	w.client = NewClient(w.install, w.transport, licensing.DefaultOptions(), slog.New(slog.DiscardHandler))
	return w
}

func (w *world) publicKey() string { return licensing.EncodePublicKey(w.lic.PublicKey()) }

// activate gives the installation a licence of edition.
func (w *world) activate(t testing.TB, edition string, term time.Duration) licensing.Payload {
	t.Helper()
	ctx := context.Background()
	code, err := w.lic.CreateCode(ctx, edition, term, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.client.Activate(ctx, serverURL, code, w.publicKey())
	if err != nil {
		t.Fatalf("activate: %v", err)
	}
	return p
}

// seedServer imports catalog real identities as nvd rows and curates the given mappings.
func (w *world) seedServer(t testing.TB, catalog int, curated ...Mapping) {
	t.Helper()
	ctx := context.Background()
	at := time.Now().UTC()
	err := w.server.InTx(ctx, func(tx appliance.Tx) error {
		for _, r := range realRows(t, catalog) {
			if err := tx.UpsertCatalogEntry(ctx, appliance.CatalogEntry{Identity: appliance.Identity{Part: r[0], Vendor: r[1], Product: r[2]}, Source: "nvd"}, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range curated {
		if err := w.hub.Curate(ctx, m); err != nil {
			t.Fatalf("curate: %v", err)
		}
	}
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

// contents is a stable dump of what a pull or import may change on an installation.
func contents(t testing.TB, st *sqlitestore.Store) string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	err := st.EachKBMapping(ctx, func(m appliance.KBMapping) error {
		lines = append(lines, fmt.Sprintf("kb %s %s %s→%s:%s %.2f", m.Source, m.VendorPattern, m.ProductPattern, m.CPEVendor, m.CPEProduct, m.Confidence))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.EachCatalogEntry(ctx, func(e appliance.CatalogEntry) error {
		lines = append(lines, fmt.Sprintf("cat %s:%s:%s", e.Part, e.Vendor, e.Product))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	since, _ := st.Setting(ctx, keySince)
	kbGen, _ := st.Generation(ctx, appliance.GenerationKB)
	catGen, _ := st.Generation(ctx, appliance.GenerationCatalog)
	sort.Strings(lines)
	return fmt.Sprintf("since=%s kb=%d catalog=%d\n%s", since, kbGen, catGen, strings.Join(lines, "\n"))
}

func mapping(vp, pp, cv, cp string) Mapping {
	return Mapping{VendorPattern: vp, ProductPattern: pp, CPEVendor: cv, CPEProduct: cp}
}

func publicOf(priv ed25519.PrivateKey) ed25519.PublicKey { return priv.Public().(ed25519.PublicKey) }

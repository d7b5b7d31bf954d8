package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// notifyClock is the notify service's clock, moved by the tests.
type notifyClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *notifyClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *notifyClock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// withNotify wires a notify service over the test store (after withInventory, whose
// service then tells it of changes): http and loopback targets allowed for httptest
// receivers, a flood above 20, the clock clk, mail through mailer when not nil.
func withNotify(into **notify.Service, clk *notifyClock, mailer notify.Mailer) envOption {
	return withDeps(func(t testing.TB, d *Deps, st *sqlitestore.Store) {
		o := notify.DefaultOptions()
		o.AllowHTTP, o.AllowLoopback, o.StaleAfter = true, true, 72*time.Hour
		svc := notify.NewService(st, o, NewWebhookClient(o), mailer, nil)
		svc.SetClock(clk.Now)
		if d.Inventory != nil {
			d.Inventory.SetNotifier(svc)
		}
		d.Notify, *into = svc, svc
	})
}

// received is one request a receiver got.
type received struct {
	Header http.Header
	Body   []byte
}

// receiver is an httptest webhook target answering with the statuses in fail first, 200 after.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []received
	fail []int
}

func newReceiver(t *testing.T, fail ...int) *receiver {
	rc := &receiver{fail: fail}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{Header: r.Header.Clone(), Body: b})
		status := http.StatusOK
		if len(rc.fail) > 0 {
			status, rc.fail = rc.fail[0], rc.fail[1:]
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// take returns what arrived since the last take.
func (rc *receiver) take() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	got := rc.got
	rc.got = nil
	return got
}

// eventEnvelope is the json-format body.
type eventEnvelope struct {
	ID             string      `json:"id"`
	Type           string      `json:"type"`
	OrganizationID int64       `json:"organization_id"`
	Data           notify.Data `json:"data"`
}

// verified decodes a json-format delivery after checking its signature and delivery id.
func verified(t *testing.T, secret string, r received) eventEnvelope {
	t.Helper()
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(r.Body)
	if want := "sha256=" + hex.EncodeToString(m.Sum(nil)); r.Header.Get("X-Vulnkeeper-Signature") != want {
		t.Fatalf("signature %q, want %q", r.Header.Get("X-Vulnkeeper-Signature"), want)
	}
	var e eventEnvelope
	if err := json.Unmarshal(r.Body, &e); err != nil {
		t.Fatalf("body %s: %v", r.Body, err)
	}
	if e.ID == "" || r.Header.Get("X-Vulnkeeper-Delivery") != e.ID || r.Header.Get("X-Vulnkeeper-Event") != e.Type {
		t.Fatalf("headers %v do not match the body %s", r.Header, r.Body)
	}
	return e
}

// webhookCreated is the answer to POST /api/webhooks.
type webhookCreated struct {
	ID          int64    `json:"id"`
	URL         string   `json:"url"`
	Format      string   `json:"format"`
	Events      []string `json:"events"`
	MinSeverity *string  `json:"min_severity"`
	Secret      string   `json:"secret"`
	Enabled     bool     `json:"enabled"`
}

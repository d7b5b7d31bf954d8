package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"modernc.org/sqlite"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// leakWords are pieces of driver and schema text that must never reach a client.
var leakWords = []string{"UNIQUE", "constraint", "organizations.", "products.", "2067"}

func assertNoLeak(t *testing.T, body []byte) {
	t.Helper()
	for _, w := range leakWords {
		if bytes.Contains(body, []byte(w)) {
			t.Errorf("response body leaks %q: %s", w, body)
		}
	}
}

// writeThrough runs err through the one error writer with a request ID, capturing the log.
func writeThrough(t *testing.T, err error) (*httptest.ResponseRecorder, errorBody, string) {
	t.Helper()
	var logBuf bytes.Buffer
	srv := &Server{log: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	req := httptest.NewRequest(http.MethodPost, "/api/organizations", nil)
	req = req.WithContext(context.WithValue(req.Context(), requestIDKey, "req-42"))
	rec := httptest.NewRecorder()
	srv.writeError(rec, req, err)
	var body errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("decode error body %q: %v", rec.Body.String(), err)
	}
	return rec, body, logBuf.String()
}

// duplicateOrganization inserts the same organization twice straight through the store,
// as a creation that slipped past every pre-check would.
func duplicateOrganization(t *testing.T) error {
	t.Helper()
	env := newTestEnv(t)
	ctx := context.Background()
	org := appliance.Organization{Name: "acme", CreatedAt: time.Now().UTC()}
	insert := func(tx appliance.Tx) error { _, err := tx.CreateOrganization(ctx, org); return err }
	if err := env.Store.InTx(ctx, insert); err != nil {
		t.Fatalf("first insert: %v", err)
	}
	err := env.Store.InTx(ctx, insert)
	if err == nil {
		t.Fatal("second insert of the same organization succeeded")
	}
	return err
}

func TestStoreConstraintErrorKeepsDriverErrorForTheLogOnly(t *testing.T) {
	err := duplicateOrganization(t)
	if !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("store error %v is not ErrConflict", err)
	}
	var driverErr *sqlite.Error
	if !errors.As(err, &driverErr) {
		t.Fatalf("store error %v lost the driver error from its chain", err)
	}
	if !strings.HasPrefix(err.Error(), "insert organizations: ") {
		t.Errorf("store error %q does not name the operation that failed", err)
	}

	rec, body, logged := writeThrough(t, err)
	if rec.Code != http.StatusConflict || body.Error != "conflict" {
		t.Fatalf("status %d code %q, want 409 conflict", rec.Code, body.Error)
	}
	if body.Message != "the request conflicts with the current state of a resource" {
		t.Errorf("message %q, want the fixed conflict message", body.Message)
	}
	assertNoLeak(t, rec.Body.Bytes())
	if !strings.Contains(logged, "UNIQUE constraint failed: organizations.name") || !strings.Contains(logged, "req-42") {
		t.Errorf("log line lacks the driver error or the request ID: %s", logged)
	}
}

func TestPublicMessageIsAllAClientReads(t *testing.T) {
	cause := duplicateOrganization(t)
	err := appliance.Conflict("organization %q already exists", "acme").Because(cause)
	if !errors.Is(err, appliance.ErrConflict) || !errors.Is(err, cause) {
		t.Fatalf("%v is not both ErrConflict and its cause", err)
	}
	rec, body, logged := writeThrough(t, err)
	if rec.Code != http.StatusConflict || body.Message != `organization "acme" already exists` {
		t.Fatalf("status %d message %q", rec.Code, body.Message)
	}
	assertNoLeak(t, rec.Body.Bytes())
	if !strings.Contains(logged, "UNIQUE constraint failed") {
		t.Errorf("log lacks the cause: %s", logged)
	}
}

func TestKindsWithoutPublicTextGetFixedMessages(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		msg    string
	}{
		{errors.New("disk I/O error at /var/lib/vulnkeeper/vulnkeeper.db"), http.StatusInternalServerError, ""},
		{errors.Join(appliance.ErrNotFound, errors.New("SELECT * FROM secrets")), http.StatusNotFound, "resource does not exist"},
		{appliance.NotFound("product %d does not exist", 7), http.StatusNotFound, "product 7 does not exist"},
		{appliance.Forbidden("the key lacks the %q scope", "metrics"), http.StatusForbidden, `the key lacks the "metrics" scope`},
		{appliance.Unauthorized("wrong admin token"), http.StatusUnauthorized, "wrong admin token"},
	} {
		rec, body, _ := writeThrough(t, tc.err)
		if rec.Code != tc.status {
			t.Errorf("%v: status %d, want %d", tc.err, rec.Code, tc.status)
		}
		if tc.msg == "" {
			if !strings.Contains(body.Message, "req-42") || strings.Contains(body.Message, "disk") {
				t.Errorf("%v: 500 message %q", tc.err, body.Message)
			}
			continue
		}
		if body.Message != tc.msg {
			t.Errorf("%v: message %q, want %q", tc.err, body.Message, tc.msg)
		}
		if strings.Contains(rec.Body.String(), "SELECT") {
			t.Errorf("%v: body leaks internals: %s", tc.err, rec.Body.String())
		}
	}
}

// Concurrent creations of one product race on the unique constraint, not on a pre-check;
// the losers get a 409 with a safe message.
func TestConcurrentProductCreationConflictIsSafe(t *testing.T) {
	var inv inventoryServices
	env := newTestEnv(t, withInventory(&inv, catalogMini))
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	c := env.login(t, "alice", testPassword)
	const n = 8
	res := make([]response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res[i] = c.do(t, "POST", "/api/products", map[string]any{"name": "Widget", "vendor": "Acme", "version": "1.0"})
		})
	}
	wg.Wait()
	created := 0
	for _, r := range res {
		switch r.Status {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
			assertNoLeak(t, r.Body)
			if b := wantError(t, r, "conflict"); b.Message != `a product "Acme" "Widget" version "1.0" already exists` {
				t.Errorf("conflict message %q", b.Message)
			}
		default:
			t.Errorf("status %d: %s", r.Status, r.Body)
		}
	}
	if created != 1 {
		t.Errorf("%d creations succeeded, want 1", created)
	}
}

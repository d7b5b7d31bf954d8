package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/data"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// testPassword is the password of every user the helpers create.
const testPassword = "correct horse battery"

// testEnv is one server on a fresh SQLite store, reachable over real HTTP.
type testEnv struct {
	URL      string
	Server   *Server
	Accounts *accounts.Accounts
	Store    *sqlitestore.Store
}

type envConfig struct {
	limits  LimitOptions
	auth    accounts.AuthOptions
	agent   appliance.AgentConfig
	now     func() time.Time
	license bool
	wire    []func(testing.TB, *Deps, *sqlitestore.Store)
}

// envOption changes how newTestEnv builds the server.
type envOption func(*envConfig)

// withLimits turns the given limits on (tests without it run unlimited).
func withLimits(l LimitOptions) envOption { return func(c *envConfig) { c.limits = l } }

// withClock gives the limiters a clock the test moves.
func withClock(clk *fakeClock) envOption { return func(c *envConfig) { c.now = clk.Now } }

// withAuth replaces the authentication options (password age, TOTP issuer).
func withAuth(a accounts.AuthOptions) envOption { return func(c *envConfig) { c.auth = a } }

// withLicenseServer builds a licence server instead of an installation.
func withLicenseServer() envOption { return func(c *envConfig) { c.license = true } }

// withDeps lets a test wire more services (inventory, products...) from the fresh store
// into the server's Deps before NewServer runs.
func withDeps(wire func(t testing.TB, d *Deps, st *sqlitestore.Store)) envOption {
	return func(c *envConfig) { c.wire = append(c.wire, wire) }
}

// newTestEnv opens a store in t.TempDir(), builds the real router with data.OpenAPI and
// serves it with httptest. Limits are off unless withLimits is given; /healthz is ready.
func newTestEnv(t testing.TB, opts ...envOption) *testEnv {
	t.Helper()
	cfg := envConfig{limits: LimitOptions{}, auth: accounts.DefaultAuthOptions(), agent: appliance.DefaultAgentConfig(), now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "test.db"), sqlitestore.Options{Readers: 4}, nil)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	acc := accounts.NewAccounts(st, cfg.auth)
	deps := Deps{Options: DefaultOptions(), Limits: cfg.limits, Accounts: acc, AgentConfig: cfg.agent,
		Sessions: st.SessionStore(), OpenAPI: data.OpenAPI, LicenseServer: cfg.license, Now: cfg.now}
	for _, wire := range cfg.wire {
		wire(t, &deps, st)
	}
	srv, err := NewServer(deps)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	srv.SetReady(true)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &testEnv{URL: hs.URL, Server: srv, Accounts: acc, Store: st}
}

// createOrg adds an organization through the accounts service.
func (e *testEnv) createOrg(t testing.TB, name string) appliance.Organization {
	t.Helper()
	o, err := e.Accounts.CreateOrganization(context.Background(), name)
	if err != nil {
		t.Fatalf("create organization %q: %v", name, err)
	}
	return o
}

// createUser adds a user with testPassword.
func (e *testEnv) createUser(t testing.TB, org, username string, role appliance.Role) appliance.User {
	t.Helper()
	u, err := e.Accounts.CreateUser(context.Background(), org, username, role, testPassword)
	if err != nil {
		t.Fatalf("create user %q: %v", username, err)
	}
	return u
}

// createAgentKey issues a key for org (scopes default to agent) and returns its plaintext.
func (e *testEnv) createAgentKey(t testing.TB, org string, scopes ...string) (string, appliance.AgentKey) {
	t.Helper()
	plain, k, err := e.Accounts.CreateAgentKey(context.Background(), org, "test", scopes)
	if err != nil {
		t.Fatalf("create agent key for %q: %v", org, err)
	}
	return plain, k
}

// client is one caller: a cookie jar (session, CSRF cookie), the CSRF token it sends on
// unsafe methods, and extra headers such as an agent key.
type client struct {
	env    *testEnv
	http   *http.Client
	csrf   string
	header http.Header
}

// anonymous is a caller with an empty cookie jar and no credentials.
func (e *testEnv) anonymous() *client {
	jar, _ := cookiejar.New(nil)
	return &client{env: e, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}, header: http.Header{}}
}

// agent is a caller sending key in X-Agent-Key.
func (e *testEnv) agent(key string) *client { return e.anonymous().withHeader("X-Agent-Key", key) }

// login signs username in with password and fetches a CSRF token; it fails the test
// unless the login answers 200.
func (e *testEnv) login(t testing.TB, username, password string) *client {
	t.Helper()
	c := e.anonymous()
	res := c.do(t, "POST", "/api/auth/login", loginRequest{Username: username, Password: password})
	if res.Status != http.StatusOK {
		t.Fatalf("login %q: status %d, body %s", username, res.Status, res.Body)
	}
	c.fetchCSRF(t)
	return c
}

// fetchCSRF stores the token of GET /api/auth/csrf for later unsafe requests.
func (c *client) fetchCSRF(t testing.TB) {
	t.Helper()
	res := c.do(t, "GET", "/api/auth/csrf", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("csrf: status %d, body %s", res.Status, res.Body)
	}
	c.csrf = decodeBody[map[string]string](t, res)["csrf_token"]
}

// withHeader is a copy of c (same jar and token) that also sends the header.
func (c *client) withHeader(name, value string) *client {
	cp := *c
	cp.header = c.header.Clone()
	cp.header.Set(name, value)
	return &cp
}

// withoutCSRF is a copy of c that sends no CSRF token.
func (c *client) withoutCSRF() *client {
	cp := *c
	cp.csrf = ""
	return &cp
}

// sessionCookie is the value of the session cookie in c's jar ("" when none).
func (c *client) sessionCookie(t testing.TB) string {
	t.Helper()
	return cookieValue(t, c, "session")
}

func cookieValue(t testing.TB, c *client, name string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", c.env.URL+"/", nil)
	for _, ck := range c.http.Jar.Cookies(req.URL) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// setSessionCookie puts a session cookie of the given value into c's jar.
func (c *client) setSessionCookie(value string) {
	req, _ := http.NewRequest("GET", c.env.URL+"/", nil)
	c.http.Jar.SetCookies(req.URL, []*http.Cookie{{Name: "session", Value: value, Path: "/"}})
}

// response is what a test looks at: status, headers and the whole body.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// do sends one request. body is nil, a string or []byte (sent as is) or a value encoded as
// JSON.
func (c *client) do(t testing.TB, method, path string, body any) response {
	t.Helper()
	req, err := http.NewRequest(method, c.env.URL+path, requestBody(t, body))
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	if c.csrf != "" && method != "GET" && method != "HEAD" {
		req.Header.Set("X-CSRFToken", c.csrf)
	}
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}

func requestBody(t testing.TB, body any) io.Reader {
	switch b := body.(type) {
	case nil:
		return nil
	case string:
		return strings.NewReader(b)
	case []byte:
		return bytes.NewReader(b)
	}
	enc, err := json.Marshal(body)
	if err != nil {
		t.Fatalf("encode body: %v", err)
	}
	return bytes.NewReader(enc)
}

// decodeBody decodes the JSON body into T, failing the test on malformed JSON.
func decodeBody[T any](t testing.TB, res response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(res.Body, &v); err != nil {
		t.Fatalf("decode %T from %q: %v", v, res.Body, err)
	}
	return v
}

// wantError checks the common error body and its code.
func wantError(t testing.TB, res response, code string) errorBody {
	t.Helper()
	b := decodeBody[errorBody](t, res)
	if b.Error != code || b.Message == "" {
		t.Errorf("error body = %+v, want code %q with a message", b, code)
	}
	return b
}

// scenario is one request through the real router and what must come back.
type scenario struct {
	name       string
	method     string
	path       string
	body       any
	as         *client
	wantStatus int
	check      func(t *testing.T, res response)
}

// runScenarios runs each scenario as a subtest, in order (later ones may rely on earlier ones).
func runScenarios(t *testing.T, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			res := sc.as.do(t, sc.method, sc.path, sc.body)
			if res.Status != sc.wantStatus {
				t.Fatalf("%s %s: status %d, want %d; body %s", sc.method, sc.path, res.Status, sc.wantStatus, res.Body)
			}
			if sc.check != nil {
				sc.check(t, res)
			}
		})
	}
}

// wantErrorCode is a scenario check for the common error body with code.
func wantErrorCode(code string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) { wantError(t, res, code) }
}

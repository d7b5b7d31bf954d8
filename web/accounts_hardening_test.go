package web

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

func TestPasswordChangeEndsOtherSessions(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleMember)
	laptop, phone := env.login(t, "alice", testPassword), env.login(t, "alice", testPassword)
	const next = "a brand new passphrase"
	if res := laptop.do(t, "POST", "/api/auth/password", passwordRequest{testPassword, next}); res.Status != http.StatusNoContent {
		t.Fatalf("change: status %d, body %s", res.Status, res.Body)
	}
	if res := laptop.do(t, "GET", "/api/auth/me", nil); res.Status != 200 {
		t.Errorf("the session that changed the password: status %d, want 200", res.Status)
	}
	laptop.fetchCSRF(t)
	if res := laptop.do(t, "POST", "/api/products", map[string]string{"name": "x"}); res.Status == http.StatusUnauthorized {
		t.Errorf("the session that changed the password cannot write: %s", res.Body)
	}
	res := phone.do(t, "GET", "/api/auth/me", nil)
	if res.Status != http.StatusUnauthorized {
		t.Fatalf("the other session: status %d, want 401", res.Status)
	}
	wantError(t, res, "unauthorized")
	if res := phone.do(t, "GET", "/api/auth/me", nil); res.Status != http.StatusUnauthorized {
		t.Errorf("the other session again: status %d, want 401", res.Status)
	}
	tablet := env.login(t, "alice", next)

	// The operator's `user passwd` ends every session, the new ones included.
	if err := env.Accounts.ResetPassword(t.Context(), "alice", "the operator's choice", false); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*client{"laptop": laptop, "tablet": tablet} {
		if res := c.do(t, "GET", "/api/auth/me", nil); res.Status != http.StatusUnauthorized {
			t.Errorf("%s after the operator's reset: status %d, want 401", name, res.Status)
		}
	}
	env.login(t, "alice", "the operator's choice")
}

// A 200-character password of two-byte characters is accepted by the policy and logs in.
func TestMultiBytePasswordOverHTTP(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleMember)
	c := env.login(t, "alice", testPassword)
	long := strings.Repeat("ñ", 200)
	if res := c.do(t, "POST", "/api/auth/password", passwordRequest{testPassword, long}); res.Status != http.StatusNoContent {
		t.Fatalf("change to 200 characters: status %d, body %s", res.Status, res.Body)
	}
	env.login(t, "alice", long)
	res := c.do(t, "POST", "/api/auth/password", passwordRequest{long, strings.Repeat("ñ", 257)})
	if res.Status != http.StatusBadRequest || wantError(t, res, "validation_error").Details.Constraint != "max_length" {
		t.Errorf("257 characters: status %d, body %s; want 400 max_length", res.Status, res.Body)
	}
}

// fromIP is a caller whose connections come from the loopback address ip.
func (e *testEnv) fromIP(ip string) *client {
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}
	return &client{env: e, http: &http.Client{Jar: jar, Transport: tr, Timeout: 30 * time.Second}, header: http.Header{}}
}

// guess posts one login attempt and returns the response.
func guess(t *testing.T, c *client, username, password string) response {
	t.Helper()
	return c.do(t, "POST", "/api/auth/login", loginRequest{username, password})
}

func TestLoginBackoffPerAccountAcrossAddresses(t *testing.T) {
	clk := newFakeClock()
	env := newTestEnv(t, withLimits(DefaultLimitOptions()), withClock(clk))
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleMember)
	for _, account := range []string{"alice", "nobody"} { // unknown names are treated alike
		statuses := map[int]int{}
		var refused response
		for i := range 40 { // 40 addresses, 4 guesses each: under the per-address limit
			c := env.fromIP(fmt.Sprintf("127.0.%d.%d", len(account), i+2))
			for j := range 4 {
				res := guess(t, c, account, fmt.Sprintf("guess %d-%d", i, j))
				statuses[res.Status]++
				if res.Status == http.StatusTooManyRequests {
					refused = res
				}
			}
		}
		if statuses[401] != 5 || statuses[429] != 155 {
			t.Fatalf("%s: statuses %v, want 5 × 401 then 155 × 429", account, statuses)
		}
		wantError(t, refused, "rate_limited")
		if ra := refused.Header.Get("Retry-After"); ra != "1" {
			t.Errorf("%s: Retry-After %q, want 1 (the first back-off)", account, ra)
		}
	}
	// The back-off grows: 1 s, then 2 s, then 4 s...
	c := env.fromIP("127.0.9.1")
	for _, wait := range []string{"2", "4", "8"} {
		clk.Advance(time.Minute) // past the back-off, and the per-address limit refills
		if res := guess(t, c, "alice", "still wrong"); res.Status != http.StatusUnauthorized {
			t.Fatalf("after the back-off: status %d, want 401", res.Status)
		}
		res := guess(t, c, "alice", "still wrong")
		if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") != wait {
			t.Fatalf("status %d, Retry-After %q; want 429 after %s s", res.Status, res.Header.Get("Retry-After"), wait)
		}
	}
	// ...is capped at five minutes, and the right password after it resets everything.
	for range 10 {
		clk.Advance(10 * time.Minute)
		guess(t, c, "alice", "still wrong")
	}
	if res := guess(t, c, "alice", "still wrong"); res.Header.Get("Retry-After") != "300" {
		t.Errorf("Retry-After %q after many failures, want the 300 s cap", res.Header.Get("Retry-After"))
	}
	clk.Advance(5 * time.Minute)
	if res := guess(t, env.fromIP("127.0.9.2"), "alice", testPassword); res.Status != 200 {
		t.Fatalf("the right password after the back-off: status %d, body %s", res.Status, res.Body)
	}
	if res := guess(t, env.fromIP("127.0.9.3"), "alice", "wrong again"); res.Status != http.StatusUnauthorized {
		t.Errorf("a failure after a success: status %d, want 401 (the count starts afresh)", res.Status)
	}
}

func TestLoginRefusesCrossSiteRequests(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleMember)
	body := fmt.Sprintf(`{"username":"alice","password":%q}`, testPassword)
	for _, tt := range []struct {
		name    string
		headers map[string]string
		status  int
	}{
		{"text/plain from another site", map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example"}, 403},
		{"form from another site", map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"}, 403},
		{"JSON with a foreign Origin", map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example"}, 403},
		{"Sec-Fetch-Site cross-site", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403},
		{"Sec-Fetch-Site same-site", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "same-site", "Origin": "http://sub.example"}, 403},
		{"foreign Referer", map[string]string{"Content-Type": "application/json", "Referer": "https://evil.example/page"}, 403},
		{"null Origin", map[string]string{"Content-Type": "application/json", "Origin": "null"}, 403},
		{"text/plain from a script", map[string]string{"Content-Type": "text/plain"}, 415},
		{"no content type", map[string]string{}, 415},
		{"JSON from this server's page", map[string]string{"Content-Type": "application/json", "Origin": env.URL, "Sec-Fetch-Site": "same-origin"}, 200},
		{"JSON from this server's page, Origin only", map[string]string{"Content-Type": "application/json; charset=utf-8", "Origin": env.URL}, 200},
		{"JSON from a script", map[string]string{"Content-Type": "application/json"}, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", env.URL+"/api/auth/login", strings.NewReader(body))
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tt.status)
			}
			var session bool
			for _, ck := range res.Cookies() {
				session = session || ck.Name == "session"
			}
			if session != (tt.status == 200) {
				t.Errorf("session cookie set: %v, want %v", session, tt.status == 200)
			}
		})
	}
}

func TestGlobalBudgetPerUserNotPerAddress(t *testing.T) {
	limits := DefaultLimitOptions()
	limits.GlobalPerHour = 5
	env := newTestEnv(t, withLimits(limits), withClock(newFakeClock()))
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleMember)
	env.createUser(t, "acme", "bob", appliance.RoleMember)
	alice, bob := env.login(t, "alice", testPassword), env.login(t, "bob", testPassword) // one address, and one csrf fetch each
	for i := range 4 {
		if res := alice.do(t, "GET", "/api/auth/me", nil); res.Status != 200 {
			t.Fatalf("alice's request %d: status %d", i+2, res.Status)
		}
	}
	if res := alice.do(t, "GET", "/api/auth/me", nil); res.Status != http.StatusTooManyRequests {
		t.Fatalf("alice past her budget: status %d, want 429", res.Status)
	}
	for i := range 4 {
		if res := bob.do(t, "GET", "/api/auth/me", nil); res.Status != 200 {
			t.Fatalf("bob's request %d behind the same address: status %d, want 200 (his own budget)", i+2, res.Status)
		}
	}
}

func TestClientAddressAndTrustedProxies(t *testing.T) {
	proxies, err := parseTrustedProxies([]string{"10.0.0.0/8", "192.0.2.1", "2001:db8::/32"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, peer, xff, want string
		trusted               bool
	}{
		{"untrusted peer: XFF ignored", "198.51.100.7:4000", "203.0.113.9", "198.51.100.7", true},
		{"no proxies configured", "10.1.1.1:4000", "203.0.113.9", "10.1.1.1", false},
		{"trusted peer: the hop it saw", "10.1.1.1:4000", "203.0.113.9", "203.0.113.9", true},
		{"forged left hops are not believed", "10.1.1.1:4000", "1.2.3.4, 203.0.113.9", "203.0.113.9", true},
		{"trusted hops are skipped", "10.1.1.1:4000", "203.0.113.9, 10.2.2.2, 192.0.2.1", "203.0.113.9", true},
		{"several headers", "10.1.1.1:4000", "203.0.113.9|10.2.2.2", "203.0.113.9", true},
		{"a malformed hop stops the walk", "10.1.1.1:4000", "203.0.113.9, garbage, 10.2.2.2", "10.2.2.2", true},
		{"trusted peer without XFF", "10.1.1.1:4000", "", "10.1.1.1", true},
		{"IPv6", "[2001:db8::1]:4000", "2001:db8:ffff::2, 2a00::5", "2a00::5", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := http.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.peer
			if tt.xff != "" {
				for _, v := range strings.Split(tt.xff, "|") {
					r.Header.Add("X-Forwarded-For", v)
				}
			}
			var p trustedProxies
			if tt.trusted {
				p = proxies
			}
			if got := p.clientAddr(r); got != tt.want {
				t.Errorf("client %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := parseTrustedProxies([]string{"10.0.0.0/33"}); err == nil {
		t.Error("a malformed CIDR was accepted")
	}
}

// Over real HTTP: the login limit and an inventory's ip_address follow X-Forwarded-For
// only from a trusted proxy.
func TestForwardedForOnlyFromTrustedProxies(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		t.Run(fmt.Sprintf("trusted=%v", trusted), func(t *testing.T) {
			w := &invWorld{}
			opts := []envOption{withInventory(&w.inv, catalogMini), withLimits(DefaultLimitOptions()), withClock(newFakeClock())}
			if trusted {
				opts = append(opts, withDeps(func(_ testing.TB, d *Deps, _ *sqlitestore.Store) {
					d.Options.TrustedProxies = []string{"127.0.0.0/8"}
				}))
			}
			w.build(t, opts...)
			res := w.acme.withHeader("X-Forwarded-For", "203.0.113.9").do(t, "POST", "/api/agent/inventory",
				map[string]any{"hostname": "pc-1", "products": []inventoryItem{}})
			if res.Status != 200 {
				t.Fatalf("inventory: status %d, body %s", res.Status, res.Body)
			}
			a, err := w.Store.AssetByHostname(context.Background(), "pc-1")
			if err != nil {
				t.Fatal(err)
			}
			want := map[bool]string{false: "127.0.0.1", true: "203.0.113.9"}[trusted]
			if a.IPAddress != want {
				t.Errorf("ip_address %q, want %q", a.IPAddress, want)
			}
			// Six logins, each naming another client: one address to the server unless trusted.
			var last int
			for i := range 6 {
				res := w.anonymous().withHeader("X-Forwarded-For", fmt.Sprintf("203.0.113.%d", 20+i)).
					do(t, "POST", "/api/auth/login", loginRequest{fmt.Sprintf("user%d", i), "wrong password"})
				last = res.Status
			}
			if wantLast := map[bool]int{false: 429, true: 401}[trusted]; last != wantLast {
				t.Errorf("sixth login: status %d, want %d", last, wantLast)
			}
		})
	}
}

// Members read products and may change their criticality; the product's identity (which
// becomes the organization's override and a KB contribution) and deleting are for admins.
func TestMemberProductRoles(t *testing.T) {
	w := newInvWorld(t, catalogMini)
	w.createUser(t, "acme", "bob", appliance.RoleMember)
	bob := w.login(t, "bob", testPassword)
	if res := w.acme.do(t, "POST", "/api/agent/inventory", map[string]any{"hostname": "pc-1",
		"products": []inventoryItem{inv("Acme", "Internal CRM", "3.2")}}); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	p := find(t, bob, "Internal CRM", "3.2")
	if p == nil {
		t.Fatal("the member cannot read the product")
	}
	path := fmt.Sprintf("/api/products/%d", p.ID)
	cpe := "cpe:2.3:a:acme:internal_crm:3.2:*:*:*:*:*:*:*"
	runScenarios(t, []scenario{
		{"member sets the cpe", "PUT", path, map[string]any{"cpe": cpe, "criticality": 5}, bob, 403, wantErrorCode("forbidden")},
		{"member clears the cpe", "PUT", path, map[string]any{"cpe": ""}, bob, 403, wantErrorCode("forbidden")},
		{"member deletes", "DELETE", path, nil, bob, 403, wantErrorCode("forbidden")},
		{"nothing changed", "GET", path, nil, bob, 200, func(t *testing.T, res response) {
			if got := decodeBody[productDetailJSON](t, res); got.Criticality != p.Criticality || got.Resolution != p.Resolution {
				t.Errorf("after refused changes: criticality %d, resolution %q; want %d, %q", got.Criticality, got.Resolution, p.Criticality, p.Resolution)
			}
			if has, err := w.Store.HasOverrides(context.Background(), p.OrganizationID); has || err != nil {
				t.Errorf("a refused cpe left an override (%v, %v)", has, err)
			}
		}},
		{"member changes the criticality", "PUT", path, map[string]any{"criticality": 5}, bob, 200, nil},
		{"admin sets the cpe", "PUT", path, map[string]any{"cpe": cpe}, w.alice, 200, nil},
		{"admin deletes", "DELETE", path, nil, w.alice, 204, nil},
	})
	if has, err := w.Store.HasOverrides(context.Background(), p.OrganizationID); !has || err != nil {
		t.Errorf("the admin's cpe made no override (%v, %v)", has, err)
	}
}

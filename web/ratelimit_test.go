package web

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func newLimitedEnv(t *testing.T) (*testEnv, *fakeClock) {
	clk := newFakeClock()
	return newTestEnv(t, withLimits(DefaultLimitOptions()), withClock(clk)), clk
}

// wantLimited checks a 429: its error body, an integer Retry-After of at least one second,
// and no X-RateLimit-* header. It returns the wait.
func wantLimited(t *testing.T, res response) time.Duration {
	t.Helper()
	if res.Status != 429 {
		t.Fatalf("status %d, want 429; body %s", res.Status, res.Body)
	}
	wantError(t, res, "rate_limited")
	secs, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || secs < 1 {
		t.Fatalf("Retry-After = %q, want an integer >= 1", res.Header.Get("Retry-After"))
	}
	for name := range res.Header {
		if strings.HasPrefix(strings.ToLower(name), "x-ratelimit") {
			t.Errorf("unexpected header %s", name)
		}
	}
	return time.Duration(secs) * time.Second
}

// exhaust sends n requests that must all pass the limit (status wantStatus), then one more
// that must be refused, and checks the refusal lasts until Retry-After and no longer.
func exhaust(t *testing.T, clk *fakeClock, n, wantStatus int, send func() response) {
	t.Helper()
	for i := range n {
		if res := send(); res.Status != wantStatus {
			t.Fatalf("request %d: status %d, want %d; body %s", i+1, res.Status, wantStatus, res.Body)
		}
	}
	wait := wantLimited(t, send())
	clk.Advance(wait - 2*time.Second)
	if wait > 2*time.Second {
		wantLimited(t, send())
	}
	clk.Advance(2 * time.Second)
	if res := send(); res.Status != wantStatus {
		t.Fatalf("after Retry-After (%s): status %d, want %d", wait, res.Status, wantStatus)
	}
}

func TestLoginLimit(t *testing.T) {
	env, clk := newLimitedEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleMember)
	c := env.anonymous()
	exhaust(t, clk, 5, 401, func() response {
		return c.do(t, "POST", "/api/auth/login", loginRequest{"alice", "not the password"})
	})
}

func TestPasswordLimitPerUser(t *testing.T) {
	env, clk := newLimitedEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleMember)
	env.createUser(t, "acme", "bob", appliance.RoleMember)
	alice := env.login(t, "alice", testPassword)
	bob := env.login(t, "bob", testPassword)
	wrong := passwordRequest{CurrentPassword: "not the password", NewPassword: "a much better passphrase"}
	exhaust(t, clk, 3, 400, func() response { return alice.do(t, "POST", "/api/auth/password", wrong) })
	if res := bob.do(t, "POST", "/api/auth/password", wrong); res.Status != 400 {
		t.Errorf("another user: status %d, want 400 (own budget)", res.Status)
	}
}

func TestAgentConfigLimitPerKey(t *testing.T) {
	env, clk := newLimitedEnv(t)
	env.createOrg(t, "acme")
	first, _ := env.createAgentKey(t, "acme")
	second, _ := env.createAgentKey(t, "acme")
	exhaust(t, clk, 30, 200, func() response { return env.agent(first).do(t, "GET", "/api/agent/config", nil) })
	if res := env.agent(second).do(t, "GET", "/api/agent/config", nil); res.Status != 200 {
		t.Errorf("another key: status %d, want 200 (own budget)", res.Status)
	}
}

func TestGlobalHourlyLimit(t *testing.T) {
	env, clk := newLimitedEnv(t)
	c := env.anonymous()
	exhaust(t, clk, 200, 200, func() response { return c.do(t, "GET", "/api/openapi.json", nil) })
}

func TestLimitsDisabled(t *testing.T) {
	env := newTestEnv(t)
	c := env.anonymous()
	for i := range 250 {
		if res := c.do(t, "GET", "/api/openapi.json", nil); res.Status != 200 {
			t.Fatalf("request %d: status %d with limits disabled", i+1, res.Status)
		}
	}
}

func TestKeyedLimiterStaysBounded(t *testing.T) {
	clk := newFakeClock()
	l := newKeyedLimiter(16, clk.Now, perMinute(5), quota(100, time.Hour))
	for i := range 1000 {
		if ok, _ := l.allow(fmt.Sprintf("ip:10.0.%d.%d", i/256, i%256)); !ok {
			t.Fatalf("first request of key %d refused", i)
		}
		if n := l.size(); n > 16 {
			t.Fatalf("after %d keys the limiter tracks %d, want <= 16", i+1, n)
		}
	}
}

func TestKeyedLimiterForgetsIdleKeys(t *testing.T) {
	clk := newFakeClock()
	l := newKeyedLimiter(100, clk.Now, perMinute(5))
	for i := range 10 {
		l.allow(fmt.Sprintf("key-%d", i))
	}
	clk.Advance(90 * time.Second)
	l.allow("recent")
	if n := l.size(); n != 11 {
		t.Fatalf("within twice the window: %d keys, want 11", n)
	}
	clk.Advance(150 * time.Second)
	l.allow("fresh")
	if n := l.size(); n != 1 {
		t.Errorf("after the idle time: %d keys, want only the fresh one", n)
	}
}

func TestKeyedLimiterRefusalConsumesNothing(t *testing.T) {
	clk := newFakeClock()
	l := newKeyedLimiter(100, clk.Now, perMinute(2), quota(3, time.Hour))
	admitted := 0
	for range 20 {
		if ok, _ := l.allow("k"); ok {
			admitted++
		}
	}
	clk.Advance(time.Minute)
	if ok, _ := l.allow("k"); !ok || admitted != 2 {
		t.Errorf("admitted %d in a burst (want 2); after a minute admitted = %v, want true", admitted, ok)
	}
	if ok, wait := l.allow("k"); ok || wait < 30*time.Minute {
		t.Errorf("fourth within the hour: ok=%v wait=%s, want refused by the hourly quota", ok, wait)
	}
}

func TestSlidingWindowRetryAfter(t *testing.T) {
	start := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		prev, cur int
		elapsed   time.Duration
		want      time.Duration
	}{
		{"empty window admits", 0, 0, 10 * time.Minute, 0},
		{"room left admits", 3, 5, 30 * time.Minute, 0},
		{"current window full: wait for rollover and decay", 0, 10, 10 * time.Minute, 56 * time.Minute},
		{"previous window decaying", 10, 5, 10 * time.Minute, 26 * time.Minute},
		{"previous window only", 10, 0, 0, 6 * time.Minute},
		{"a wait below a second is one second", 10, 0, 6*time.Minute - 100*time.Millisecond, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := slidingWindow{limit: 10, size: time.Hour, start: start, prev: tt.prev, cur: tt.cur}
			now := start.Add(tt.elapsed)
			got := w.wait(now)
			if diff := got - tt.want; diff < -time.Millisecond || diff > time.Millisecond {
				t.Fatalf("wait = %s, want %s", got, tt.want)
			}
			if got == 0 {
				return
			}
			if before := w; got > time.Second && before.wait(now.Add(got-time.Second)) == 0 {
				t.Errorf("admitted a second before Retry-After %s", got)
			}
			if after := w; after.wait(now.Add(got+time.Millisecond)) != 0 {
				t.Errorf("still refused after Retry-After %s", got)
			}
		})
	}
}

package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func responseCookie(t *testing.T, res response, name string) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", name, res.Header.Values("Set-Cookie"))
	return nil
}

func TestLoginResponse(t *testing.T) {
	env := newTestEnv(t)
	org := env.createOrg(t, "acme")
	alice := env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	anon := env.anonymous()
	oversized := `{"username":"alice","password":"` + strings.Repeat("x", 70<<10) + `"}`
	var unknownMessage string
	runScenarios(t, []scenario{
		{"valid credentials", "POST", "/api/auth/login", loginRequest{"alice", testPassword}, anon, 200, func(t *testing.T, res response) {
			body := decodeBody[map[string]json.RawMessage](t, res)
			if got := sortedKeys(body); !slices.Equal(got, []string{"next_step", "user"}) {
				t.Errorf("top-level fields = %v, want next_step and user only", got)
			}
			if string(body["next_step"]) != "null" {
				t.Errorf("next_step = %s, want null", body["next_step"])
			}
			user := decodeBody[map[string]any](t, response{Body: body["user"]})
			wantFields := []string{"id", "last_login_at", "organization_id", "role", "totp_enabled", "username"}
			if got := sortedKeys(user); !slices.Equal(got, wantFields) {
				t.Errorf("user fields = %v, want %v (no token of any kind)", got, wantFields)
			}
			u := decodeBody[userJSON](t, response{Body: body["user"]})
			if u.ID != alice.ID || u.Username != "alice" || u.OrganizationID != org.ID || u.Role != "org_admin" {
				t.Errorf("user = %+v, want alice of org %d as org_admin", u, org.ID)
			}
			if res.Header.Get("X-CSRFToken") != "" {
				t.Errorf("login response carries a CSRF token header")
			}
			ck := responseCookie(t, res, "session")
			if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure || ck.Path != "/" {
				t.Errorf("session cookie = %+v, want HttpOnly, SameSite=Lax, not Secure, Path /", ck)
			}
		}},
		{"unknown user", "POST", "/api/auth/login", loginRequest{"mallory", testPassword}, env.anonymous(), 401, func(t *testing.T, res response) {
			unknownMessage = wantError(t, res, "unauthorized").Message
		}},
		{"wrong password reads like an unknown user", "POST", "/api/auth/login", loginRequest{"alice", "wrong password!"}, env.anonymous(), 401,
			func(t *testing.T, res response) {
				if msg := wantError(t, res, "unauthorized").Message; msg != unknownMessage {
					t.Errorf("wrong password message %q differs from unknown user message %q", msg, unknownMessage)
				}
			}},
		{"malformed JSON", "POST", "/api/auth/login", `{"username": "alice",`, env.anonymous(), 400, wantErrorCode("validation_error")},
		{"wrong type", "POST", "/api/auth/login", `{"username": 7, "password": "x"}`, env.anonymous(), 400, func(t *testing.T, res response) {
			if b := wantError(t, res, "validation_error"); b.Details.Field != "username" {
				t.Errorf("details.field = %q, want username", b.Details.Field)
			}
		}},
		{"missing password", "POST", "/api/auth/login", loginRequest{Username: "alice"}, env.anonymous(), 400, wantErrorCode("validation_error")},
		{"body over 64 KiB", "POST", "/api/auth/login", oversized, env.anonymous(), 413, wantErrorCode("payload_too_large")},
		{"GET is not allowed", "GET", "/api/auth/login", nil, env.anonymous(), 405, func(t *testing.T, res response) {
			wantError(t, res, "method_not_allowed")
			if allow := res.Header.Get("Allow"); !strings.Contains(allow, "POST") {
				t.Errorf("Allow = %q, want POST in it", allow)
			}
		}},
	})
}

func TestSessionTokenChangesAtLogin(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleMember)

	planted := env.anonymous()
	planted.setSessionCookie("attacker-chosen-token")
	res := planted.do(t, "POST", "/api/auth/login", loginRequest{"alice", testPassword})
	if res.Status != 200 || planted.sessionCookie(t) == "attacker-chosen-token" {
		t.Fatalf("login with a planted cookie: status %d, cookie kept = %v", res.Status, planted.sessionCookie(t) == "attacker-chosen-token")
	}

	first := env.login(t, "alice", testPassword)
	oldToken := first.sessionCookie(t)
	if res := first.do(t, "POST", "/api/auth/login", loginRequest{"alice", testPassword}); res.Status != 200 {
		t.Fatalf("second login: status %d", res.Status)
	}
	if first.sessionCookie(t) == oldToken {
		t.Fatal("session token unchanged by a new login")
	}
	stale := env.anonymous()
	stale.setSessionCookie(oldToken)
	if res := stale.do(t, "GET", "/api/auth/me", nil); res.Status != 401 {
		t.Errorf("token from before the login: status %d, want 401", res.Status)
	}
	if res := first.do(t, "GET", "/api/auth/me", nil); res.Status != 200 {
		t.Errorf("token after the login: status %d, want 200", res.Status)
	}
}

func TestMeLogoutAndCSRF(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	bob := env.createUser(t, "acme", "bob", appliance.RoleMember)
	c := env.login(t, "bob", testPassword)
	oldToken := c.sessionCookie(t)
	stale := env.anonymous()
	stale.setSessionCookie(oldToken)
	runScenarios(t, []scenario{
		{"me without a session", "GET", "/api/auth/me", nil, env.anonymous(), 401, wantErrorCode("unauthorized")},
		{"csrf without a session", "GET", "/api/auth/csrf", nil, env.anonymous(), 401, wantErrorCode("unauthorized")},
		{"me", "GET", "/api/auth/me", nil, c, 200, func(t *testing.T, res response) {
			st := decodeBody[authState](t, res)
			if st.User.ID != bob.ID || st.User.Username != "bob" || st.User.Role != "member" || st.NextStep != nil {
				t.Errorf("me = %+v, want bob, member, no next step", st)
			}
			if st.User.LastLoginAt == nil {
				t.Error("last_login_at is null after a login")
			}
			if res.Header.Get("X-CSRFToken") == "" {
				t.Error("session response without an X-CSRFToken header")
			}
		}},
		{"csrf token", "GET", "/api/auth/csrf", nil, c, 200, func(t *testing.T, res response) {
			if tok := decodeBody[map[string]string](t, res)["csrf_token"]; tok == "" {
				t.Error("empty csrf_token")
			}
		}},
		{"unsafe method without token", "POST", "/api/auth/totp/setup", nil, c.withoutCSRF(), 403, func(t *testing.T, res response) {
			if b := wantError(t, res, "csrf_failed"); b.Details.Field != "X-CSRFToken" {
				t.Errorf("details.field = %q, want X-CSRFToken", b.Details.Field)
			}
		}},
		{"unsafe method with a wrong token", "POST", "/api/auth/totp/setup", nil, c.withoutCSRF().withHeader("X-CSRFToken", "bm90LWEtdG9rZW4="), 403,
			wantErrorCode("csrf_failed")},
		{"browser request from a foreign origin", "POST", "/api/auth/totp/setup", nil, c.withHeader("Origin", "http://evil.example"), 403,
			wantErrorCode("csrf_failed")},
		{"browser request from the same origin", "POST", "/api/auth/totp/setup", nil, c.withHeader("Origin", env.URL), 200, nil},
		{"unsafe method with token", "POST", "/api/auth/totp/setup", nil, c, 200, func(t *testing.T, res response) {
			b := decodeBody[totpSetupResponse](t, res)
			if b.Secret == "" || !strings.HasPrefix(b.OTPAuthURL, "otpauth://totp/") {
				t.Errorf("totp setup = %+v, want a secret and an otpauth URL", b)
			}
		}},
		{"logout", "POST", "/api/auth/logout", nil, c, 204, nil},
		{"me after logout", "GET", "/api/auth/me", nil, stale, 401, wantErrorCode("unauthorized")},
	})
}

func TestPasswordChange(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "carol", appliance.RoleMember)
	c := env.login(t, "carol", testPassword)
	const newPassword = "a much better passphrase"
	runScenarios(t, []scenario{
		{"wrong current password", "POST", "/api/auth/password", passwordRequest{"not my password", newPassword}, c, 400, func(t *testing.T, res response) {
			if b := wantError(t, res, "validation_error"); b.Details.Field != "current_password" {
				t.Errorf("details.field = %q, want current_password", b.Details.Field)
			}
		}},
		{"too short", "POST", "/api/auth/password", passwordRequest{testPassword, "short"}, c, 400, func(t *testing.T, res response) {
			if b := wantError(t, res, "validation_error"); b.Details.Constraint != "min_length" {
				t.Errorf("details.constraint = %q, want min_length", b.Details.Constraint)
			}
		}},
		{"without CSRF token", "POST", "/api/auth/password", passwordRequest{testPassword, newPassword}, c.withoutCSRF(), 403, wantErrorCode("csrf_failed")},
		{"changed", "POST", "/api/auth/password", passwordRequest{testPassword, newPassword}, c, 204, nil},
		{"old password refused", "POST", "/api/auth/login", loginRequest{"carol", testPassword}, env.anonymous(), 401, wantErrorCode("unauthorized")},
		{"new password accepted", "POST", "/api/auth/login", loginRequest{"carol", newPassword}, env.anonymous(), 200, nil},
	})
}

func TestPasswordChangeGating(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "dave", appliance.RoleMember)
	if err := env.Accounts.ResetPassword(t.Context(), "dave", testPassword, true); err != nil {
		t.Fatal(err)
	}
	anon := env.anonymous()
	const newPassword = "a much better passphrase"
	runScenarios(t, []scenario{
		{"login asks for a password change", "POST", "/api/auth/login", loginRequest{"dave", testPassword}, anon, 200, func(t *testing.T, res response) {
			if st := decodeBody[authState](t, res); st.NextStep == nil || *st.NextStep != "password_change" {
				t.Errorf("next_step = %v, want password_change", st.NextStep)
			}
			anon.fetchCSRF(t)
		}},
		{"me is allowed", "GET", "/api/auth/me", nil, anon, 200, func(t *testing.T, res response) {
			if st := decodeBody[authState](t, res); st.NextStep == nil || *st.NextStep != "password_change" {
				t.Errorf("next_step = %v, want password_change", st.NextStep)
			}
		}},
		{"other routes are refused", "POST", "/api/auth/totp/setup", nil, anon, 403, wantErrorCode("forbidden")},
		{"password change is allowed", "POST", "/api/auth/password", passwordRequest{testPassword, newPassword}, anon, 204, nil},
		{"me has no next step", "GET", "/api/auth/me", nil, anon, 200, func(t *testing.T, res response) {
			if st := decodeBody[authState](t, res); st.NextStep != nil {
				t.Errorf("next_step = %q, want null", *st.NextStep)
			}
		}},
	})
}

package web

import (
	"fmt"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
)

func wantNextStep(want string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		t.Helper()
		st := decodeBody[authState](t, res)
		switch {
		case want == "" && st.NextStep != nil:
			t.Errorf("next_step = %q, want null", *st.NextStep)
		case want != "" && (st.NextStep == nil || *st.NextStep != want):
			t.Errorf("next_step = %v, want %q", st.NextStep, want)
		}
	}
}

// enableTOTP enrols u in two-factor authentication and returns the secret.
func enableTOTP(t *testing.T, env *testEnv, u appliance.User) string {
	t.Helper()
	secret, _, err := env.Accounts.BeginTOTP(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Accounts.EnableTOTP(t.Context(), u.ID, testPassword, code); err != nil {
		t.Fatalf("enable TOTP: %v", err)
	}
	return secret
}

// nextTOTPCode is the code of the next time step: accepted (clock skew) and not used yet.
func nextTOTPCode(t *testing.T, secret string) string {
	t.Helper()
	code, err := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func TestTOTPLoginFlow(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	erin := env.createUser(t, "acme", "erin", appliance.RoleMember)
	secret := enableTOTP(t, env, erin)
	code := nextTOTPCode(t, secret) // the current step's code went into enabling
	c := env.anonymous()
	runScenarios(t, []scenario{
		{"login asks for the second factor", "POST", "/api/auth/login", loginRequest{"erin", testPassword}, c, 200, func(t *testing.T, res response) {
			wantNextStep("totp")(t, res)
			c.fetchCSRF(t)
		}},
		{"me tells the step", "GET", "/api/auth/me", nil, c, 200, wantNextStep("totp")},
		{"other routes are refused", "POST", "/api/auth/totp/setup", nil, c, 403, wantErrorCode("forbidden")},
		{"password change is refused", "POST", "/api/auth/password", passwordRequest{testPassword, "another long password"}, c, 403,
			wantErrorCode("forbidden")},
		{"wrong code", "POST", "/api/auth/totp/verify", totpCodeRequest{"000000x"}, c, 401, wantErrorCode("unauthorized")},
		{"right code", "POST", "/api/auth/totp/verify", totpCodeRequest{code}, c, 200, wantNextStep("")},
		{"signed in", "GET", "/api/auth/me", nil, c, 200, wantNextStep("")},
		{"no second factor due any more", "POST", "/api/auth/totp/verify", totpCodeRequest{code}, c, 409, wantErrorCode("conflict")},
		{"setup again is a conflict", "POST", "/api/auth/totp/setup", nil, c, 409, wantErrorCode("conflict")},
	})
}

func TestTOTPEnrolmentOverHTTP(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "frank", appliance.RoleMember)
	c := env.login(t, "frank", testPassword)
	setup := c.do(t, "POST", "/api/auth/totp/setup", nil)
	if setup.Status != 200 {
		t.Fatalf("setup: status %d", setup.Status)
	}
	secret := decodeBody[totpSetupResponse](t, setup).Secret
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	runScenarios(t, []scenario{
		{"wrong code", "POST", "/api/auth/totp/enable", totpChangeRequest{testPassword, "123"}, c, 400, wantErrorCode("validation_error")},
		{"right code without the password", "POST", "/api/auth/totp/enable", totpChangeRequest{Code: code}, c, 400, wantErrorCode("validation_error")},
		{"right code, wrong password", "POST", "/api/auth/totp/enable", totpChangeRequest{"not my password", code}, c, 400, wantErrorCode("validation_error")},
		{"login still has no second factor", "POST", "/api/auth/login", loginRequest{"frank", testPassword}, env.anonymous(), 200, wantNextStep("")},
		{"right code and password", "POST", "/api/auth/totp/enable", totpChangeRequest{testPassword, code}, c, 204, nil},
		{"next login asks for it", "POST", "/api/auth/login", loginRequest{"frank", testPassword}, env.anonymous(), 200, wantNextStep("totp")},
	})
}

func TestPasswordMaxAge(t *testing.T) {
	auth := accounts.DefaultAuthOptions()
	auth.PasswordMaxAgeDays = 1
	env := newTestEnv(t, withAuth(auth))
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "grace", appliance.RoleMember)
	old := env.createUser(t, "acme", "heidi", appliance.RoleMember)
	err := env.Store.InTx(t.Context(), func(tx appliance.Tx) error {
		return tx.SetPassword(t.Context(), old.ID, old.PasswordHash, time.Now().Add(-49*time.Hour), false)
	})
	if err != nil {
		t.Fatal(err)
	}
	runScenarios(t, []scenario{
		{"recent password", "POST", "/api/auth/login", loginRequest{"grace", testPassword}, env.anonymous(), 200, wantNextStep("")},
		{"expired password", "POST", "/api/auth/login", loginRequest{"heidi", testPassword}, env.anonymous(), 200, wantNextStep("password_change")},
	})
}

// A code that completed one login cannot complete another (a code seen over a shoulder or
// phished is worth one use).
func TestTOTPCodeReplayRefused(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	erin := env.createUser(t, "acme", "erin", appliance.RoleMember)
	code := nextTOTPCode(t, enableTOTP(t, env, erin))
	first, second := env.login(t, "erin", testPassword), env.login(t, "erin", testPassword)
	runScenarios(t, []scenario{
		{"first use", "POST", "/api/auth/totp/verify", totpCodeRequest{code}, first, 200, wantNextStep("")},
		{"replay in another login", "POST", "/api/auth/totp/verify", totpCodeRequest{code}, second, 401, wantErrorCode("unauthorized")},
		{"that login stays half-done", "GET", "/api/auth/me", nil, second, 200, wantNextStep("totp")},
	})
}

func TestTOTPDisableOwn(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	erin := env.createUser(t, "acme", "erin", appliance.RoleMember)
	// Three consecutive steps the server accepts now (one step of skew either way): one to
	// enable, one to log in, one to disable. Far from a step's end, so they stay valid.
	if into := time.Now().Unix() % 30; into > 25 {
		time.Sleep(time.Duration(31-into) * time.Second)
	}
	secret, _, err := env.Accounts.BeginTOTP(t.Context(), erin.ID)
	if err != nil {
		t.Fatal(err)
	}
	var codes [3]string
	for i := range codes {
		if codes[i], err = totp.GenerateCode(secret, time.Now().Add(time.Duration(i-1)*30*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.Accounts.EnableTOTP(t.Context(), erin.ID, testPassword, codes[0]); err != nil {
		t.Fatal(err)
	}
	c := env.login(t, "erin", testPassword)
	if res := c.do(t, "POST", "/api/auth/totp/verify", totpCodeRequest{codes[1]}); res.Status != 200 {
		t.Fatalf("verify: %d %s", res.Status, res.Body)
	}
	runScenarios(t, []scenario{
		{"without the password", "POST", "/api/auth/totp/disable", totpChangeRequest{Code: codes[2]}, c, 400, wantErrorCode("validation_error")},
		{"with the code already used", "POST", "/api/auth/totp/disable", totpChangeRequest{testPassword, codes[1]}, c, 400, wantErrorCode("validation_error")},
		{"password and a fresh code", "POST", "/api/auth/totp/disable", totpChangeRequest{testPassword, codes[2]}, c, 204, nil},
		{"next login needs no code", "POST", "/api/auth/login", loginRequest{"erin", testPassword}, env.anonymous(), 200, wantNextStep("")},
		{"disabling again is a conflict", "POST", "/api/auth/totp/disable", totpChangeRequest{testPassword, codes[2]}, c, 409, wantErrorCode("conflict")},
	})
}

func TestTOTPResetByOrganizationAdmin(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	env.createOrg(t, "globex")
	env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	env.createUser(t, "acme", "bob", appliance.RoleMember)
	env.createUser(t, "globex", "carol", appliance.RoleOrgAdmin)
	erin := env.createUser(t, "acme", "erin", appliance.RoleMember)
	enableTOTP(t, env, erin)
	alice, bob, carol := env.login(t, "alice", testPassword), env.login(t, "bob", testPassword), env.login(t, "carol", testPassword)
	path := fmt.Sprintf("/api/users/%d/totp/reset", erin.ID)
	runScenarios(t, []scenario{
		{"a member may not", "POST", path, nil, bob, 403, wantErrorCode("forbidden")},
		{"another organization's admin does not see the user", "POST", path, nil, carol, 404, wantErrorCode("not_found")},
		{"still asks for a code", "POST", "/api/auth/login", loginRequest{"erin", testPassword}, env.anonymous(), 200, wantNextStep("totp")},
		{"the admin resets it", "POST", path, nil, alice, 200, func(t *testing.T, res response) {
			if u := decodeBody[userJSON](t, res); u.Username != "erin" || u.TOTPEnabled {
				t.Errorf("answer %+v, want erin without two-factor authentication", u)
			}
		}},
		{"the login needs no code", "POST", "/api/auth/login", loginRequest{"erin", testPassword}, env.anonymous(), 200, wantNextStep("")},
		{"unknown user", "POST", "/api/users/999/totp/reset", nil, alice, 404, wantErrorCode("not_found")},
	})
}

package web

import (
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/vulnkeeper/vulnkeeper/appliance"
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
	if err := env.Accounts.EnableTOTP(t.Context(), u.ID, code); err != nil {
		t.Fatalf("enable TOTP: %v", err)
	}
	return secret
}

func TestTOTPLoginFlow(t *testing.T) {
	env := newTestEnv(t)
	env.createOrg(t, "acme")
	erin := env.createUser(t, "acme", "erin", appliance.RoleMember)
	secret := enableTOTP(t, env, erin)
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
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
		{"wrong code", "POST", "/api/auth/totp/enable", totpCodeRequest{"123"}, c, 400, wantErrorCode("validation_error")},
		{"right code", "POST", "/api/auth/totp/enable", totpCodeRequest{code}, c, 204, nil},
		{"next login asks for it", "POST", "/api/auth/login", loginRequest{"frank", testPassword}, env.anonymous(), 200, wantNextStep("totp")},
	})
}

func TestPasswordMaxAge(t *testing.T) {
	auth := appliance.DefaultAuthOptions()
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

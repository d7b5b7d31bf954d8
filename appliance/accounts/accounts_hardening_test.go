package accounts_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
)

// Passwords are counted in characters by the policy and by the login alike: every password
// the policy accepts logs in, however many bytes its characters take.
func TestMultiBytePasswordsLogIn(t *testing.T) {
	ctx := context.Background()
	e := newAccounts(t, accounts.DefaultAuthOptions())
	e.seedOrgUser(t, "acme", "alice")
	for _, pw := range []string{
		strings.Repeat("é", 200), // 200 characters, 400 bytes
		strings.Repeat("密", 256), // the longest allowed, 768 bytes
		strings.Repeat("𝄞", 256), // 1024 bytes
		strings.Repeat("ü", 10),  // the shortest allowed
		"Grüße aus Köln, 東京 🙂",   // mixed
	} {
		if err := e.accounts.ResetPassword(ctx, "alice", pw, false); err != nil {
			t.Fatalf("policy refused %d characters (%d bytes): %v", len([]rune(pw)), len(pw), err)
		}
		if _, err := e.accounts.Login(ctx, "alice", pw); err != nil {
			t.Errorf("login with %d characters (%d bytes): %v", len([]rune(pw)), len(pw), err)
		}
	}
	tooLong := strings.Repeat("é", 257)
	var ve *appliance.ValidationError
	if err := e.accounts.ResetPassword(ctx, "alice", tooLong, false); !errors.As(err, &ve) || ve.Constraint != "max_length" {
		t.Errorf("257 characters: %v, want max_length", err)
	}
	if _, err := e.accounts.Login(ctx, "alice", tooLong); !errors.Is(err, appliance.ErrUnauthorized) {
		t.Errorf("login with 257 characters: %v, want ErrUnauthorized", err)
	}
}

func TestTOTPCodeIsAcceptedOnce(t *testing.T) {
	ctx := context.Background()
	e := newAccounts(t, accounts.DefaultAuthOptions())
	u := e.seedOrgUser(t, "acme", "erin")
	secret := enableTOTP(t, e.accounts, u.ID)
	code := nextCode(t, secret)
	if _, err := e.accounts.VerifyTOTP(ctx, u.ID, code); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if _, err := e.accounts.VerifyTOTP(ctx, u.ID, code); !errors.Is(err, appliance.ErrUnauthorized) {
		t.Errorf("replayed code: %v, want ErrUnauthorized", err)
	}
	older, _ := totp.GenerateCode(secret, time.Now())
	if _, err := e.accounts.VerifyTOTP(ctx, u.ID, older); !errors.Is(err, appliance.ErrUnauthorized) {
		t.Errorf("code of an earlier step than the last used: %v, want ErrUnauthorized", err)
	}
}

func TestEnableTOTPNeedsThePassword(t *testing.T) {
	ctx := context.Background()
	e := newAccounts(t, accounts.DefaultAuthOptions())
	u := e.seedOrgUser(t, "acme", "erin")
	secret, _, err := e.accounts.BeginTOTP(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := totp.GenerateCode(secret, time.Now())
	var ve *appliance.ValidationError
	for _, pw := range []string{"", "wrong password"} {
		if err := e.accounts.EnableTOTP(ctx, u.ID, pw, code); !errors.As(err, &ve) || ve.Field != "password" {
			t.Errorf("enable with password %q: %v, want a ValidationError on password", pw, err)
		}
	}
	if got, _ := e.store.UserByID(ctx, u.ID); got.TOTPEnabled {
		t.Fatal("two-factor authentication was enabled without the password")
	}
	if err := e.accounts.EnableTOTP(ctx, u.ID, password, code); err != nil {
		t.Fatalf("enable with the password: %v", err)
	}
}

func TestDisableOwnTOTP(t *testing.T) {
	ctx := context.Background()
	e := newAccounts(t, accounts.DefaultAuthOptions())
	u := e.seedOrgUser(t, "acme", "erin")
	secret := enableTOTP(t, e.accounts, u.ID)
	code := nextCode(t, secret)
	var ve *appliance.ValidationError
	if err := e.accounts.DisableTOTP(ctx, u.ID, "wrong password", code); !errors.As(err, &ve) || ve.Field != "password" {
		t.Errorf("disable with a wrong password: %v", err)
	}
	if err := e.accounts.DisableTOTP(ctx, u.ID, password, "000000"); !errors.As(err, &ve) || ve.Field != "code" {
		t.Errorf("disable with a wrong code: %v", err)
	}
	if err := e.accounts.DisableTOTP(ctx, u.ID, password, code); err != nil {
		t.Fatalf("disable: %v", err)
	}
	if got, _ := e.store.UserByID(ctx, u.ID); got.TOTPEnabled || got.TOTPSecret != "" {
		t.Errorf("after disabling: enabled %v, secret kept %v", got.TOTPEnabled, got.TOTPSecret != "")
	}
	if res, err := e.accounts.Login(ctx, "erin", password); err != nil || res.NextStep != "" {
		t.Errorf("login after disabling: %q, %v; want no second factor", res.NextStep, err)
	}
	if err := e.accounts.DisableTOTP(ctx, u.ID, password, code); !errors.Is(err, appliance.ErrConflict) {
		t.Errorf("disable when not enabled: %v, want ErrConflict", err)
	}
}

func TestResetTOTP(t *testing.T) {
	ctx := context.Background()
	e := newAccounts(t, accounts.DefaultAuthOptions())
	erin := e.seedOrgUser(t, "acme", "erin")
	gus := e.seedOrgUser(t, "globex", "gus")
	enableTOTP(t, e.accounts, erin.ID)
	enableTOTP(t, e.accounts, gus.ID)
	acme, _ := e.accounts.Organization(ctx, "acme")
	if _, err := e.accounts.ResetTOTP(ctx, acme.ID, gus.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("reset of another organization's user: %v, want ErrNotFound", err)
	}
	if got, _ := e.store.UserByID(ctx, gus.ID); !got.TOTPEnabled {
		t.Error("another organization's user lost the second factor")
	}
	if _, err := e.accounts.ResetTOTP(ctx, acme.ID, erin.ID); err != nil {
		t.Fatalf("reset: %v", err)
	}
	if res, err := e.accounts.Login(ctx, "erin", password); err != nil || res.NextStep != "" {
		t.Errorf("login after the reset: %q, %v; want no second factor", res.NextStep, err)
	}
	if err := e.accounts.ResetTOTPByName(ctx, "acme", "gus"); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("operator reset naming the wrong organization: %v, want ErrNotFound", err)
	}
	if err := e.accounts.ResetTOTPByName(ctx, "globex", "gus"); err != nil {
		t.Fatalf("operator reset: %v", err)
	}
	if got, _ := e.store.UserByID(ctx, gus.ID); got.TOTPEnabled {
		t.Error("the operator reset left the second factor on")
	}
}

// An operator's password reset starts a new session generation like a change does.
func TestResetPasswordEndsSessions(t *testing.T) {
	ctx := context.Background()
	e := newAccounts(t, accounts.DefaultAuthOptions())
	u := e.seedOrgUser(t, "acme", "alice")
	if err := e.accounts.ResetPassword(ctx, "alice", "another long password", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.store.UserByID(ctx, u.ID); got.SessionGeneration <= u.SessionGeneration {
		t.Errorf("session generation %d after the reset, want above %d", got.SessionGeneration, u.SessionGeneration)
	}
}

package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// withStore opens the data directory's store, runs fn and closes it again.
func withStore(t *testing.T, dir string, fn func(*accounts.Accounts, *sqlitestore.Store)) {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(dir, "vulnkeeper.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fn(accounts.NewAccounts(st, accounts.DefaultAuthOptions()), st)
}

func TestCLIUserReset2FA(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"org", "create", "acme"}, {"org", "create", "globex"}} {
		if r := runCLI(t, dir, "", args...); r.code != 0 {
			t.Fatalf("%v: %q", args, r.stderr)
		}
	}
	if r := runCLI(t, dir, "correct horse battery\n", "user", "create", "--org", "acme", "--username", "erin", "--password-stdin"); r.code != 0 {
		t.Fatalf("user create: %q", r.stderr)
	}
	ctx := context.Background()
	var erinID int64
	withStore(t, dir, func(a *accounts.Accounts, st *sqlitestore.Store) {
		u, err := st.UserByUsername(ctx, "erin")
		if err != nil {
			t.Fatal(err)
		}
		erinID = u.ID
		secret, _, err := a.BeginTOTP(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		code, _ := totp.GenerateCode(secret, time.Now())
		if err := a.EnableTOTP(ctx, u.ID, "correct horse battery", code); err != nil {
			t.Fatal(err)
		}
	})
	r := runCLI(t, dir, "", "user", "reset-2fa", "--org", "globex", "--username", "erin")
	if r.code != 1 || r.stderr != "error: not found: organization \"globex\" has no user \"erin\"\n" {
		t.Errorf("reset in the wrong organization: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, dir, "", "user", "reset-2fa", "--org", "acme", "--username", "erin")
	if r.code != 0 || r.stdout != "two-factor authentication of \"erin\" in \"acme\" turned off\n" {
		t.Fatalf("reset-2fa: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	withStore(t, dir, func(a *accounts.Accounts, st *sqlitestore.Store) {
		if u, _ := st.UserByID(ctx, erinID); u.TOTPEnabled {
			t.Error("two-factor authentication is still on")
		}
		if res, err := a.Login(ctx, "erin", "correct horse battery"); err != nil || res.NextStep != "" {
			t.Errorf("login after the reset: %q, %v; want no second factor", res.NextStep, err)
		}
	})
}

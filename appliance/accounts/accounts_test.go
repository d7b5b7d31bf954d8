package accounts_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

const password = "correct horse battery"

type accountsEnv struct {
	accounts *accounts.Accounts
	store    *sqlitestore.Store
	dbPath   string
}

func newAccounts(t *testing.T, opts accounts.AuthOptions) accountsEnv {
	t.Helper()
	path := filepath.Join(t.TempDir(), "vk.db")
	st, err := sqlitestore.Open(context.Background(), path, sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return accountsEnv{accounts: accounts.NewAccounts(st, opts), store: st, dbPath: path}
}

// seedOrgUser creates organization org with one member username.
func (e accountsEnv) seedOrgUser(t *testing.T, org, username string) appliance.User {
	t.Helper()
	ctx := context.Background()
	if _, err := e.accounts.Organization(ctx, org); errors.Is(err, appliance.ErrNotFound) {
		if _, err := e.accounts.CreateOrganization(ctx, org); err != nil {
			t.Fatal(err)
		}
	}
	u, err := e.accounts.CreateUser(ctx, org, username, appliance.RoleMember, password)
	if err != nil {
		t.Fatalf("create user %q: %v", username, err)
	}
	return u
}

func TestCreateOrganizationsAndUsers(t *testing.T) {
	ctx := context.Background()
	e := newAccounts(t, accounts.DefaultAuthOptions())
	e.seedOrgUser(t, "acme", "alice")
	_, orgErr := e.accounts.CreateOrganization(ctx, " ACME ")
	_, userErr := e.accounts.CreateUser(ctx, "acme", "Alice", appliance.RoleMember, password)
	_, unknownOrgErr := e.accounts.CreateUser(ctx, "initech", "bob", appliance.RoleMember, password)
	_, badRoleErr := e.accounts.CreateUser(ctx, "acme", "bob", "root", password)
	_, badNameErr := e.accounts.CreateUser(ctx, "acme", "b", appliance.RoleMember, password)
	_, shortPwErr := e.accounts.CreateUser(ctx, "acme", "bob", appliance.RoleMember, "short")
	_, emptyOrgErr := e.accounts.CreateOrganization(ctx, "  ")
	for _, c := range []struct {
		name string
		err  error
		kind error
	}{
		{"duplicate organization (case and spaces differ)", orgErr, appliance.ErrConflict},
		{"duplicate username (case differs)", userErr, appliance.ErrConflict},
		{"unknown organization", unknownOrgErr, appliance.ErrNotFound},
	} {
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.kind)
		}
	}
	if unknownOrgErr == nil || unknownOrgErr.Error() != `not found: organization "initech" does not exist` {
		t.Errorf("unknown organization message = %v, want it to name initech", unknownOrgErr)
	}
	for name, c := range map[string]struct {
		err   error
		field string
	}{"role": {badRoleErr, "role"}, "username": {badNameErr, "username"}, "password": {shortPwErr, "password"}, "org name": {emptyOrgErr, "name"}} {
		var ve *appliance.ValidationError
		if !errors.As(c.err, &ve) || ve.Field != c.field {
			t.Errorf("invalid %s: %v, want a ValidationError on %s", name, c.err, c.field)
		}
	}
}

func TestLoginFailuresLookAlike(t *testing.T) {
	ctx := context.Background()
	e := newAccounts(t, accounts.DefaultAuthOptions())
	e.seedOrgUser(t, "acme", "alice")
	_, unknownErr := e.accounts.Login(ctx, "mallory", password)
	_, wrongErr := e.accounts.Login(ctx, "alice", "wrong password")
	_, longErr := e.accounts.Login(ctx, "alice", strings.Repeat("p", 300))
	for name, err := range map[string]error{"unknown user": unknownErr, "wrong password": wrongErr, "overlong password": longErr} {
		if !errors.Is(err, appliance.ErrUnauthorized) || err.Error() != unknownErr.Error() {
			t.Errorf("%s: %v, want ErrUnauthorized reading %q", name, err, unknownErr)
		}
	}
	unknown, wrong := loginDurations(ctx, e.accounts, "mallory"), loginDurations(ctx, e.accounts, "alice")
	ratio := float64(unknown) / float64(wrong)
	t.Logf("median failed login: unknown user %s, wrong password %s, ratio %.2f", unknown, wrong, ratio)
	if ratio < 0.3 || ratio > 3 {
		t.Errorf("median failed login: unknown user %s, wrong password %s (ratio %.2f, want 0.3..3)", unknown, wrong, ratio)
	}
}

// loginDurations is the median time of seven failed logins of username.
func loginDurations(ctx context.Context, a *accounts.Accounts, username string) time.Duration {
	var ds []time.Duration
	for range 7 {
		start := time.Now()
		_, _ = a.Login(ctx, username, "wrong password")
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func TestLoginNextStep(t *testing.T) {
	ctx := context.Background()
	opts := accounts.DefaultAuthOptions()
	opts.PasswordMaxAgeDays = 30
	e := newAccounts(t, opts)
	e.seedOrgUser(t, "acme", "plain")
	e.seedOrgUser(t, "acme", "forced")
	if err := e.accounts.ResetPassword(ctx, "forced", password, true); err != nil {
		t.Fatal(err)
	}
	old := e.seedOrgUser(t, "acme", "old")
	if err := e.store.InTx(ctx, func(tx appliance.Tx) error {
		return tx.SetPassword(ctx, old.ID, old.PasswordHash, time.Now().AddDate(0, 0, -31), false)
	}); err != nil {
		t.Fatal(err)
	}
	second := e.seedOrgUser(t, "acme", "second")
	secret := enableTOTP(t, e.accounts, second.ID)
	for _, tt := range []struct{ username, want string }{
		{"plain", ""}, {"forced", accounts.NextStepPasswordChange}, {"old", accounts.NextStepPasswordChange}, {"second", accounts.NextStepTOTP},
	} {
		res, err := e.accounts.Login(ctx, tt.username, password)
		if err != nil || res.NextStep != tt.want || res.User.Username != tt.username {
			t.Errorf("login %s: next step %q, user %q, %v; want %q", tt.username, res.NextStep, res.User.Username, err, tt.want)
		}
	}
	code := nextCode(t, secret) // the current step's code went into enabling
	if next, err := e.accounts.VerifyTOTP(ctx, second.ID, code); err != nil || next != "" {
		t.Errorf("VerifyTOTP = %q, %v; want no further step", next, err)
	}
	if _, err := e.accounts.VerifyTOTP(ctx, second.ID, "000000x"); !errors.Is(err, appliance.ErrUnauthorized) {
		t.Errorf("VerifyTOTP with a wrong code: %v, want ErrUnauthorized", err)
	}
}

func enableTOTP(t *testing.T, a *accounts.Accounts, userID int64) string {
	t.Helper()
	ctx := context.Background()
	secret, url, err := a.BeginTOTP(ctx, userID)
	if err != nil || !strings.HasPrefix(url, "otpauth://totp/vulnkeeper:") {
		t.Fatalf("BeginTOTP = %q, %v", url, err)
	}
	var ve *appliance.ValidationError
	if err := a.EnableTOTP(ctx, userID, password, "123456x"); !errors.As(err, &ve) {
		t.Fatalf("EnableTOTP with a wrong code: %v, want a ValidationError", err)
	}
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.EnableTOTP(ctx, userID, password, code); err != nil {
		t.Fatalf("EnableTOTP: %v", err)
	}
	if _, _, err := a.BeginTOTP(ctx, userID); !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("BeginTOTP when enabled: %v, want ErrConflict", err)
	}
	return secret
}

// nextCode is the code of the next time step: one the server accepts (clock skew) and that
// no earlier call used.
func nextCode(t *testing.T, secret string) string {
	t.Helper()
	code, err := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func TestChangePassword(t *testing.T) {
	ctx := context.Background()
	e := newAccounts(t, accounts.DefaultAuthOptions())
	u := e.seedOrgUser(t, "acme", "alice")
	const next = "a much better passphrase"
	for _, tt := range []struct{ current, next, field string }{
		{"wrong password", next, "current_password"},
		{password, password, "new_password"},
		{password, "short", "new_password"},
	} {
		var ve *appliance.ValidationError
		if _, err := e.accounts.ChangePassword(ctx, u.ID, tt.current, tt.next); !errors.As(err, &ve) || ve.Field != tt.field {
			t.Errorf("ChangePassword(%q, %q) = %v, want a ValidationError on %s", tt.current, tt.next, err, tt.field)
		}
	}
	gen, err := e.accounts.ChangePassword(ctx, u.ID, password, next)
	if err != nil {
		t.Fatal(err)
	}
	if gen <= u.SessionGeneration {
		t.Errorf("session generation after the change = %d, want above %d", gen, u.SessionGeneration)
	}
	if _, err := e.accounts.Login(ctx, "alice", next); err != nil {
		t.Errorf("login with the new password: %v", err)
	}
	if _, err := e.accounts.Login(ctx, "alice", password); !errors.Is(err, appliance.ErrUnauthorized) {
		t.Errorf("login with the old password: %v, want ErrUnauthorized", err)
	}
}

func TestAgentKeys(t *testing.T) {
	ctx := context.Background()
	e := newAccounts(t, accounts.DefaultAuthOptions())
	for _, org := range []string{"acme", "globex"} {
		if _, err := e.accounts.CreateOrganization(ctx, org); err != nil {
			t.Fatal(err)
		}
	}
	plain, key, err := e.accounts.CreateAgentKey(ctx, "acme", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plain, "vk_") || len(plain) != 51 || key.Name != "agent" || !slices.Equal(key.Scopes, []string{"agent"}) {
		t.Errorf("created key %q %+v", plain, key)
	}
	p, err := e.accounts.AuthenticateAgent(ctx, plain, appliance.ScopeAgent)
	if err != nil || p.KeyID != key.ID || p.OrganizationID != key.OrganizationID {
		t.Errorf("authenticate: %+v, %v; want key %d", p, err, key.ID)
	}
	metrics, _, err := e.accounts.CreateAgentKey(ctx, "acme", "scraper", []string{"metrics"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.accounts.CreateAgentKey(ctx, "acme", "x", []string{"admin"}); err == nil {
		t.Error("a key with an unknown scope was created")
	}
	if err := e.accounts.RevokeAgentKey(ctx, "globex", key.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("revoke through another organization: %v, want ErrNotFound", err)
	}
	if _, err := e.accounts.AuthenticateAgent(ctx, plain, appliance.ScopeAgent); err != nil {
		t.Errorf("key after a foreign revoke: %v, want still valid", err)
	}
	revoked, k2, _ := e.accounts.CreateAgentKey(ctx, "acme", "old", nil)
	if err := e.accounts.RevokeAgentKey(ctx, "acme", k2.ID); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, key string
		want      error
	}{
		{"missing", "", appliance.ErrUnauthorized},
		{"wrong", plain + "0", appliance.ErrUnauthorized},
		{"revoked", revoked, appliance.ErrUnauthorized},
		{"without the agent scope", metrics, appliance.ErrForbidden},
	} {
		if _, err := e.accounts.AuthenticateAgent(ctx, tt.key, appliance.ScopeAgent); !errors.Is(err, tt.want) {
			t.Errorf("%s key: %v, want %v", tt.name, err, tt.want)
		}
	}
	assertOnlyHashStored(t, e.dbPath, plain)
}

// assertOnlyHashStored reads the database file itself: the key's SHA-256 is there, the key
// is in no column.
func assertOnlyHashStored(t *testing.T, path, plain string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, organization_id, name, key_hash, key_prefix, scopes, created_at,
		coalesce(last_used_at, ''), coalesce(revoked_at, '') FROM agent_keys`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	sum := sha256.Sum256([]byte(plain))
	found := false
	for rows.Next() {
		cols := make([]string, 9)
		ptrs := make([]any, len(cols))
		for i := range cols {
			ptrs[i] = &cols[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		found = found || cols[3] == hex.EncodeToString(sum[:])
		for _, c := range cols {
			if strings.Contains(c, plain) {
				t.Errorf("the plaintext key is stored in agent_keys: %v", cols)
			}
		}
	}
	if err := rows.Err(); err != nil || !found {
		t.Errorf("no row holds the SHA-256 of the key (err %v)", err)
	}
}

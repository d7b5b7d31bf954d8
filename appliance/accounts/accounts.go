// Package accounts owns organizations, people and agent keys: passwords (argon2id), logins
// with their next steps, two-factor authentication, sessions' generations and agent keys.
package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/pquerna/otp"

	"github.com/pquerna/otp/totp"
	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// AuthOptions configure people's authentication.
// Store is what the accounts service reads, and the transaction it writes in.
type Store interface {
	appliance.AccountReader
	appliance.Transactor
}

type AuthOptions struct {
	// PasswordMaxAgeDays forces a password change after that many days; 0 never.
	PasswordMaxAgeDays int    `mapstructure:"password_max_age_days"`
	TOTPIssuer         string `mapstructure:"totp_issuer"`
	// ConcurrentHashes bounds the argon2id work running at once.
	ConcurrentHashes int `mapstructure:"concurrent_hashes"`
}

// DefaultAuthOptions are used when the configuration names none.
func DefaultAuthOptions() AuthOptions {
	return AuthOptions{PasswordMaxAgeDays: 0, TOTPIssuer: "vulnkeeper", ConcurrentHashes: 2}
}

// Next steps a login can demand before the session opens everything.
const (
	NextStepPasswordChange = "password_change"
	NextStepTOTP           = "totp"
)

// Accounts manages organizations, people and agent keys.
type Accounts struct {
	store  Store
	hasher *PasswordHasher
	opts   AuthOptions
	now    func() time.Time

	touchMu sync.Mutex
	touched map[int64]time.Time // last time a key's use was written, to avoid a write per request
}

// NewAccounts builds the service.
func NewAccounts(store Store, opts AuthOptions) *Accounts {
	return &Accounts{store: store, hasher: NewPasswordHasher(opts.ConcurrentHashes), opts: opts,
		now: time.Now, touched: map[int64]time.Time{}}
}

var (
	usernamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{1,63}$`)
	errBadLogin     = appliance.Unauthorized("invalid username or password")
)

func validOrgName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return "", appliance.Invalid("name", "length", "organization name must have 1 to 100 characters")
	}
	return name, nil
}

// CreateOrganization adds a tenant; the name is unique regardless of case.
func (a *Accounts) CreateOrganization(ctx context.Context, name string) (appliance.Organization, error) {
	name, err := validOrgName(name)
	if err != nil {
		return appliance.Organization{}, err
	}
	org := appliance.Organization{Name: name, CreatedAt: a.now().UTC()}
	err = a.store.InTx(ctx, func(tx appliance.Tx) error {
		id, err := tx.CreateOrganization(ctx, org)
		org.ID = id
		return err
	})
	if errors.Is(err, appliance.ErrConflict) {
		return appliance.Organization{}, appliance.Conflict("organization %q already exists", name).Because(err)
	}
	return org, err
}

// Organization finds a tenant by name, with a clear error when there is none.
func (a *Accounts) Organization(ctx context.Context, name string) (appliance.Organization, error) {
	org, err := a.store.OrganizationByName(ctx, strings.TrimSpace(name))
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.Organization{}, appliance.NotFound("organization %q does not exist", name)
	}
	return org, err
}

// CreateUser adds a person to the named organization.
func (a *Accounts) CreateUser(ctx context.Context, orgName, username string, role appliance.Role, password string) (appliance.User, error) {
	username = strings.TrimSpace(username)
	if !usernamePattern.MatchString(username) {
		return appliance.User{}, appliance.Invalid("username", "format", "username must be 2 to 64 letters, digits or . _ @ -")
	}
	if role != appliance.RoleOrgAdmin && role != appliance.RoleMember {
		return appliance.User{}, appliance.Invalid("role", "enum", "role must be org_admin or member")
	}
	if err := ValidatePassword("password", password); err != nil {
		return appliance.User{}, err
	}
	org, err := a.Organization(ctx, orgName)
	if err != nil {
		return appliance.User{}, err
	}
	hash, err := a.hasher.Hash(ctx, password)
	if err != nil {
		return appliance.User{}, err
	}
	now := a.now().UTC()
	u := appliance.User{OrganizationID: org.ID, Username: username, Role: role, PasswordHash: hash, PasswordChangedAt: now, CreatedAt: now}
	err = a.store.InTx(ctx, func(tx appliance.Tx) error {
		id, err := tx.CreateUser(ctx, u)
		u.ID = id
		return err
	})
	if errors.Is(err, appliance.ErrConflict) {
		return appliance.User{}, appliance.Conflict("user %q already exists", username).Because(err)
	}
	return u, err
}

// LoginResult is a successful password check and what must follow it.
type LoginResult struct {
	User     appliance.User
	NextStep string // "", NextStepPasswordChange or NextStepTOTP
}

// Login checks a username and password. Unknown users and wrong passwords fail alike,
// in comparable time.
func (a *Accounts) Login(ctx context.Context, username, password string) (LoginResult, error) {
	u, err := a.store.UserByUsername(ctx, strings.TrimSpace(username))
	if errors.Is(err, appliance.ErrNotFound) {
		a.hasher.VerifyNobody(ctx, password)
		return LoginResult{}, errBadLogin
	}
	if err != nil {
		return LoginResult{}, err
	}
	ok, err := a.checkPassword(ctx, u, password)
	if err != nil {
		return LoginResult{}, err
	}
	if !ok {
		return LoginResult{}, errBadLogin
	}
	at := a.now().UTC()
	if err := a.store.InTx(ctx, func(tx appliance.Tx) error { return tx.RecordLogin(ctx, u.ID, at) }); err != nil {
		return LoginResult{}, err
	}
	return LoginResult{User: u, NextStep: a.nextStep(u)}, nil
}

// checkPassword reports whether password is u's. A password longer than the policy allows
// cannot be u's (the policy refused it when it was set) and costs the same work as any other.
func (a *Accounts) checkPassword(ctx context.Context, u appliance.User, password string) (bool, error) {
	if passwordLength(password) > maxPasswordLen {
		a.hasher.VerifyNobody(ctx, password)
		return false, nil
	}
	ok, err := a.hasher.Verify(ctx, u.PasswordHash, password)
	if err != nil {
		return false, fmt.Errorf("verify password of user %d: %w", u.ID, err)
	}
	return ok, nil
}

func (a *Accounts) nextStep(u appliance.User) string {
	if u.TOTPEnabled {
		return NextStepTOTP
	}
	return a.passwordStep(u)
}

func (a *Accounts) passwordStep(u appliance.User) string {
	if u.MustChangePassword {
		return NextStepPasswordChange
	}
	if a.opts.PasswordMaxAgeDays > 0 && a.now().Sub(u.PasswordChangedAt) > time.Duration(a.opts.PasswordMaxAgeDays)*24*time.Hour {
		return NextStepPasswordChange
	}
	return ""
}

// PasswordStep tells whether u must change the password before anything else.
func (a *Accounts) PasswordStep(u appliance.User) string { return a.passwordStep(u) }

// User loads a person by id (for a session).
func (a *Accounts) User(ctx context.Context, id int64) (appliance.User, error) {
	return a.store.UserByID(ctx, id)
}

// ChangePassword replaces the password of userID after checking the current one. It
// starts a new session generation, which ends every session of the user; the caller puts
// the returned generation into the session that asked, so that one stays valid.
func (a *Accounts) ChangePassword(ctx context.Context, userID int64, current, next string) (int64, error) {
	u, err := a.store.UserByID(ctx, userID)
	if err != nil {
		return 0, err
	}
	ok, err := a.checkPassword(ctx, u, current)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, appliance.Invalid("current_password", "match", "current password is wrong")
	}
	if next == current {
		return 0, appliance.Invalid("new_password", "different", "new password must differ from the current one")
	}
	return a.setPassword(ctx, u.ID, next, false)
}

// ResetPassword sets the password of username (operator command) and ends all of the
// user's sessions; mustChange forces a change at the next login.
func (a *Accounts) ResetPassword(ctx context.Context, username, password string, mustChange bool) error {
	u, err := a.store.UserByUsername(ctx, strings.TrimSpace(username))
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.NotFound("user %q does not exist", username)
	}
	if err != nil {
		return err
	}
	_, err = a.setPassword(ctx, u.ID, password, mustChange)
	return err
}

// setPassword stores the new password and starts a new session generation in one
// transaction, and returns that generation.
func (a *Accounts) setPassword(ctx context.Context, userID int64, password string, mustChange bool) (int64, error) {
	if err := ValidatePassword("new_password", password); err != nil {
		return 0, err
	}
	hash, err := a.hasher.Hash(ctx, password)
	if err != nil {
		return 0, err
	}
	at := a.now().UTC()
	var gen int64
	err = a.store.InTx(ctx, func(tx appliance.Tx) error {
		if err := tx.SetPassword(ctx, userID, hash, at, mustChange); err != nil {
			return err
		}
		gen, err = tx.NewSessionGeneration(ctx, userID)
		return err
	})
	return gen, err
}

// BeginTOTP creates a new secret for userID, stored but not yet enabled; returns the
// secret and its otpauth:// URL for an authenticator app.
func (a *Accounts) BeginTOTP(ctx context.Context, userID int64) (secret, url string, err error) {
	u, err := a.store.UserByID(ctx, userID)
	if err != nil {
		return "", "", err
	}
	if u.TOTPEnabled {
		return "", "", appliance.Conflict("two-factor authentication is already enabled")
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: a.opts.TOTPIssuer, AccountName: u.Username, Period: totpPeriod})
	if err != nil {
		return "", "", err
	}
	err = a.store.InTx(ctx, func(tx appliance.Tx) error { return tx.SetTOTP(ctx, userID, key.Secret(), false) })
	return key.Secret(), key.URL(), err
}

// EnableTOTP turns on two-factor authentication once the user proves, with the password
// and a code, that they hold the account and the secret. The code is used up.
func (a *Accounts) EnableTOTP(ctx context.Context, userID int64, password, code string) error {
	u, err := a.store.UserByID(ctx, userID)
	if err != nil {
		return err
	}
	if u.TOTPEnabled {
		return appliance.Conflict("two-factor authentication is already enabled")
	}
	if u.TOTPSecret == "" {
		return appliance.Invalid("code", "enrolment", "start the enrolment first")
	}
	if err := a.requirePassword(ctx, u, password); err != nil {
		return err
	}
	return a.useCode(ctx, u, code, appliance.Invalid("code", "totp", "the code is wrong, expired or already used"),
		func(tx appliance.Tx) error { return tx.SetTOTP(ctx, userID, u.TOTPSecret, true) })
}

// DisableTOTP turns off the user's own two-factor authentication; it needs the password
// and a current code.
func (a *Accounts) DisableTOTP(ctx context.Context, userID int64, password, code string) error {
	u, err := a.store.UserByID(ctx, userID)
	if err != nil {
		return err
	}
	if !u.TOTPEnabled {
		return appliance.Conflict("two-factor authentication is not enabled")
	}
	if err := a.requirePassword(ctx, u, password); err != nil {
		return err
	}
	return a.useCode(ctx, u, code, appliance.Invalid("code", "totp", "the code is wrong, expired or already used"),
		func(tx appliance.Tx) error { return tx.SetTOTP(ctx, userID, "", false) })
}

// ResetTOTP turns off the two-factor authentication of user id of organization orgID (an
// organization admin helping a person who lost the authenticator). A user of another
// organization does not exist.
func (a *Accounts) ResetTOTP(ctx context.Context, orgID, id int64) (appliance.User, error) {
	u, err := a.member(ctx, orgID, id)
	if err != nil {
		return appliance.User{}, err
	}
	return u, a.store.InTx(ctx, func(tx appliance.Tx) error { return tx.SetTOTP(ctx, u.ID, "", false) })
}

// ResetTOTPByName is ResetTOTP for the operator command: username within orgName.
func (a *Accounts) ResetTOTPByName(ctx context.Context, orgName, username string) error {
	org, err := a.Organization(ctx, orgName)
	if err != nil {
		return err
	}
	u, err := a.store.UserInOrganization(ctx, org.ID, strings.TrimSpace(username))
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.NotFound("organization %q has no user %q", orgName, username)
	}
	if err != nil {
		return err
	}
	_, err = a.ResetTOTP(ctx, org.ID, u.ID)
	return err
}

// VerifyTOTP checks the second factor of a login and returns the remaining step, if any.
// The code is used up.
func (a *Accounts) VerifyTOTP(ctx context.Context, userID int64, code string) (string, error) {
	u, err := a.store.UserByID(ctx, userID)
	if err != nil {
		return "", err
	}
	bad := appliance.Unauthorized("the code is wrong, expired or already used")
	if !u.TOTPEnabled {
		return "", bad
	}
	if err := a.useCode(ctx, u, code, bad, nil); err != nil {
		return "", err
	}
	return a.passwordStep(u), nil
}

func (a *Accounts) requirePassword(ctx context.Context, u appliance.User, password string) error {
	ok, err := a.checkPassword(ctx, u, password)
	if err != nil {
		return err
	}
	if !ok {
		return appliance.Invalid("password", "match", "password is wrong")
	}
	return nil
}

// useCode accepts code for u's secret once: its time step is recorded in the same
// transaction as then (which may be nil), and a step not later than the last one recorded
// is refused with bad, like a wrong code.
func (a *Accounts) useCode(ctx context.Context, u appliance.User, code string, bad error, then func(appliance.Tx) error) error {
	step, ok := totpStep(u.TOTPSecret, code, a.now())
	if !ok || step <= u.TOTPLastStep {
		return bad
	}
	err := a.store.InTx(ctx, func(tx appliance.Tx) error {
		if err := tx.UseTOTPStep(ctx, u.ID, step); err != nil {
			return err
		}
		if then == nil {
			return nil
		}
		return then(tx)
	})
	if errors.Is(err, appliance.ErrNotFound) { // a concurrent request used the same code first
		return bad
	}
	return err
}

// totpPeriod is the length of a TOTP time step in seconds (RFC 6238's default).
const totpPeriod = 30

// totpStep finds the time step whose code is code, among the current step and one on
// either side (clock skew).
func totpStep(secret, code string, now time.Time) (int64, bool) {
	code = strings.TrimSpace(code)
	if secret == "" || len(code) != 6 {
		return 0, false
	}
	cur := now.Unix() / totpPeriod
	opts := totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}
	for _, step := range []int64{cur - 1, cur, cur + 1} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*totpPeriod, 0), opts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, true
		}
	}
	return 0, false
}

// AgentPrincipal is who an authenticated agent key speaks for.
type AgentPrincipal struct {
	KeyID          int64
	OrganizationID int64
}

const agentKeyPrefix = "vk_"

// HashKey is the at-rest form of an agent key.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// CreateAgentKey issues a key for the named organization; the plaintext is returned once.
func (a *Accounts) CreateAgentKey(ctx context.Context, orgName, name string, scopes []string) (string, appliance.AgentKey, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "agent"
	}
	if len(name) > 100 {
		return "", appliance.AgentKey{}, appliance.Invalid("name", "max_length", "key name must have at most 100 characters")
	}
	if len(scopes) == 0 {
		scopes = []string{appliance.ScopeAgent}
	}
	for _, s := range scopes {
		if !appliance.KnownScope(s) {
			return "", appliance.AgentKey{}, appliance.Invalid("scope", "enum", "unknown scope %q (known: agent, metrics)", s)
		}
	}
	org, err := a.Organization(ctx, orgName)
	if err != nil {
		return "", appliance.AgentKey{}, err
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", appliance.AgentKey{}, err
	}
	plain := agentKeyPrefix + hex.EncodeToString(raw)
	k := appliance.AgentKey{OrganizationID: org.ID, Name: name, Hash: HashKey(plain), Prefix: plain[:len(agentKeyPrefix)+6],
		Scopes: scopes, CreatedAt: a.now().UTC()}
	err = a.store.InTx(ctx, func(tx appliance.Tx) error {
		id, err := tx.CreateAgentKey(ctx, k)
		k.ID = id
		return err
	})
	return plain, k, err
}

// AgentKeys lists the keys of the named organization.
func (a *Accounts) AgentKeys(ctx context.Context, orgName string) ([]appliance.AgentKey, error) {
	org, err := a.Organization(ctx, orgName)
	if err != nil {
		return nil, err
	}
	return a.store.AgentKeys(ctx, org.ID)
}

// RevokeAgentKey disables key id of the named organization at once.
func (a *Accounts) RevokeAgentKey(ctx context.Context, orgName string, id int64) error {
	org, err := a.Organization(ctx, orgName)
	if err != nil {
		return err
	}
	at := a.now().UTC()
	err = a.store.InTx(ctx, func(tx appliance.Tx) error { return tx.RevokeAgentKey(ctx, org.ID, id, at) })
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.NotFound("organization %q has no active key %d", orgName, id)
	}
	return err
}

// AuthenticateAgent resolves a presented key to its organization. Missing, unknown and
// revoked keys are ErrUnauthorized; a key without the required scope is ErrForbidden.
func (a *Accounts) AuthenticateAgent(ctx context.Context, key, scope string) (AgentPrincipal, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return AgentPrincipal{}, appliance.Unauthorized("missing agent key (X-Agent-Key or X-API-Key)")
	}
	k, err := a.store.AgentKeyByHash(ctx, HashKey(key))
	if errors.Is(err, appliance.ErrNotFound) || (err == nil && !k.RevokedAt.IsZero()) {
		return AgentPrincipal{}, appliance.Unauthorized("invalid or revoked agent key")
	}
	if err != nil {
		return AgentPrincipal{}, err
	}
	if !k.HasScope(scope) {
		return AgentPrincipal{}, appliance.Forbidden("the key lacks the %q scope", scope)
	}
	a.recordUse(ctx, k.ID)
	return AgentPrincipal{KeyID: k.ID, OrganizationID: k.OrganizationID}, nil
}

// recordUse writes a key's last use at most once a minute; a failure only costs precision.
func (a *Accounts) recordUse(ctx context.Context, keyID int64) {
	now := a.now().UTC()
	a.touchMu.Lock()
	last, seen := a.touched[keyID]
	if seen && now.Sub(last) < time.Minute {
		a.touchMu.Unlock()
		return
	}
	a.touched[keyID] = now
	a.touchMu.Unlock()
	_ = a.store.InTx(ctx, func(tx appliance.Tx) error { return tx.TouchAgentKey(ctx, keyID, now) })
}

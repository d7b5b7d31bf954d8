package sqlitestore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// seed holds two organizations, each with a user and an agent key.
type seed struct {
	orgA, orgB   int64
	userA, userB int64
	keyA, keyB   int64
}

func seedTwoOrgs(t *testing.T, st *Store) seed {
	t.Helper()
	ctx := context.Background()
	var s seed
	now := time.Now()
	err := st.InTx(ctx, func(tx appliance.Tx) error {
		var errs [6]error
		s.orgA, errs[0] = tx.CreateOrganization(ctx, appliance.Organization{Name: "acme", CreatedAt: now})
		s.orgB, errs[1] = tx.CreateOrganization(ctx, appliance.Organization{Name: "globex", CreatedAt: now})
		s.userA, errs[2] = tx.CreateUser(ctx, testUser(s.orgA, "alice"))
		s.userB, errs[3] = tx.CreateUser(ctx, testUser(s.orgB, "bob"))
		s.keyA, errs[4] = tx.CreateAgentKey(ctx, testKey(s.orgA, "hash-a"))
		s.keyB, errs[5] = tx.CreateAgentKey(ctx, testKey(s.orgB, "hash-b"))
		return errors.Join(errs[:]...)
	})
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
	return s
}

func testUser(orgID int64, name string) appliance.User {
	now := time.Now()
	return appliance.User{OrganizationID: orgID, Username: name, Role: appliance.RoleMember, PasswordHash: "$argon2id$x",
		PasswordChangedAt: now, CreatedAt: now}
}

func testKey(orgID int64, hash string) appliance.AgentKey {
	return appliance.AgentKey{OrganizationID: orgID, Name: "k", Hash: hash, Prefix: "vk_abc", Scopes: []string{"agent", "metrics"},
		CreatedAt: time.Now()}
}

func inTx(st *Store, fn func(ctx context.Context, tx appliance.Tx) error) error {
	ctx := context.Background()
	return st.InTx(ctx, func(tx appliance.Tx) error { return fn(ctx, tx) })
}

func TestErrorTranslation(t *testing.T) {
	st := newStore(t)
	s := seedTwoOrgs(t, st)
	ctx := context.Background()
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"duplicate organization name, other case", inTx(st, func(ctx context.Context, tx appliance.Tx) error {
			_, err := tx.CreateOrganization(ctx, appliance.Organization{Name: "ACME", CreatedAt: time.Now()})
			return err
		}), appliance.ErrConflict},
		{"duplicate username", inTx(st, func(ctx context.Context, tx appliance.Tx) error {
			_, err := tx.CreateUser(ctx, testUser(s.orgB, "Alice"))
			return err
		}), appliance.ErrConflict},
		{"duplicate key hash", inTx(st, func(ctx context.Context, tx appliance.Tx) error {
			_, err := tx.CreateAgentKey(ctx, testKey(s.orgB, "hash-a"))
			return err
		}), appliance.ErrConflict},
		{"user of a missing organization", inTx(st, func(ctx context.Context, tx appliance.Tx) error {
			_, err := tx.CreateUser(ctx, testUser(999, "carol"))
			return err
		}), appliance.ErrNotFound},
		{"password of a missing user", inTx(st, func(ctx context.Context, tx appliance.Tx) error {
			return tx.SetPassword(ctx, 999, "h", time.Now(), false)
		}), appliance.ErrNotFound},
		{"missing user by id", second(st.UserByID(ctx, 999)), appliance.ErrNotFound},
		{"missing organization", second(st.OrganizationByName(ctx, "initech")), appliance.ErrNotFound},
		{"missing key hash", second(st.AgentKeyByHash(ctx, "nope")), appliance.ErrNotFound},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestOrganizationScoping(t *testing.T) {
	st := newStore(t)
	s := seedTwoOrgs(t, st)
	ctx := context.Background()
	if u, err := st.UserInOrganization(ctx, s.orgA, "alice"); err != nil || u.ID != s.userA {
		t.Errorf("alice in her organization: %+v, %v", u, err)
	}
	if _, err := st.UserInOrganization(ctx, s.orgB, "alice"); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("alice in another organization: %v, want ErrNotFound", err)
	}
	keys, err := st.AgentKeys(ctx, s.orgB)
	if err != nil || len(keys) != 1 || keys[0].ID != s.keyB {
		t.Errorf("keys of globex = %+v, %v; want only key %d", keys, err, s.keyB)
	}
	err = inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		return tx.RevokeAgentKey(ctx, s.orgB, s.keyA, time.Now())
	})
	if !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("revoking another organization's key: %v, want ErrNotFound", err)
	}
	if k, err := st.AgentKeyByHash(ctx, "hash-a"); err != nil || !k.RevokedAt.IsZero() {
		t.Errorf("key of acme after a foreign revoke: revoked_at %v, %v; want still active", k.RevokedAt, err)
	}
}

func TestAgentKeyRoundTrip(t *testing.T) {
	st := newStore(t)
	s := seedTwoOrgs(t, st)
	ctx := context.Background()
	revokedAt := time.Date(2025, 3, 1, 10, 0, 0, 123000, time.UTC)
	if err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		return tx.RevokeAgentKey(ctx, s.orgA, s.keyA, revokedAt)
	}); err != nil {
		t.Fatal(err)
	}
	k, err := st.AgentKeyByHash(ctx, "hash-a")
	if err != nil {
		t.Fatal(err)
	}
	if k.ID != s.keyA || k.OrganizationID != s.orgA || !k.RevokedAt.Equal(revokedAt) || len(k.Scopes) != 2 || !k.HasScope("metrics") {
		t.Errorf("key = %+v", k)
	}
	err = inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		return tx.RevokeAgentKey(ctx, s.orgA, s.keyA, time.Now())
	})
	if !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("revoking a revoked key: %v, want ErrNotFound", err)
	}
}

func TestUserRoundTrip(t *testing.T) {
	st := newStore(t)
	s := seedTwoOrgs(t, st)
	ctx := context.Background()
	changed := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	err := inTx(st, func(ctx context.Context, tx appliance.Tx) error {
		return errors.Join(tx.SetPassword(ctx, s.userA, "newhash", changed, true), tx.SetTOTP(ctx, s.userA, "SECRET", true),
			tx.RecordLogin(ctx, s.userA, changed))
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := st.UserByUsername(ctx, "ALICE")
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != s.userA || u.PasswordHash != "newhash" || !u.PasswordChangedAt.Equal(changed) || !u.MustChangePassword ||
		u.TOTPSecret != "SECRET" || !u.TOTPEnabled || !u.LastLoginAt.Equal(changed) || u.Role != appliance.RoleMember {
		t.Errorf("user = %+v", u)
	}
}

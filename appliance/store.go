package appliance

import (
	"context"
	"time"
)

// Store is what the services need from persistence: reads on a pool, writes in one
// transaction each. sqlitestore implements it.
type Store interface {
	Reader
	InTx(ctx context.Context, fn func(Tx) error) error
}

// Reader is every query the services run outside a write transaction.
type Reader interface {
	AccountReader
}

// Tx is the view of the store inside one write transaction.
type Tx interface {
	Reader
	AccountWriter
}

// AccountReader looks up organizations, people and agent keys.
type AccountReader interface {
	OrganizationByName(ctx context.Context, name string) (Organization, error)
	OrganizationByID(ctx context.Context, id int64) (Organization, error)
	Organizations(ctx context.Context) ([]Organization, error)
	UserByUsername(ctx context.Context, username string) (User, error)
	// UserInOrganization finds username only among the users of orgID.
	UserInOrganization(ctx context.Context, orgID int64, username string) (User, error)
	UserByID(ctx context.Context, id int64) (User, error)
	AgentKeyByHash(ctx context.Context, hash string) (AgentKey, error)
	AgentKeys(ctx context.Context, orgID int64) ([]AgentKey, error)
}

// AccountWriter changes organizations, people and agent keys.
type AccountWriter interface {
	CreateOrganization(ctx context.Context, o Organization) (int64, error)
	CreateUser(ctx context.Context, u User) (int64, error)
	SetPassword(ctx context.Context, userID int64, hash string, changedAt time.Time, mustChange bool) error
	SetTOTP(ctx context.Context, userID int64, secret string, enabled bool) error
	RecordLogin(ctx context.Context, userID int64, at time.Time) error
	CreateAgentKey(ctx context.Context, k AgentKey) (int64, error)
	RevokeAgentKey(ctx context.Context, orgID, keyID int64, at time.Time) error
	TouchAgentKey(ctx context.Context, keyID int64, at time.Time) error
}

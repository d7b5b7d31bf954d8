package appliance

import (
	"time"
)

// Role of a person within an organization.
type Role string

const (
	RoleOrgAdmin Role = "org_admin"
	RoleMember   Role = "member"
)

// Key scopes: ScopeAgent lets a key submit inventories, heartbeats and scans; ScopeMetrics
// lets a scraper read /metrics.
const (
	ScopeAgent   = "agent"
	ScopeMetrics = "metrics"
)

var knownScopes = map[string]bool{ScopeAgent: true, ScopeMetrics: true}

// KnownScope reports whether s names an agent-key scope.
func KnownScope(s string) bool { return knownScopes[s] }

// Organization is a tenant; every record belongs to exactly one.
type Organization struct {
	ID        int64
	Name      string
	CreatedAt time.Time
}

// User is a person who logs in.
type User struct {
	ID                 int64
	OrganizationID     int64
	Username           string
	Role               Role
	PasswordHash       string
	PasswordChangedAt  time.Time
	MustChangePassword bool
	TOTPSecret         string
	TOTPEnabled        bool
	CreatedAt          time.Time
	LastLoginAt        time.Time
	// SessionGeneration is copied into each session at login; a session holding an older
	// value is over (a password change increments it).
	SessionGeneration int64
	// TOTPLastStep is the last accepted TOTP time step; codes of it or earlier are refused.
	TOTPLastStep int64
}

// AgentKey authenticates an agent; only the SHA-256 of the key is stored.
type AgentKey struct {
	ID             int64
	OrganizationID int64
	Name           string
	Hash           string
	Prefix         string
	Scopes         []string
	CreatedAt      time.Time
	LastUsedAt     time.Time
	RevokedAt      time.Time
}

// HasScope reports whether the key carries scope.
func (k AgentKey) HasScope(scope string) bool {
	for _, s := range k.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

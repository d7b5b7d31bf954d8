package appliance

import (
	"context"
	"time"
)

// ActivationCode is an operator-issued code; only its hash is stored.
type ActivationCode struct {
	ID           int64
	Hash         string
	Edition      Edition
	ValidFor     time.Duration
	Customer     string
	CreatedAt    time.Time
	LicenseID    string // set once activated
	Installation string // the installation it is bound to, once activated
}

// License is an activated licence; only the SHA-256 of its credential is stored.
type License struct {
	ID             string
	CodeID         int64
	InstallationID string
	Edition        Edition
	Customer       string
	IssuedAt       time.Time
	ExpiresAt      time.Time
	CredentialHash string
}

// Edition is the product edition a licence grants; only professional may push to the KB.
type Edition string

// The editions a licence can carry.
const (
	EditionProfessional Edition = "professional"
	EditionStandard     Edition = "standard"
)

// KBSource is where a KB mapping comes from: the NVD catalogue baseline, installations that
// agree (community) or the operator (curated).
type KBSource string

// The KB sources.
const (
	SourceNVD       KBSource = "nvd"
	SourceCommunity KBSource = "community"
	SourceCurated   KBSource = "curated"
)

// KBMapping is a vendor/product pattern → CPE identity of the shared knowledge base.
type KBMapping struct {
	ID                int64
	Source            KBSource
	Part              string // nvd rows only
	VendorPattern     string
	ProductPattern    string
	CPEVendor         string
	CPEProduct        string
	TupleKey          string
	Confidence        float64
	ContributionCount int
	Published         bool
	Retracted         bool
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// PullQuery selects published mappings for a pull, in (updated_at, id) order.
type PullQuery struct {
	Source        KBSource // "" for all
	Since         time.Time
	HasSince      bool
	Limit, Offset int
}

// SourceStats describes one KB source for operators.
type SourceStats struct {
	Source     KBSource
	Total      int
	Published  int
	Retracted  int
	LastUpdate time.Time
}

// LicenseReader reads licences, activation codes, KB mappings and settings.
type LicenseReader interface {
	ActivationCodeByHash(ctx context.Context, hash string) (ActivationCode, error)
	LicenseByCredential(ctx context.Context, hash string) (License, error)
	LicenseByID(ctx context.Context, id string) (License, error)
	// LicenseByInstallation finds the licence bound to an installation ID (ErrNotFound: none).
	LicenseByInstallation(ctx context.Context, installationID string) (License, error)
	// PullMappings streams the published mappings (catalogue rows as source nvd included)
	// the query selects, and returns how many match it in all.
	PullMappings(ctx context.Context, q PullQuery, fn func(KBMapping) error) (int, error)
	KBMappingByTuple(ctx context.Context, source KBSource, tupleKey string) (KBMapping, error)
	KBSourceStats(ctx context.Context) ([]SourceStats, error)
	EachKBMapping(ctx context.Context, fn func(KBMapping) error) error
	Setting(ctx context.Context, key string) (string, error)
	// PendingOverrides lists confirmed identities not pushed to the KB yet ("not tracked"
	// decisions are never contributions).
	PendingOverrides(ctx context.Context, limit int) ([]Override, error)
}

// LicenseWriter issues licences and maintains the KB.
type LicenseWriter interface {
	CreateActivationCode(ctx context.Context, c ActivationCode) (int64, error)
	CreateLicense(ctx context.Context, l License) error
	// UpsertKBMapping inserts or updates the row of (source, tuple key) and returns its id.
	UpsertKBMapping(ctx context.Context, m KBMapping) (int64, error)
	// AddContribution records an installation's confirmation once, with its voice (see
	// licensing.Voice); it reports whether it was new and how many distinct voices the mapping
	// now has.
	AddContribution(ctx context.Context, mappingID int64, installationID, voice string, confidence float64, at time.Time) (bool, int, error)
	DeleteKBMapping(ctx context.Context, id int64) error
	SetSetting(ctx context.Context, key, value string) error
	MarkOverridesPushed(ctx context.Context, overrides []Override, at time.Time) error
}

package appliance

import (
	"context"
	"time"
)

// Store is what the services need from persistence: reads on a pool, writes in one
// transaction each. sqlitestore implements it.
type Store interface {
	Reader
	Transactor
	// InSharedTx runs a short write like InTx, in a transaction it may share with other short
	// writes waiting at the same time (group commit); each is kept or undone on its own.
	InSharedTx(ctx context.Context, fn func(Tx) error) error
	// InSnapshot runs fn's reads on one consistent view of the database, as of its start.
	InSnapshot(ctx context.Context, fn func(Reader) error) error
}

// Transactor runs fn in one write transaction: committed when fn returns nil, rolled back
// otherwise. Services declare it beside the few reads they need.
type Transactor interface {
	InTx(ctx context.Context, fn func(Tx) error) error
}

// Reader is every query the services run outside a write transaction.
type Reader interface {
	AccountReader
	SoftwareReader
	ExposureReader
	VulnerabilityReader
	AdvisoryReader
	FeedReader
	BundleReader
	ContainerReader
	RemediationReader
	ReportReader
	LicenseReader
	TriageReader
	NotifyReader
	CriticalityReader
}

// Tx is the view of the store inside one write transaction.
type Tx interface {
	Reader
	AccountWriter
	SoftwareWriter
	ExposureWriter
	VulnerabilityWriter
	AdvisoryWriter
	FeedWriter
	BundleWriter
	ContainerWriter
	RemediationWriter
	LicenseWriter
	TriageWriter
	NotifyWriter
	CriticalityWriter
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
	// UsersOfOrganization lists the people of orgID by username.
	UsersOfOrganization(ctx context.Context, orgID int64) ([]User, error)
	AgentKeyByHash(ctx context.Context, hash string) (AgentKey, error)
	AgentKeys(ctx context.Context, orgID int64) ([]AgentKey, error)
}

// AccountWriter changes organizations, people and agent keys.
type AccountWriter interface {
	CreateOrganization(ctx context.Context, o Organization) (int64, error)
	CreateUser(ctx context.Context, u User) (int64, error)
	SetPassword(ctx context.Context, userID int64, hash string, changedAt time.Time, mustChange bool) error
	SetTOTP(ctx context.Context, userID int64, secret string, enabled bool) error
	SetRole(ctx context.Context, userID int64, role Role) error
	SetMustChangePassword(ctx context.Context, userID int64, must bool) error
	// NewSessionGeneration increments the user's session generation (ending every session
	// that holds an older one) and returns the new value.
	NewSessionGeneration(ctx context.Context, userID int64) (int64, error)
	// UseTOTPStep records step as the last accepted TOTP step of the user; ErrNotFound when
	// the recorded one is not older (a replayed code).
	UseTOTPStep(ctx context.Context, userID, step int64) error
	RecordLogin(ctx context.Context, userID int64, at time.Time) error
	CreateAgentKey(ctx context.Context, k AgentKey) (int64, error)
	RevokeAgentKey(ctx context.Context, orgID, keyID int64, at time.Time) error
	TouchAgentKey(ctx context.Context, keyID int64, at time.Time) error
}

// SoftwareReader looks up hosts, products and their installations, always within one organization.
type SoftwareReader interface {
	AssetByHostname(ctx context.Context, hostname string) (Asset, error)
	// ProductsByKeys finds products, deleted or not, by natural key; counts are not filled.
	ProductsByKeys(ctx context.Context, orgID int64, keys []ProductKey) (map[ProductKey]Product, error)
	// ProductChangeSerial moves whenever a product is created, deleted or changed in anything
	// but its kept counts: products read at one serial are current while it stays.
	ProductChangeSerial(ctx context.Context) (int64, error)
	ProductByID(ctx context.Context, orgID, id int64) (Product, error)
	ListProducts(ctx context.Context, f ProductFilter) ([]Product, int, error)
	// EachProduct streams every product the filter selects (pages ignored), in list order.
	EachProduct(ctx context.Context, f ProductFilter, fn func(Product) error) error
	ProductVulnerabilities(ctx context.Context, orgID, productID int64) ([]ProductVulnerability, error)
	LiveInstallations(ctx context.Context, assetID int64) ([]Installation, error)
	LiveInstalledProducts(ctx context.Context, assetID int64) ([]InstalledProduct, error)
	OverrideFor(ctx context.Context, orgID int64, vendorKey, productKey string) (Override, error)
	// ProductsWithReported lists the organization's products reported as (vendor, name), any version.
	ProductsWithReported(ctx context.Context, orgID int64, vendor, name string) ([]Product, error)
	// ReportedNames lists the distinct reported (vendor, name) pairs of the organization's
	// products, of those resolved by method only unless method is "".
	ReportedNames(ctx context.Context, orgID int64, method ResolutionMethod) ([][2]string, error)
	HasOverrides(ctx context.Context, orgID int64) (bool, error)
	// OverridesFor returns the overrides among normalized (vendor, product) keys.
	OverridesFor(ctx context.Context, orgID int64, keys [][2]string) (map[[2]string]Override, error)
	// ProductsToMatch lists products whose matches are older than generation (or all when
	// generation < 0), at most limit, after the id after.
	ProductsToMatch(ctx context.Context, generation int64, after int64, limit int) ([]Product, error)
	UnresolvedProducts(ctx context.Context, after int64, limit int) ([]Product, error)
	// ReviewQueue returns one page of unresolved reported pairs and how many there are.
	ReviewQueue(ctx context.Context, orgID int64, page, perPage int) ([]ReviewItem, int, error)
}

// SoftwareWriter changes hosts, products, installations and matches.
type SoftwareWriter interface {
	CreateAsset(ctx context.Context, a Asset) (int64, error)
	UpdateAsset(ctx context.Context, a Asset) error
	ForgetInventoriesWith(ctx context.Context, productID int64) error
	CreateProduct(ctx context.Context, p Product) (int64, error)
	// UpdateProduct writes the mutable fields (vendor, name, version, identity, resolution,
	// criticality, deleted_at, updated_at) of p within its organization.
	UpdateProduct(ctx context.Context, p Product) error
	CreateInstallation(ctx context.Context, in Installation) (int64, error)
	CreateInstallations(ctx context.Context, ins []Installation) error
	UpdateInstallationPath(ctx context.Context, id int64, path string, at time.Time) error
	RemoveInstallation(ctx context.Context, id int64, at time.Time) error
	// ReplaceMatches makes the product's matches exactly ms (keeping the ids of those that
	// stay), records generation, and returns how many stale matches it removed.
	ReplaceMatches(ctx context.Context, productID int64, ms []MatchInput, generation int64, at time.Time) (int, error)
	SaveOverride(ctx context.Context, o Override) error
	// DeleteOverride forgets the organization's decision for a normalized pair (none is fine).
	DeleteOverride(ctx context.Context, orgID int64, vendorKey, productKey string) error
}

// VulnerabilityReader reads the CVE data and the catalogue.
type VulnerabilityReader interface {
	Generation(ctx context.Context, name string) (int64, error)
	EachCVEConfiguration(ctx context.Context, fn func(id string, configurations []byte) error) error
	EachCatalogEntry(ctx context.Context, fn func(CatalogEntry) error) error
	CVEExists(ctx context.Context, id string) (bool, error)
}

// VulnerabilityWriter imports CVE data and catalogue entries.
type VulnerabilityWriter interface {
	UpsertCVE(ctx context.Context, c CVERecord, at time.Time) error
	DeleteCVE(ctx context.Context, id string) error
	UpsertKEV(ctx context.Context, k KEVRecord) error
	UpsertCatalogEntry(ctx context.Context, e CatalogEntry, at time.Time) error
	BumpGeneration(ctx context.Context, name string) (int64, error)
}

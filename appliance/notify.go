package appliance

import (
	"context"
	"time"
)

// Notifier is told by the services that change findings that something may have changed
// (after their commit). It is a signal, not a list: the notifier works out from the store
// what is new, so a change it was not told about is found at its next scan anyway.
type Notifier interface {
	FindingsChanged(ctx context.Context)
}

// Webhook is one endpoint of an organization that hears about events.
type Webhook struct {
	ID             int64
	OrganizationID int64
	Name           string
	URL            string
	Format         string   // json, slack or teams
	Events         []string // event types it hears
	MinSeverity    string   // finding.new: least severity ("" any); KEV findings always pass
	MinScore       float64  // finding.new: least CVSS base score; KEV findings always pass
	Secret         string   // signs every body; shown once at creation
	Enabled        bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// NotifyEvent is one row of the outbox: an event recorded once under its key.
type NotifyEvent struct {
	ID             int64
	OrganizationID int64
	Key            string
	Type           string
	Data           []byte // JSON
	CreatedAt      time.Time
}

// Delivery states of a webhook delivery.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// WebhookDelivery is one attempt series of one event to one webhook.
type WebhookDelivery struct {
	ID             int64
	WebhookID      int64
	EventID        int64 // 0: a test delivery
	DeliveryID     string
	EventType      string
	Body           []byte
	Status         string
	Attempts       int
	NextAttemptAt  time.Time
	LastStatusCode int
	LastError      string
	CreatedAt      time.Time
	DeliveredAt    time.Time
}

// FindingNotice is a finding (a product's CVE) as a notification tells it.
type FindingNotice struct {
	NoticeID       int64 // notify_findings row: the finding's announcement
	OrganizationID int64
	ProductID      int64
	CVEID          string
	Vendor         string
	Product        string
	Version        string
	Criticality    int
	Severity       string // lower case, "" unknown
	Score          float64
	KEV            bool
	Hosts          []string
}

// NotifyPrefs are a person's mail choices.
type NotifyPrefs struct {
	UserID       int64
	Email        string
	Digest       string // off, daily or weekly
	KEVImmediate bool
	LastDigestAt time.Time
	UpdatedAt    time.Time
}

// MailRecipient is a person with mail preferences, with the organization they belong to.
type MailRecipient struct {
	NotifyPrefs
	OrganizationID int64
	Username       string
}

// Mail is one message queued for one person, once per key.
type Mail struct {
	ID            int64
	UserID        int64
	Key           string
	To            string
	Subject       string
	Body          string
	Status        string // pending, sent or failed
	Attempts      int
	NextAttemptAt time.Time
	LastError     string
	CreatedAt     time.Time
}

// NotifyReader reads webhooks, deliveries, the outbox and mail preferences.
type NotifyReader interface {
	Webhooks(ctx context.Context, orgID int64) ([]Webhook, error)
	Webhook(ctx context.Context, orgID, id int64) (Webhook, error)
	// Deliveries lists the newest deliveries of a webhook first, at most limit.
	Deliveries(ctx context.Context, webhookID int64, limit int) ([]WebhookDelivery, error)
	DueDeliveries(ctx context.Context, now time.Time, limit int) ([]WebhookDelivery, error)
	// WebhookByID finds a webhook in any organization (the dispatcher).
	WebhookByID(ctx context.Context, id int64) (Webhook, error)
	NotifyPrefs(ctx context.Context, userID int64) (NotifyPrefs, error)
	MailRecipients(ctx context.Context) ([]MailRecipient, error)
	DueMails(ctx context.Context, now time.Time, limit int) ([]Mail, error)
	// EventsSince lists the organization's events recorded at or after since, oldest first.
	EventsSince(ctx context.Context, orgID int64, since time.Time, limit int) ([]NotifyEvent, error)
	// NewFindings lists findings (CVEs of products installed on a host now) not yet announced, at most limit; NoticeID is 0.
	NewFindings(ctx context.Context, limit int) ([]FindingNotice, error)
	// GoneFindings lists announced findings that no longer exist, at most limit.
	GoneFindings(ctx context.Context, limit int) ([]FindingNotice, error)
	// DueAssignments lists open assignments due before soon.
	DueAssignments(ctx context.Context, soon time.Time) ([]Assignment, error)
	// SilentAssets lists hosts not seen since before.
	SilentAssets(ctx context.Context, before time.Time) ([]Asset, error)
}

// NotifyWriter changes webhooks, the outbox, deliveries and mails.
type NotifyWriter interface {
	CreateWebhook(ctx context.Context, w Webhook) (int64, error)
	UpdateWebhook(ctx context.Context, w Webhook) error
	DeleteWebhook(ctx context.Context, orgID, id int64) error
	// AddEvent records e unless its key exists: (id, true) when added, (0, false) when known.
	AddEvent(ctx context.Context, e NotifyEvent) (int64, bool, error)
	AddDelivery(ctx context.Context, d WebhookDelivery) (int64, error)
	SaveDeliveryAttempt(ctx context.Context, d WebhookDelivery) error
	// PostponeDeliveries moves the webhook's pending deliveries due before until to until.
	PostponeDeliveries(ctx context.Context, webhookID int64, until time.Time) error
	// MarkAnnounced records findings as announced and returns their notice ids, in order.
	MarkAnnounced(ctx context.Context, fs []FindingNotice) ([]int64, error)
	// ForgetAnnounced removes the announcements of resolved findings.
	ForgetAnnounced(ctx context.Context, noticeIDs []int64) error
	SaveNotifyPrefs(ctx context.Context, p NotifyPrefs) error
	SetLastDigest(ctx context.Context, userID int64, at time.Time) error
	// AddMail queues m unless (user, key) exists; false when it did.
	AddMail(ctx context.Context, m Mail) (bool, error)
	SaveMailAttempt(ctx context.Context, m Mail) error
}

package notify

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Sender posts one webhook delivery (web's client): the HTTP status, or an error when no
// answer came. It refuses targets the options refuse, at dial time.
type Sender interface {
	Post(ctx context.Context, url string, header map[string]string, body []byte) (int, error)
}

// Mailer sends one plain-text mail (web's SMTP client).
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// Service owns webhooks, preferences, the outbox and its delivery.
type Service struct {
	store  appliance.Store
	opts   Options
	sender Sender
	mailer Mailer // nil: mail off
	log    *slog.Logger
	now    func() time.Time
	wake   chan struct{}
}

// NewService builds the service; mailer may be nil (no SMTP server configured).
func NewService(store appliance.Store, opts Options, sender Sender, mailer Mailer, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, opts: opts, sender: sender, mailer: mailer, log: log, now: time.Now,
		wake: make(chan struct{}, 1)}
}

// SetClock replaces the clock (tests).
func (s *Service) SetClock(now func() time.Time) { s.now = now }

// FindingsChanged implements appliance.Notifier: it wakes the scanner, which then finds
// what is new. Many calls in a row make one scan.
func (s *Service) FindingsChanged(context.Context) {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// WebhookInput is a webhook as a person writes it; nil fields keep their value on update.
type WebhookInput struct {
	Name        *string
	URL         *string
	Format      *string
	Events      *[]string
	MinSeverity *string
	MinScore    *float64
	Enabled     *bool
}

func requireAdmin(actor appliance.User) error {
	if actor.Role != appliance.RoleOrgAdmin {
		return appliance.Forbidden("only organization admins manage webhooks")
	}
	return nil
}

// apply writes in onto w and checks the result.
func (s *Service) apply(w *appliance.Webhook, in WebhookInput) error {
	set(&w.Name, in.Name)
	set(&w.URL, in.URL)
	set(&w.Format, in.Format)
	set(&w.Events, in.Events)
	set(&w.MinSeverity, in.MinSeverity)
	set(&w.MinScore, in.MinScore)
	set(&w.Enabled, in.Enabled)
	w.Name, w.MinSeverity = strings.TrimSpace(w.Name), strings.ToLower(w.MinSeverity)
	if len(w.Name) > 200 {
		return appliance.Invalid("name", "max_length", "name must have at most 200 characters")
	}
	if len(w.URL) > 2000 {
		return appliance.Invalid("url", "max_length", "url must have at most 2000 characters")
	}
	if err := s.opts.CheckURL(w.URL); err != nil {
		return err
	}
	if w.Format == "" {
		w.Format = FormatJSON
	}
	if !slices.Contains([]string{FormatJSON, FormatSlack, FormatTeams}, w.Format) {
		return appliance.Invalid("format", "enum", "format must be json, slack or teams")
	}
	if len(w.Events) == 0 {
		return appliance.Invalid("events", "required", "events must name at least one event type")
	}
	for _, e := range w.Events {
		if !slices.Contains(EventTypes, e) {
			return appliance.Invalid("events", "enum", "unknown event type %q (one of %s)", e, strings.Join(EventTypes, ", "))
		}
	}
	slices.Sort(w.Events)
	w.Events = slices.Compact(w.Events)
	if !ValidSeverity(w.MinSeverity) {
		return appliance.Invalid("min_severity", "enum", "min_severity must be low, medium, high or critical")
	}
	if w.MinScore < 0 || w.MinScore > 10 {
		return appliance.Invalid("min_score", "range", "min_score must be between 0 and 10")
	}
	return nil
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// CreateWebhook adds a webhook to the actor's organization; the returned Secret is shown
// to the client this once.
func (s *Service) CreateWebhook(ctx context.Context, actor appliance.User, in WebhookInput) (appliance.Webhook, error) {
	if err := requireAdmin(actor); err != nil {
		return appliance.Webhook{}, err
	}
	if in.URL == nil {
		return appliance.Webhook{}, appliance.Invalid("url", "required", "url is required")
	}
	now := s.now().UTC()
	w := appliance.Webhook{OrganizationID: actor.OrganizationID, Enabled: true, Secret: newSecret(), CreatedAt: now, UpdatedAt: now}
	if err := s.apply(&w, in); err != nil {
		return appliance.Webhook{}, err
	}
	err := s.store.InTx(ctx, func(tx appliance.Tx) error {
		var err error
		w.ID, err = tx.CreateWebhook(ctx, w)
		return err
	})
	return w, err
}

// Webhooks lists the organization's webhooks (admins only).
func (s *Service) Webhooks(ctx context.Context, actor appliance.User) ([]appliance.Webhook, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, err
	}
	return s.store.Webhooks(ctx, actor.OrganizationID)
}

// Webhook reads one webhook of the actor's organization.
func (s *Service) Webhook(ctx context.Context, actor appliance.User, id int64) (appliance.Webhook, error) {
	if err := requireAdmin(actor); err != nil {
		return appliance.Webhook{}, err
	}
	return webhookErr(s.store.Webhook(ctx, actor.OrganizationID, id))
}

func webhookErr[T any](v T, err error) (T, error) {
	if errors.Is(err, appliance.ErrNotFound) {
		return v, appliance.NotFound("webhook not found")
	}
	return v, err
}

// UpdateWebhook changes the fields in gives.
func (s *Service) UpdateWebhook(ctx context.Context, actor appliance.User, id int64, in WebhookInput) (appliance.Webhook, error) {
	if err := requireAdmin(actor); err != nil {
		return appliance.Webhook{}, err
	}
	var w appliance.Webhook
	err := s.store.InTx(ctx, func(tx appliance.Tx) error {
		var err error
		if w, err = webhookErr(tx.Webhook(ctx, actor.OrganizationID, id)); err != nil {
			return err
		}
		if err := s.apply(&w, in); err != nil {
			return err
		}
		w.UpdatedAt = s.now().UTC()
		return tx.UpdateWebhook(ctx, w)
	})
	return w, err
}

// DeleteWebhook removes a webhook and its delivery log.
func (s *Service) DeleteWebhook(ctx context.Context, actor appliance.User, id int64) error {
	if err := requireAdmin(actor); err != nil {
		return err
	}
	return s.store.InTx(ctx, func(tx appliance.Tx) error {
		_, err := webhookErr(struct{}{}, tx.DeleteWebhook(ctx, actor.OrganizationID, id))
		return err
	})
}

// Deliveries is the delivery log of a webhook, newest first (the last 100).
func (s *Service) Deliveries(ctx context.Context, actor appliance.User, id int64) ([]appliance.WebhookDelivery, error) {
	if _, err := s.Webhook(ctx, actor, id); err != nil {
		return nil, err
	}
	return s.store.Deliveries(ctx, id, 100)
}

// Test sends a ping to the webhook now, outside the outbox, and returns its delivery.
func (s *Service) Test(ctx context.Context, actor appliance.User, id int64) (appliance.WebhookDelivery, error) {
	w, err := s.Webhook(ctx, actor, id)
	if err != nil {
		return appliance.WebhookDelivery{}, err
	}
	now := s.now().UTC()
	d := appliance.WebhookDelivery{WebhookID: w.ID, DeliveryID: newDeliveryID(), EventType: EventPing,
		Status: appliance.DeliveryPending, NextAttemptAt: now, CreatedAt: now}
	data := Data{Message: "Test delivery from vulnkeeper"}
	if d.Body, err = Body(w.Format, d.DeliveryID, EventPing, w.OrganizationID, now, data); err != nil {
		return d, err
	}
	err = s.store.InTx(ctx, func(tx appliance.Tx) error {
		d.ID, err = tx.AddDelivery(ctx, d)
		return err
	})
	if err != nil {
		return d, err
	}
	return s.attempt(ctx, w, d)
}

// MailEnabled tells whether mail can be sent (an SMTP server is configured).
func (s *Service) MailEnabled() bool { return s.mailer != nil }

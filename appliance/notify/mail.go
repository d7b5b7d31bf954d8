package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Digest periods.
const (
	DigestOff    = "off"
	DigestDaily  = "daily"
	DigestWeekly = "weekly"
)

var digestPeriod = map[string]time.Duration{DigestDaily: 24 * time.Hour, DigestWeekly: 7 * 24 * time.Hour}

// PrefsInput are a person's mail choices; nil fields keep their value.
type PrefsInput struct {
	Email        *string
	Digest       *string
	KEVImmediate *bool
}

// Prefs reads the actor's mail choices.
func (s *Service) Prefs(ctx context.Context, actor appliance.User) (appliance.NotifyPrefs, error) {
	return s.store.NotifyPrefs(ctx, actor.ID)
}

// SavePrefs changes the actor's mail choices; opting in needs an email address.
func (s *Service) SavePrefs(ctx context.Context, actor appliance.User, in PrefsInput) (appliance.NotifyPrefs, error) {
	var p appliance.NotifyPrefs
	err := s.store.InTx(ctx, func(tx appliance.Tx) error {
		var err error
		if p, err = tx.NotifyPrefs(ctx, actor.ID); err != nil {
			return err
		}
		set(&p.Email, in.Email)
		set(&p.Digest, in.Digest)
		set(&p.KEVImmediate, in.KEVImmediate)
		if err := checkPrefs(&p); err != nil {
			return err
		}
		p.UpdatedAt = s.now().UTC()
		return tx.SaveNotifyPrefs(ctx, p)
	})
	return p, err
}

func checkPrefs(p *appliance.NotifyPrefs) error {
	p.Email = strings.TrimSpace(p.Email)
	if p.Email != "" {
		a, err := mail.ParseAddress(p.Email)
		if err != nil || a.Address != p.Email || len(p.Email) > 254 {
			return appliance.Invalid("email", "format", "email must be a plain mail address (name@example.com)")
		}
	}
	if _, ok := digestPeriod[p.Digest]; !ok && p.Digest != DigestOff {
		return appliance.Invalid("digest", "enum", "digest must be off, daily or weekly")
	}
	if p.Email == "" && (p.Digest != DigestOff || p.KEVImmediate) {
		return appliance.Invalid("email", "required", "email is required to receive mail")
	}
	return nil
}

// queueKEVMail queues, for each person of org who asked for it, one mail listing the event's
// new KEV findings on products at least KEVMailCriticality critical.
func (s *Service) queueKEVMail(ctx context.Context, tx appliance.Tx, org int64, key string, d Data) error {
	if s.mailer == nil {
		return nil
	}
	var lines []string
	for _, f := range d.Findings {
		if f.KEV && f.Criticality >= s.opts.KEVMailCriticality {
			lines = append(lines, findingLine(EventFindingNew, f))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	people, err := tx.MailRecipients(ctx)
	if err != nil {
		return err
	}
	subject := fmt.Sprintf("[vulnkeeper] %d actively exploited vulnerabilities (CISA KEV) on critical products", len(lines))
	body := "Found just now, on products marked critical:\n\n" + strings.Join(lines, "\n") + "\n"
	for _, p := range people {
		if p.OrganizationID != org || !p.KEVImmediate {
			continue
		}
		if _, err := tx.AddMail(ctx, s.newMail(p, "kev:"+key, subject, body)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) newMail(p appliance.MailRecipient, key, subject, body string) appliance.Mail {
	now := s.now().UTC()
	return appliance.Mail{UserID: p.UserID, Key: key, To: p.Email, Subject: subject, Body: body, NextAttemptAt: now, CreatedAt: now}
}

// queueDigests queues the digest of each person whose period has passed since the last one
// (or since they opted in): the organization's events of the period. The key names the
// period's end, so a digest is queued once; a period without events sends nothing.
func (s *Service) queueDigests(ctx context.Context) error {
	if s.mailer == nil {
		return nil
	}
	people, err := s.store.MailRecipients(ctx)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	for _, p := range people {
		period, ok := digestPeriod[p.Digest]
		since := p.LastDigestAt
		if since.IsZero() {
			since = p.UpdatedAt
		}
		if !ok || now.Sub(since) < period {
			continue
		}
		if err := s.queueDigest(ctx, p, since, now); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) queueDigest(ctx context.Context, p appliance.MailRecipient, since, now time.Time) error {
	events, err := s.store.EventsSince(ctx, p.OrganizationID, since, 10000)
	if err != nil {
		return err
	}
	return s.store.InTx(ctx, func(tx appliance.Tx) error {
		if len(events) > 0 {
			subject, body := digestText(p.Digest, since, events)
			m := s.newMail(p, fmt.Sprintf("digest:%s:%s", p.Digest, now.Format(time.RFC3339)), subject, body)
			if _, err := tx.AddMail(ctx, m); err != nil {
				return err
			}
		}
		return tx.SetLastDigest(ctx, p.UserID, now)
	})
}

// digestText summarises events: counts per type, then one line each (the first 200).
func digestText(period string, since time.Time, events []appliance.NotifyEvent) (string, string) {
	counts := map[string]int{}
	var lines []string
	for _, e := range events {
		var d Data
		if json.Unmarshal(e.Data, &d) != nil {
			continue
		}
		n := 1
		if d.Digest {
			n = d.Count
		}
		counts[e.Type] += n
		if len(lines) < 200 {
			lines = append(lines, "- "+Summary(e.Type, d))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "What happened since %s:\n\n", since.Format(time.RFC1123))
	for _, t := range EventTypes {
		if counts[t] > 0 {
			fmt.Fprintf(&b, "%-22s %d\n", t, counts[t])
		}
	}
	b.WriteString("\n" + strings.Join(lines, "\n") + "\n")
	return fmt.Sprintf("[vulnkeeper] %s digest: %d new findings, %d resolved", period, counts[EventFindingNew],
		counts[EventFindingResolved]), b.String()
}

// sendDueMails sends the due mails, with the same back-off as webhooks.
func (s *Service) sendDueMails(ctx context.Context) error {
	if s.mailer == nil {
		return nil
	}
	ms, err := s.store.DueMails(ctx, s.now().UTC(), deliverBatch)
	if err != nil {
		return fmt.Errorf("due mails: %w", err)
	}
	for _, m := range ms {
		err := s.mailer.Send(ctx, m.To, m.Subject, m.Body)
		now := s.now().UTC()
		m.Attempts++
		m.Status, m.LastError, m.NextAttemptAt = "sent", "", now
		if err != nil {
			s.log.Info("sending a mail failed", slog.Int64("mail", m.ID), slog.Any("error", err))
			m.Status, m.LastError, m.NextAttemptAt = "pending", "not sent", now.Add(backoff(m.Attempts))
			if m.Attempts >= s.opts.MaxAttempts {
				m.Status = "failed"
			}
		}
		wctx := context.WithoutCancel(ctx)
		if err := s.store.InTx(wctx, func(tx appliance.Tx) error { return tx.SaveMailAttempt(wctx, m) }); err != nil {
			return errors.Join(err, ctx.Err())
		}
	}
	return nil
}

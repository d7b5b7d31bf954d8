package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// deliverBatch is how many due deliveries (and mails) one run sends.
const deliverBatch = 100

// deliverDue sends the due webhook deliveries and mails.
func (s *Service) deliverDue(ctx context.Context) error {
	ds, err := s.store.DueDeliveries(ctx, s.now().UTC(), deliverBatch)
	if err != nil {
		return fmt.Errorf("due deliveries: %w", err)
	}
	for _, d := range ds {
		w, err := s.store.WebhookByID(ctx, d.WebhookID)
		if errors.Is(err, appliance.ErrNotFound) {
			continue // deleted meanwhile, its deliveries with it
		}
		if err != nil {
			return err
		}
		if _, err := s.attempt(ctx, w, d); err != nil {
			return err
		}
	}
	return s.sendDueMails(ctx)
}

// attempt posts d once and records the outcome: delivered on a 2xx answer; otherwise
// pending again after a back-off, or failed after MaxAttempts.
func (s *Service) attempt(ctx context.Context, w appliance.Webhook, d appliance.WebhookDelivery) (appliance.WebhookDelivery, error) {
	header := map[string]string{"Content-Type": "application/json", HeaderDelivery: d.DeliveryID, HeaderEvent: d.EventType,
		HeaderSignature: Sign(w.Secret, d.Body)}
	status, err := s.sender.Post(ctx, w.URL, header, d.Body)
	if err != nil {
		s.log.Info("webhook delivery failed", slog.Int64("webhook", w.ID), slog.String("delivery", d.DeliveryID), slog.Any("error", err))
	}
	now := s.now().UTC()
	d.Attempts++
	d.LastStatusCode, d.LastError = status, ""
	switch {
	case err == nil && status >= 200 && status < 300:
		d.Status, d.DeliveredAt, d.NextAttemptAt = appliance.DeliveryDelivered, now, now
	default:
		d.LastError = failure(status, err)
		d.Status, d.NextAttemptAt = appliance.DeliveryPending, now.Add(backoff(d.Attempts))
		if d.Attempts >= s.opts.MaxAttempts {
			d.Status = appliance.DeliveryFailed
		}
	}
	wctx := context.WithoutCancel(ctx) // the attempt happened: record it even when ctx ends
	err = s.store.InTx(wctx, func(tx appliance.Tx) error { return tx.SaveDeliveryAttempt(wctx, d) })
	return d, err
}

// failure is what the delivery log says about a failed attempt: the HTTP status, or the
// kind of transport error (validation text of a refused target, or a short generic phrase).
func failure(status int, err error) string {
	if err == nil {
		return fmt.Sprintf("HTTP %d", status)
	}
	var ve *appliance.ValidationError
	if errors.As(err, &ve) {
		return ve.Message
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return "no answer (connection failed)"
}

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
	down := map[int64]bool{} // webhooks that failed in this round
	for _, d := range ds {
		if down[d.WebhookID] {
			continue // postponed with the failed one
		}
		w, err := s.store.WebhookByID(ctx, d.WebhookID)
		if errors.Is(err, appliance.ErrNotFound) {
			continue // deleted meanwhile, its deliveries with it
		}
		if err != nil {
			return err
		}
		if !w.Enabled {
			d.Status, d.LastError = appliance.DeliveryFailed, "webhook disabled"
			if err := s.store.InTx(ctx, func(tx appliance.Tx) error { return tx.SaveDeliveryAttempt(ctx, d) }); err != nil {
				return err
			}
			continue
		}
		d, err = s.attempt(ctx, w, d)
		if err != nil {
			return err
		}
		down[w.ID] = d.Status != appliance.DeliveryDelivered
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
	err = s.store.InTx(wctx, func(tx appliance.Tx) error {
		if err := tx.SaveDeliveryAttempt(wctx, d); err != nil || d.Status != appliance.DeliveryPending {
			return err
		}
		// A target that failed now is not tried again for its other deliveries before this
		// one's next attempt: a dead endpoint cannot hold up the others' deliveries.
		return tx.PostponeDeliveries(wctx, w.ID, d.NextAttemptAt)
	})
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

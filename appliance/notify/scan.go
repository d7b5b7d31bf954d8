package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// scanBatch is how many new or gone findings one scan takes.
const scanBatch = 5000

// Run scans for events and delivers them until ctx ends: findings and due deliveries at
// once when woken by FindingsChanged and otherwise every Tick; the events that come with
// time (and digests) at most once a minute.
func (s *Service) Run(ctx context.Context) {
	tick := s.opts.Tick
	if tick <= 0 {
		tick = 5 * time.Second
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	var timed time.Time
	changed := true
	for {
		withTime := time.Since(timed) >= time.Minute
		if withTime {
			timed = time.Now()
		}
		// Findings are read again only after a change was signalled, or once a minute (a change
		// another process made); deliveries due for a retry are sent every tick.
		more, err := s.run(ctx, changed || withTime, withTime)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("notifications failed", slog.Any("error", err))
		}
		changed = more // a full batch: the rest is read at the next tick
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
			changed = true
		}
	}
}

// RunOnce records the events that happened since the last run, queues their deliveries and
// mails, and sends what is due.
func (s *Service) RunOnce(ctx context.Context) error {
	_, err := s.run(ctx, true, true)
	return err
}

// run scans the findings when asked (more: a scan read a full batch and left the rest), the
// timed events when withTime, and sends the deliveries due.
func (s *Service) run(ctx context.Context, findings, withTime bool) (more bool, err error) {
	if findings {
		for _, typ := range []string{EventFindingNew, EventFindingResolved} {
			full, err := s.scanFindings(ctx, typ)
			if err != nil {
				return false, fmt.Errorf("%s: %w", typ, err)
			}
			more = more || full
		}
	}
	if withTime {
		if err := s.scanTimed(ctx); err != nil {
			return more, err
		}
		if err := s.queueDigests(ctx); err != nil {
			return more, fmt.Errorf("digests: %w", err)
		}
	}
	return more, s.deliverDue(ctx)
}

// scanFindings records new (or gone) findings as events, one a finding, or one digest per
// organization when more than FloodThreshold changed at once, in one transaction with the
// record of what was announced; full says the batch was full (more may wait).
func (s *Service) scanFindings(ctx context.Context, typ string) (full bool, err error) {
	list := s.store.NewFindings
	if typ == EventFindingResolved {
		list = s.store.GoneFindings
	}
	fs, err := list(ctx, scanBatch)
	if err != nil || len(fs) == 0 {
		return false, err
	}
	byOrg := map[int64][]appliance.FindingNotice{}
	for _, f := range fs {
		byOrg[f.OrganizationID] = append(byOrg[f.OrganizationID], f)
	}
	return len(fs) == scanBatch, s.store.InTx(ctx, func(tx appliance.Tx) error {
		for org, list := range byOrg {
			if err := s.recordFindings(ctx, tx, org, typ, list); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *Service) recordFindings(ctx context.Context, tx appliance.Tx, org int64, typ string, fs []appliance.FindingNotice) error {
	if typ == EventFindingNew {
		ids, err := tx.MarkAnnounced(ctx, fs)
		if err != nil {
			return err
		}
		for i := range fs {
			fs[i].NoticeID = ids[i]
		}
	} else {
		ids := make([]int64, len(fs))
		for i, f := range fs {
			ids[i] = f.NoticeID
		}
		if err := tx.ForgetAnnounced(ctx, ids); err != nil {
			return err
		}
	}
	if len(fs) > s.opts.FloodThreshold {
		d := Data{Digest: true, Count: len(fs)}
		for _, f := range fs {
			d.Findings = append(d.Findings, toFinding(f))
		}
		return s.record(ctx, tx, org, fmt.Sprintf("%s.digest:%d", typ, fs[0].NoticeID), typ, d)
	}
	for _, f := range fs {
		d := Data{Findings: []Finding{toFinding(f)}}
		if err := s.record(ctx, tx, org, fmt.Sprintf("%s:%d", typ, f.NoticeID), typ, d); err != nil {
			return err
		}
	}
	return nil
}

// record adds an event to the outbox under key (nothing when the key is known), with a
// pending delivery for each webhook that hears it and the immediate mails it calls for.
func (s *Service) record(ctx context.Context, tx appliance.Tx, org int64, key, typ string, d Data) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	id, added, err := tx.AddEvent(ctx, appliance.NotifyEvent{OrganizationID: org, Key: key, Type: typ, Data: raw, CreatedAt: now})
	if err != nil || !added {
		return err
	}
	hooks, err := tx.Webhooks(ctx, org)
	if err != nil {
		return err
	}
	for _, w := range hooks {
		wd, ok := forWebhook(w, typ, d)
		if !ok {
			continue
		}
		dl := appliance.WebhookDelivery{WebhookID: w.ID, EventID: id, DeliveryID: newDeliveryID(), EventType: typ,
			Status: appliance.DeliveryPending, NextAttemptAt: now, CreatedAt: now}
		if dl.Body, err = Body(w.Format, dl.DeliveryID, typ, org, now, wd); err != nil {
			return err
		}
		if _, err := tx.AddDelivery(ctx, dl); err != nil {
			return err
		}
	}
	if typ == EventFindingNew {
		return s.queueKEVMail(ctx, tx, org, key, d)
	}
	return nil
}

// scanTimed records the events that come with time: assignments due soon or overdue,
// silent hosts and stale feeds. Each key names the state it is about (the due date, the
// last-seen time, the last success), so a new episode is a new event and a repeated scan is not.
func (s *Service) scanTimed(ctx context.Context) error {
	now := s.now().UTC()
	due, err := s.store.DueAssignments(ctx, now.Add(s.opts.DueSoon))
	if err != nil {
		return fmt.Errorf("due assignments: %w", err)
	}
	silent := []appliance.Asset{}
	if s.opts.HostSilentAfter > 0 {
		if silent, err = s.store.SilentAssets(ctx, now.Add(-s.opts.HostSilentAfter)); err != nil {
			return fmt.Errorf("silent hosts: %w", err)
		}
	}
	feeds, err := s.store.FeedStates(ctx)
	if err != nil {
		return fmt.Errorf("feed states: %w", err)
	}
	return s.store.InTx(ctx, func(tx appliance.Tx) error {
		for _, a := range due {
			if err := s.recordDue(ctx, tx, now, a); err != nil {
				return err
			}
		}
		for _, a := range silent {
			host := &HostRef{ID: a.ID, Hostname: a.Hostname, LastSeenAt: a.LastSeenAt}
			key := fmt.Sprintf("%s:%d:%s", EventHostSilent, a.ID, a.LastSeenAt.Format(time.RFC3339Nano))
			if err := s.record(ctx, tx, a.OrganizationID, key, EventHostSilent, Data{Host: host}); err != nil {
				return err
			}
		}
		return s.recordStaleFeeds(ctx, tx, now, feeds)
	})
}

func (s *Service) recordDue(ctx context.Context, tx appliance.Tx, now time.Time, a appliance.Assignment) error {
	typ := EventDueSoon
	if !a.DueDate.After(now.Truncate(24 * time.Hour)) {
		typ = EventOverdue // the due date is today or past: overdue from its start
	}
	due := a.DueDate.Format(time.DateOnly)
	ref := &AssignmentRef{ID: a.ID, CVEID: a.CVEID, Product: a.ProductName, Priority: a.Priority,
		Status: string(a.Status), DueDate: due, Assignee: a.AssignedToName}
	return s.record(ctx, tx, a.OrganizationID, fmt.Sprintf("%s:%d:%s", typ, a.ID, due), typ, Data{Assignment: ref})
}

// recordStaleFeeds tells each organization once per stale episode of a source.
func (s *Service) recordStaleFeeds(ctx context.Context, tx appliance.Tx, now time.Time, feeds []appliance.FeedState) error {
	if s.opts.StaleAfter <= 0 {
		return nil
	}
	var orgs []appliance.Organization
	for _, f := range feeds {
		if !f.LastSuccess.IsZero() && now.Sub(f.LastSuccess) <= s.opts.StaleAfter {
			continue
		}
		if orgs == nil {
			var err error
			if orgs, err = tx.Organizations(ctx); err != nil {
				return err
			}
		}
		ref := &FeedRef{Source: f.Source}
		if !f.LastSuccess.IsZero() {
			t := f.LastSuccess
			ref.LastSuccess = &t
		}
		for _, o := range orgs {
			key := fmt.Sprintf("%s:%d:%s:%s", EventFeedStale, o.ID, f.Source, f.LastSuccess.Format(time.RFC3339Nano))
			if err := s.record(ctx, tx, o.ID, key, EventFeedStale, Data{Feed: ref}); err != nil {
				return err
			}
		}
	}
	return nil
}

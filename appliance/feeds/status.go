package feeds

import (
	"context"
	"log/slog"
	"math"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Status is a source's state as operators see it.
type Status struct {
	appliance.FeedState
	// Age is the time since the last success; +Inf seconds (math.MaxInt64) when it never succeeded.
	Age time.Duration
	// Stale: the source is synced here (it has a state) and its last success is older than
	// feeds.stale_after, or it never succeeded.
	Stale bool
}

// Never is the Age of a source that never succeeded.
const Never = time.Duration(math.MaxInt64)

// Status lists the sources that were ever synced, oldest data first is up to the caller.
func (s *Syncer) Status(ctx context.Context) ([]Status, error) {
	states, err := s.store.FeedStates(ctx)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	out := make([]Status, 0, len(states))
	for _, st := range states {
		v := Status{FeedState: st, Age: Never, Stale: true}
		if !st.LastSuccess.IsZero() {
			v.Age = now.Sub(st.LastSuccess)
			v.Stale = s.opts.StaleAfter > 0 && v.Age > s.opts.StaleAfter
		}
		out = append(out, v)
	}
	return out, nil
}

// Run is serve's scheduler: after Pacing.StartDelay, and then every minute, it syncs each
// source whose last attempt is older than SyncInterval (a failed one after
// Pacing.RetryFailed). onChange runs after a sync wrote CVE or KEV data. SyncInterval 0: off.
func (s *Syncer) Run(ctx context.Context, onChange func(context.Context)) {
	if s.opts.SyncInterval <= 0 {
		return
	}
	wait := s.Pacing.StartDelay
	for {
		if appliance.Sleep(ctx, wait) != nil {
			return
		}
		wait = min(time.Minute, s.opts.SyncInterval)
		due, err := s.due(ctx)
		if err != nil {
			s.log.Warn("reading the feed state failed", slog.Any("error", err))
			continue
		}
		if len(due) == 0 {
			continue
		}
		results, _ := s.Sync(ctx, SyncOptions{Sources: due})
		if changedMatches(results) && onChange != nil {
			onChange(ctx)
		}
	}
}

// due lists the sources to sync now.
func (s *Syncer) due(ctx context.Context) ([]string, error) {
	now := s.Now()
	var out []string
	for _, src := range s.opts.enabled() {
		st, err := s.store.FeedState(ctx, src)
		if err != nil {
			return nil, err
		}
		after := s.opts.SyncInterval
		if st.LastError != "" {
			after = min(after, s.Pacing.RetryFailed)
		}
		if st.LastAttempt.IsZero() || now.Sub(st.LastAttempt) >= after {
			out = append(out, src)
		}
	}
	return out, nil
}

// changedMatches: NVD or KEV records were written (EPSS does not change matches).
func changedMatches(results []Result) bool {
	for _, r := range results {
		if r.Records > 0 && r.Source != SourceEPSS {
			return true
		}
	}
	return false
}

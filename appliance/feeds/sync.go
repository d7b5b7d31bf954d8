package feeds

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

// Syncer pulls the sources and records their state.
type Syncer struct {
	store  appliance.Store
	imp    *inventory.Importer
	fetch  Fetcher
	opts   Options
	log    *slog.Logger
	Pacing Pacing
	Now    func() time.Time
	// Epoch is where a first NVD sync starts when no --since is given: before any CVE's
	// lastModified.
	Epoch time.Time
	mu    sync.Mutex // one sync at a time (the pacers are its state)
	nvd   *pacer
	other *pacer
}

// NewSyncer builds a syncer over the store, fetching through f.
func NewSyncer(store appliance.Store, f Fetcher, opts Options, log *slog.Logger) *Syncer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Syncer{store: store, imp: inventory.NewImporter(store), fetch: f, opts: opts, log: log,
		Pacing: DefaultPacing(), Now: time.Now, Epoch: time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// Result is what one source's sync did.
type Result struct {
	Source  string
	Records int
	Took    time.Duration
	Err     error
}

// SyncOptions narrow one sync: the sources (all when empty) and where a first NVD sync starts.
type SyncOptions struct {
	Sources []string
	Since   time.Time
}

// Sync runs the sources in turn; a failing source is recorded and does not stop the others.
// The error joins the failures.
func (s *Syncer) Sync(ctx context.Context, o SyncOptions) ([]Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sources := o.Sources
	if len(sources) == 0 {
		sources = s.opts.enabled()
	}
	var results []Result
	var errs []error
	for _, src := range sources {
		r := s.syncSource(ctx, src, o.Since)
		results = append(results, r)
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", src, r.Err))
		}
	}
	return results, errors.Join(errs...)
}

// syncSource runs one source and records its outcome in its state.
func (s *Syncer) syncSource(ctx context.Context, source string, since time.Time) Result {
	start := s.Now().UTC()
	var n int
	var err error
	switch source {
	case SourceNVD:
		n, err = s.syncNVD(ctx, start, since)
	case SourceKEV:
		n, err = s.syncDocument(ctx, source, s.opts.KEVURL, "nvd")
	case SourceEPSS:
		n, err = s.syncDocument(ctx, source, s.opts.EPSSURL, "epss")
	case SourceOSV:
		if len(s.opts.OSVEcosystems) == 0 {
			return Result{Source: source, Err: appliance.Invalid("source", "config", "no OSV ecosystem is enabled: set feeds.osv_ecosystems")}
		}
		n, err = s.syncOSV(ctx)
	default:
		return Result{Source: source, Err: appliance.Invalid("source", "enum", "unknown source %q: nvd, kev, epss or osv", source)}
	}
	if rerr := s.record(context.WithoutCancel(ctx), source, start, n, err); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		s.log.Warn("feed sync failed", slog.String("source", source), slog.Any("error", err))
	} else {
		s.log.Info("feed synced", slog.String("source", source), slog.Int("records", n), slog.Duration("took", s.Now().Sub(start)))
	}
	return Result{Source: source, Records: n, Took: s.Now().Sub(start), Err: err}
}

// record stores the outcome, keeping the cursor the sync itself advanced.
func (s *Syncer) record(ctx context.Context, source string, at time.Time, n int, syncErr error) error {
	return s.store.InTx(ctx, func(tx appliance.Tx) error {
		st, err := tx.FeedState(ctx, source)
		if err != nil {
			return err
		}
		st.LastAttempt = at
		if syncErr != nil {
			st.LastError = syncErr.Error()
		} else {
			st.LastSuccess, st.Records, st.LastError = at, n, ""
		}
		return tx.SaveFeedState(ctx, st)
	})
}

// syncDocument fetches one whole document (KEV JSON, EPSS CSV) and imports it; format is
// what the importer must recognise it as.
func (s *Syncer) syncDocument(ctx context.Context, source, rawURL, format string) (int, error) {
	if err := CheckURL(rawURL, s.opts.AllowHTTP); err != nil {
		return 0, err
	}
	body, err := s.get(ctx, s.otherPacer(), Request{URL: rawURL})
	if err != nil {
		return 0, err
	}
	st, err := s.imp.Import(ctx, source, bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return 0, err
	}
	switch {
	case st.Format != format:
		return 0, appliance.Invalid("feed", "format", "%s answered a %s document", rawURL, st.Format)
	case source == SourceKEV && st.CVEs > 0:
		return 0, appliance.Invalid("feed", "format", "%s answered a CVE feed, not the KEV catalogue", rawURL)
	case source == SourceKEV:
		return st.KEV, nil
	}
	return st.EPSS, nil
}

// syncOSV fetches each enabled ecosystem's all.zip and imports it as the files are; it
// returns the advisory entries read. An ecosystem that fails stops the sync: the ones before
// it stay imported, and the next sync fetches them all again (unchanged entries are no-ops).
func (s *Syncer) syncOSV(ctx context.Context) (int, error) {
	total := 0
	for _, eco := range s.opts.OSVEcosystems {
		rawURL := strings.TrimSuffix(s.opts.OSVURL, "/") + "/" + url.PathEscape(eco) + "/all.zip"
		if err := CheckURL(rawURL, s.opts.AllowHTTP); err != nil {
			return total, err
		}
		body, err := s.get(ctx, s.otherPacer(), Request{URL: rawURL})
		if err != nil {
			return total, fmt.Errorf("%s: %w", eco, err)
		}
		st, err := s.imp.Import(ctx, rawURL, bytes.NewReader(body), int64(len(body)))
		if err != nil {
			return total, fmt.Errorf("%s: %w", eco, err)
		}
		if st.Format != "osv-zip" {
			return total, appliance.Invalid("feed", "format", "%s answered a %s document, not an OSV all.zip", rawURL, st.Format)
		}
		total += st.Advisories
	}
	return total, nil
}

// get fetches with pacing, retrying what is worth retrying with a doubling back-off (or the
// server's Retry-After).
func (s *Syncer) get(ctx context.Context, p *pacer, req Request) ([]byte, error) {
	backoff := s.Pacing.Backoff
	for try := 0; ; try++ {
		if err := p.wait(ctx); err != nil {
			return nil, err
		}
		body, err := s.fetch.Fetch(ctx, req)
		if err == nil {
			return body, nil
		}
		if try >= s.Pacing.Retries || !retryable(err) || ctx.Err() != nil {
			return nil, err
		}
		wait := backoff
		var se *StatusError
		if errors.As(err, &se) && se.RetryAfter > wait {
			wait = min(se.RetryAfter, s.Pacing.MaxBackoff)
		}
		s.log.Info("feed request failed, retrying", slog.Any("error", err), slog.Duration("in", wait))
		if err := appliance.Sleep(ctx, wait); err != nil {
			return nil, err
		}
		backoff = min(2*backoff, s.Pacing.MaxBackoff)
	}
}

func (s *Syncer) nvdPacer() *pacer {
	if s.nvd == nil {
		limit := 5
		if s.opts.NVDAPIKey != "" {
			limit = 50
		}
		s.nvd = &pacer{limit: limit, window: s.Pacing.Window, now: time.Now}
	}
	return s.nvd
}

// otherPacer spaces the single-document sources like an anonymous NVD client would.
func (s *Syncer) otherPacer() *pacer {
	if s.other == nil {
		s.other = &pacer{limit: 5, window: s.Pacing.Window, now: time.Now}
	}
	return s.other
}

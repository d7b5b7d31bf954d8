package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
)

// A first NVD sync reads 120-day lastModified windows from the epoch to now, every page of
// each, through the real importer; the cursor ends at now and the key travels only as the
// apiKey header, never into the log.
func TestFeedSyncNVDWindowsPagesAndKey(t *testing.T) {
	w := newFeedWorld(t, 300)
	w.opts.NVDAPIKey = "secret-nvd-key-123"
	s := w.syncer(10 * time.Second)
	res, err := s.Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceNVD}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Records != len(w.nvd.records) {
		t.Errorf("records = %d, want %d", res[0].Records, len(w.nvd.records))
	}
	w.wantAllStored(t)
	calls := w.nvd.callList()
	windowEnd := s.Epoch
	windows := 0
	for i, c := range calls {
		if c.apiKey != w.opts.NVDAPIKey || c.per != 2000 {
			t.Fatalf("call %d: apiKey %q, resultsPerPage %d", i, c.apiKey, c.per)
		}
		if c.index == 0 {
			if !c.start.Equal(windowEnd) {
				t.Fatalf("call %d: window starts %s, want the previous end %s", i, c.start, windowEnd)
			}
			windowEnd, windows = c.end, windows+1
		}
	}
	if !windowEnd.Equal(w.now) || windows != 6 {
		t.Errorf("%d windows ending %s, want 6 ending at now %s", windows, windowEnd, w.now)
	}
	if len(calls) < windows+len(w.nvd.records)/300 {
		t.Errorf("%d calls: pages of 300 were not all read", len(calls))
	}
	st := w.state(t, feeds.SourceNVD)
	if st.Cursor != w.now.Format(time.RFC3339Nano) || !st.LastSuccess.Equal(w.now) || st.Records != len(w.nvd.records) || st.LastError != "" {
		t.Errorf("state = %+v", st.FeedState)
	}
	if strings.Contains(w.logs.String(), w.opts.NVDAPIKey) {
		t.Error("the API key reached the log")
	}
	// The next sync starts where this one ended: one empty window, nothing re-read.
	w.now = w.now.Add(time.Hour)
	before := len(w.nvd.callList())
	if _, err := s.Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceNVD}}); err != nil {
		t.Fatal(err)
	}
	if again := w.nvd.callList()[before:]; len(again) != 1 || !again[0].start.Equal(w.now.Add(-time.Hour)) {
		t.Errorf("incremental sync made %d calls (%+v), want one from the last cursor", len(again), again)
	}
}

// 503 in the middle of a window, a 403 rate-limit answer and a truncated body are retried
// after a back-off; the sync completes with nothing skipped.
func TestFeedSyncRetriesTransientFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(w http.ResponseWriter)
	}{
		{"503 mid-window", func(w http.ResponseWriter) { http.Error(w, "busy", http.StatusServiceUnavailable) }},
		{"403 rate limit", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "rate limit", http.StatusForbidden)
		}},
		{"truncated body", func(w http.ResponseWriter) { truncate(w) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newFeedWorld(t, 300)
			failed := 0
			w.nvd.hook = func(rw http.ResponseWriter, _ *http.Request, n int, c nvdCall) bool {
				if c.index > 0 && failed < 2 { // twice in a row, on the second page of the first full window
					failed++
					tc.fail(rw)
					return true
				}
				return false
			}
			if _, err := w.syncer(10*time.Second).Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceNVD}}); err != nil {
				t.Fatal(err)
			}
			if failed != 2 {
				t.Fatalf("the failure was injected %d times", failed)
			}
			w.wantAllStored(t)
		})
	}
}

// A server that never answers times out; after the retries the sync fails, the error is
// recorded and the cursor stays at the last completed window.
func TestFeedSyncServerNeverAnswers(t *testing.T) {
	w := newFeedWorld(t, 2000)
	w.nvd.hook = func(_ http.ResponseWriter, r *http.Request, n int, _ nvdCall) bool {
		if n < 2 {
			return false // the first two windows complete
		}
		<-r.Context().Done()
		return true
	}
	_, err := w.syncer(100*time.Millisecond).Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceNVD}})
	if err == nil || !strings.Contains(err.Error(), "Timeout") {
		t.Fatalf("err = %v, want a client timeout", err)
	}
	st := w.state(t, feeds.SourceNVD)
	calls := w.nvd.callList()
	if st.LastError == "" || !st.LastSuccess.IsZero() || st.Cursor != calls[1].end.Format(time.RFC3339Nano) {
		t.Errorf("state = %+v, want the error and the cursor at the end of window 2 (%s)", st.FeedState, calls[1].end)
	}
	if len(calls) != 2+4 { // the first try and 3 retries of window 3
		t.Errorf("%d calls, want 6", len(calls))
	}
}

// A sync that fails for good in its third window resumes there, and only there, next time.
func TestFeedSyncResumesAfterFailure(t *testing.T) {
	w := newFeedWorld(t, 200)
	var failFrom time.Time
	w.nvd.hook = func(rw http.ResponseWriter, _ *http.Request, _ int, c nvdCall) bool {
		if failFrom.IsZero() || c.start.Before(failFrom) {
			return false
		}
		http.Error(rw, "down", http.StatusInternalServerError)
		return true
	}
	s := w.syncer(10 * time.Second)
	failFrom = s.Epoch.Add(2 * 120 * 24 * time.Hour)
	if _, err := s.Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceNVD}}); err == nil {
		t.Fatal("the sync succeeded against a failing window")
	}
	st := w.state(t, feeds.SourceNVD)
	if st.Cursor != failFrom.Format(time.RFC3339Nano) || !strings.Contains(st.LastError, "500") {
		t.Fatalf("state = %+v, want the cursor at %s and the 500 recorded", st.FeedState, failFrom)
	}
	before := len(w.nvd.callList())
	w.nvd.mu.Lock()
	w.nvd.hook = nil
	w.nvd.mu.Unlock()
	// A new process (a restart) resumes from the stored cursor.
	if _, err := w.syncer(10*time.Second).Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceNVD}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range w.nvd.callList()[before:] {
		if c.start.Before(failFrom) {
			t.Fatalf("the resumed sync re-read window %s", c.start)
		}
	}
	w.wantAllStored(t)
	if st := w.state(t, feeds.SourceNVD); st.LastError != "" || st.LastSuccess.IsZero() {
		t.Errorf("state after the resumed sync = %+v", st.FeedState)
	}
}

// Without a key at most 5 requests go out in any pacing window, with one 50.
func TestFeedSyncPacing(t *testing.T) {
	for _, tc := range []struct {
		key       string
		perWindow int
	}{{"", 5}, {"k", 50}} {
		w := newFeedWorld(t, 100) // 16+ requests
		w.opts.NVDAPIKey = tc.key
		s := w.syncer(10 * time.Second)
		s.Pacing.Window = 150 * time.Millisecond
		if _, err := s.Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceNVD}}); err != nil {
			t.Fatal(err)
		}
		calls := w.nvd.callList()
		maxIn := 0
		for i := range calls {
			n := 0
			for _, c := range calls[i:] {
				if c.at.Sub(calls[i].at) < s.Pacing.Window-30*time.Millisecond { // server-side times: allow latency jitter
					n++
				}
			}
			maxIn = max(maxIn, n)
		}
		if maxIn > tc.perWindow || (tc.key != "" && maxIn <= 5) {
			t.Errorf("key %q: up to %d requests in one window, want at most %d (and more than 5 with a key)", tc.key, maxIn, tc.perWindow)
		}
	}
}

// KEV and EPSS come whole from their URLs through the same importer as feed import.
func TestFeedSyncKEVAndEPSS(t *testing.T) {
	w := newFeedWorld(t, 2000)
	res, err := w.syncer(10*time.Second).Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceKEV, feeds.SourceEPSS}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Records < 1000 || res[1].Records != 534 {
		t.Errorf("results = %+v, want the whole KEV catalogue and the 534 EPSS rows", res)
	}
	for _, src := range []string{feeds.SourceKEV, feeds.SourceEPSS} {
		if st := w.state(t, src); st.LastSuccess.IsZero() || st.Records == 0 {
			t.Errorf("%s state = %+v", src, st.FeedState)
		}
	}
	// A URL answering the wrong document is an error, not a silent success.
	w.opts.KEVURL = w.opts.EPSSURL
	if _, err := w.syncer(10*time.Second).Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceKEV}}); err == nil {
		t.Error("an EPSS file was accepted as the KEV catalogue")
	}
}

// Plain HTTP is refused unless allowed.
func TestFeedClientRefusesPlainHTTP(t *testing.T) {
	srv := fileServer(t, kevFile)
	_, err := NewFeedClient(FeedClientOptions{}).Fetch(context.Background(), feeds.Request{URL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "allow_http") {
		t.Errorf("err = %v, want plain HTTP refused", err)
	}
	body, err := NewFeedClient(FeedClientOptions{AllowHTTP: true}).Fetch(context.Background(), feeds.Request{URL: srv.URL})
	if err != nil || len(body) < 1000 {
		t.Errorf("allowed: %d bytes, %v", len(body), err)
	}
	var se *feeds.StatusError
	notFound := httptestStatus(t, http.StatusNotFound)
	if _, err := NewFeedClient(FeedClientOptions{AllowHTTP: true}).Fetch(context.Background(), feeds.Request{URL: notFound}); !errors.As(err, &se) || se.Status != 404 {
		t.Errorf("err = %v, want a StatusError 404", err)
	}
}

// serve's scheduler syncs every source (OSV with an ecosystem enabled) once it is due, tells
// the caller that matches may have changed, and does nothing when feeds.sync_interval is 0.
func TestFeedSchedulerRun(t *testing.T) {
	w := newFeedWorld(t, 2000)
	osv := httptest.NewServer(&fakeOSV{zips: osvZips(t)})
	defer osv.Close()
	w.opts.OSVURL, w.opts.OSVEcosystems = osv.URL, []string{"Go"}
	w.opts.SyncInterval = 0
	done := make(chan struct{})
	go func() { w.syncer(time.Second).Run(context.Background(), nil); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run with sync_interval 0 did not return")
	}
	w.opts.SyncInterval = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan struct{}, 1)
	go w.syncer(10*time.Second).Run(ctx, func(context.Context) { changed <- struct{}{} })
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("the scheduler never synced")
	}
	for _, src := range feeds.Sources {
		if st := w.state(t, src); st.LastSuccess.IsZero() || st.LastError != "" {
			t.Errorf("%s after the scheduled sync: %+v", src, st.FeedState)
		}
	}
	w.wantAllStored(t)
}

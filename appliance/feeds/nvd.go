package feeds

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// NVD CVE API 2.0 limits: a lastModified range spans at most 120 days, a page at most 2,000.
const (
	maxWindow    = 120 * 24 * time.Hour
	pageSize     = 2000
	nvdDateParam = "2006-01-02T15:04:05.000" // written in UTC, with the offset +00:00 appended
	// windowRestarts bounds how often a window whose result count moved while it was read
	// (records modified meanwhile shift the pages) is read again from its first page.
	windowRestarts = 3
)

// window is one lastModified range of an NVD sync.
type window struct {
	start, end time.Time
}

// syncNVD reads lastModified windows from the stored cursor (or since, or the epoch) up to
// now. Each page is one import transaction; the cursor moves to a window's end only once the
// whole window is stored, so a sync that fails or is killed resumes at the last completed
// window and skips nothing.
func (s *Syncer) syncNVD(ctx context.Context, now, since time.Time) (int, error) {
	if err := CheckURL(s.opts.NVDURL, s.opts.AllowHTTP); err != nil {
		return 0, err
	}
	from, err := s.nvdCursor(ctx, since)
	if err != nil {
		return 0, err
	}
	total := 0
	for from.Before(now) {
		w := window{start: from, end: from.Add(maxWindow)}
		if w.end.After(now) {
			w.end = now
		}
		n, err := s.nvdWindow(ctx, w)
		total += n
		if err != nil {
			return total, fmt.Errorf("window %s – %s: %w", w.start.Format(time.RFC3339), w.end.Format(time.RFC3339), err)
		}
		if err := s.saveCursor(ctx, w.end); err != nil {
			return total, err
		}
		from = w.end
	}
	return total, nil
}

func (s *Syncer) nvdCursor(ctx context.Context, since time.Time) (time.Time, error) {
	st, err := s.store.FeedState(ctx, SourceNVD)
	if err != nil {
		return time.Time{}, err
	}
	if st.Cursor != "" {
		t, err := time.Parse(time.RFC3339Nano, st.Cursor)
		if err != nil {
			return time.Time{}, fmt.Errorf("stored NVD cursor %q: %w", st.Cursor, err)
		}
		return t, nil
	}
	if !since.IsZero() {
		return since.UTC(), nil
	}
	return s.Epoch, nil
}

func (s *Syncer) saveCursor(ctx context.Context, end time.Time) error {
	return s.store.InTx(ctx, func(tx appliance.Tx) error {
		st, err := tx.FeedState(ctx, SourceNVD)
		if err != nil {
			return err
		}
		st.Cursor = end.UTC().Format(time.RFC3339Nano)
		return tx.SaveFeedState(ctx, st)
	})
}

// nvdWindow reads every page of one window; when the window's totalResults changes between
// pages it starts the window again.
func (s *Syncer) nvdWindow(ctx context.Context, w window) (int, error) {
	n := 0
	for attempt := 0; ; attempt++ {
		got, moved, err := s.nvdPages(ctx, w)
		n += got
		if err != nil || !moved {
			return n, err
		}
		if attempt == windowRestarts {
			return n, fmt.Errorf("the window's result count kept changing while it was read")
		}
		s.log.Info("NVD window changed while read, reading it again", slog.Time("start", w.start))
	}
}

func (s *Syncer) nvdPages(ctx context.Context, w window) (records int, moved bool, err error) {
	expect := -1
	for index := 0; ; {
		body, err := s.get(ctx, s.nvdPacer(), s.nvdRequest(w, index))
		if err != nil {
			return records, false, err
		}
		st, err := s.imp.ImportFeed(ctx, "NVD page "+strconv.Itoa(index), bytes.NewReader(body))
		if err != nil {
			return records, false, err
		}
		got := st.CVEs + st.Rejected
		records += got
		if st.KEV > 0 {
			return records, false, appliance.Invalid("feed", "format", "the NVD URL answered a KEV catalogue")
		}
		if expect >= 0 && st.TotalResults != expect {
			return records, true, nil
		}
		expect = st.TotalResults
		index += got
		if index >= st.TotalResults {
			return records, false, nil
		}
		if got == 0 {
			return records, false, fmt.Errorf("empty page at index %d of %d results", index, st.TotalResults)
		}
	}
}

func (s *Syncer) nvdRequest(w window, index int) Request {
	q := url.Values{}
	q.Set("lastModStartDate", w.start.UTC().Format(nvdDateParam)+"+00:00")
	q.Set("lastModEndDate", w.end.UTC().Format(nvdDateParam)+"+00:00")
	q.Set("resultsPerPage", strconv.Itoa(pageSize))
	q.Set("startIndex", strconv.Itoa(index))
	req := Request{URL: s.opts.NVDURL + "?" + q.Encode()}
	if s.opts.NVDAPIKey != "" {
		req.Header = map[string]string{"apiKey": s.opts.NVDAPIKey}
	}
	return req
}

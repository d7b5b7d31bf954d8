package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// Real feed files the fakes serve.
const (
	nvd2003  = "../../shared/data/nvd/nvdcve-2.0-2003.json.gz" // 1,555 records modified 2023-11 … 2025-05
	kevFile  = "../../shared/data/kev/known_exploited_vulnerabilities.json"
	epssFile = "../../shared/data/epss/epss_scores-2026-09-29.excerpt-head.csv.gz"
)

// nvdRecord is one vulnerabilities[] entry of a real feed, kept verbatim.
type nvdRecord struct {
	id       string
	modified time.Time
	rejected bool
	raw      json.RawMessage
}

// decodeGzipJSON decodes a gzip-compressed JSON file into v.
func decodeGzipJSON(t testing.TB, name string, v any) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(zr).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func loadNVDRecords(t testing.TB, name string) []nvdRecord {
	t.Helper()
	var doc struct {
		Vulnerabilities []json.RawMessage `json:"vulnerabilities"`
	}
	decodeGzipJSON(t, name, &doc)
	out := make([]nvdRecord, 0, len(doc.Vulnerabilities))
	for _, raw := range doc.Vulnerabilities {
		var e struct {
			CVE struct{ ID, LastModified, VulnStatus string } `json:"cve"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		mod, err := time.Parse("2006-01-02T15:04:05.000", e.CVE.LastModified)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, nvdRecord{id: e.CVE.ID, modified: mod, rejected: e.CVE.VulnStatus == "Rejected", raw: raw})
	}
	return out
}

// nvdCall is one request the fake NVD answered (or refused).
type nvdCall struct {
	start, end time.Time
	index, per int
	apiKey     string
	at         time.Time
}

// fakeNVD answers like the CVE API 2.0: lastModified windows (404 past 120 days, as NVD
// does), pages of at most pageSize, records in file order. hook may answer a request instead
// (the n-th, from 0) to inject a failure.
type fakeNVD struct {
	records  []nvdRecord
	pageSize int
	mu       sync.Mutex
	calls    []nvdCall
	hook     func(w http.ResponseWriter, r *http.Request, n int, c nvdCall) bool
}

const nvdParamLayout = "2006-01-02T15:04:05.000-07:00"

func (f *fakeNVD) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	start, err1 := time.Parse(nvdParamLayout, q.Get("lastModStartDate"))
	end, err2 := time.Parse(nvdParamLayout, q.Get("lastModEndDate"))
	index, err3 := strconv.Atoi(q.Get("startIndex"))
	per, err4 := strconv.Atoi(q.Get("resultsPerPage"))
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || end.Sub(start) > 120*24*time.Hour || per > 2000 {
		http.Error(w, "bad parameters", http.StatusNotFound)
		return
	}
	c := nvdCall{start: start.UTC(), end: end.UTC(), index: index, per: per, apiKey: r.Header.Get("apiKey"), at: time.Now()}
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, c)
	hook := f.hook
	f.mu.Unlock()
	if hook != nil && hook(w, r, n, c) {
		return
	}
	var in []json.RawMessage
	for _, rec := range f.records {
		if !rec.modified.Before(c.start) && !rec.modified.After(c.end) {
			in = append(in, rec.raw)
		}
	}
	page := in[min(index, len(in)):min(index+min(per, f.pageSize), len(in))]
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"resultsPerPage":%d,"startIndex":%d,"totalResults":%d,"format":"NVD_CVE","version":"2.0","timestamp":"2026-03-14T00:00:00.000","vulnerabilities":[`,
		len(page), index, len(in))
	for i, raw := range page {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(raw)
	}
	b.WriteString("]}")
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b.Bytes())
}

func (f *fakeNVD) callList() []nvdCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]nvdCall(nil), f.calls...)
}

// fileServer serves one real file's bytes; hook as in fakeNVD.
func fileServer(t testing.TB, name string) *httptest.Server {
	t.Helper()
	body, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(body) }))
	t.Cleanup(srv.Close)
	return srv
}

// truncate answers with a Content-Length the body never reaches.
func truncate(w http.ResponseWriter) {
	w.Header().Set("Content-Length", "100000")
	_, _ = w.Write([]byte(`{"resultsPerPage":2000,"vulnerabilities":[`))
}

// feedWorld is a fresh store, the fakes and a syncer with fast pacing over web's client.
type feedWorld struct {
	st     *sqlitestore.Store
	nvd    *fakeNVD
	nvdSrv *httptest.Server
	opts   feeds.Options
	logs   *bytes.Buffer
	now    time.Time
}

func newFeedWorld(t testing.TB, pageSize int) *feedWorld {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "feeds.db"), sqlitestore.Options{Readers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := &feedWorld{st: st, nvd: &fakeNVD{records: loadNVDRecords(t, nvd2003), pageSize: pageSize}, logs: &bytes.Buffer{},
		now: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}
	w.nvdSrv = httptest.NewServer(w.nvd)
	t.Cleanup(w.nvdSrv.Close)
	w.opts = feeds.DefaultOptions()
	w.opts.NVDURL, w.opts.AllowHTTP = w.nvdSrv.URL+"/rest/json/cves/2.0", true
	w.opts.KEVURL = fileServer(t, kevFile).URL + "/kev.json"
	w.opts.EPSSURL = fileServer(t, epssFile).URL + "/epss.csv.gz"
	return w
}

// syncer builds a syncer whose first NVD window starts 2023-10-01 and whose clock stands at
// w.now; requests time out after timeout.
func (w *feedWorld) syncer(timeout time.Duration) *feeds.Syncer {
	log := slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := feeds.NewSyncer(w.st, NewFeedClient(FeedClientOptions{AllowHTTP: true, Timeout: timeout}), w.opts, log)
	s.Pacing = feeds.Pacing{Window: time.Millisecond, Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Retries: 3,
		StartDelay: time.Millisecond, RetryFailed: time.Hour}
	s.Epoch = time.Date(2023, 10, 1, 0, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return w.now }
	return s
}

func (w *feedWorld) state(t testing.TB, source string) feeds.Status {
	t.Helper()
	st, err := w.st.FeedState(context.Background(), source)
	if err != nil {
		t.Fatal(err)
	}
	return feeds.Status{FeedState: st}
}

// wantAllStored checks every non-rejected record of the fake is in the store.
func (w *feedWorld) wantAllStored(t testing.TB) {
	t.Helper()
	missing := 0
	for _, rec := range w.nvd.records {
		ok, err := w.st.CVEExists(context.Background(), rec.id)
		if err != nil {
			t.Fatal(err)
		}
		if ok == rec.rejected {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d records not stored as the feed says", missing, len(w.nvd.records))
	}
}

// httptestStatus is the URL of a server answering every request with status.
func httptestStatus(t testing.TB, status int) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }))
	t.Cleanup(srv.Close)
	return srv.URL
}

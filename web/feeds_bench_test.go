package web

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
)

// BenchmarkNVDSyncFullReimport syncs every record of the shared NVD 2.0 feeds (newest version
// of each CVE) through the fake CVE API in 2,000-record pages into a fresh store, pacing off.
func BenchmarkNVDSyncFullReimport(b *testing.B) {
	files, err := filepath.Glob("../../shared/data/nvd/nvdcve-2.0-*.json.gz")
	if err != nil || len(files) == 0 {
		b.Fatalf("no NVD feeds: %v", err)
	}
	newest := map[string]nvdRecord{}
	for _, f := range files {
		for _, rec := range loadNVDRecords(b, f) {
			if old, ok := newest[rec.id]; !ok || rec.modified.After(old.modified) {
				newest[rec.id] = rec
			}
		}
	}
	fake := &fakeNVD{pageSize: 2000}
	first, last := time.Now(), time.Time{}
	for _, rec := range newest {
		fake.records = append(fake.records, rec)
		first, last = minTime(first, rec.modified), maxTime(last, rec.modified)
	}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	var took time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w := newFeedWorld(b, 2000)
		w.opts.NVDURL = srv.URL
		w.now = last.Add(time.Second)
		s := w.syncer(time.Minute)
		s.Epoch = first.Add(-time.Second)
		b.StartTimer()
		start := time.Now()
		res, err := s.Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceNVD}})
		if err != nil || res[0].Records != len(fake.records) {
			b.Fatalf("%d of %d records: %v", res[0].Records, len(fake.records), err)
		}
		took += time.Since(start)
	}
	b.ReportMetric(float64(len(fake.records)), "CVEs")
	b.ReportMetric(float64(len(fake.records)*b.N)/took.Seconds(), "CVEs/s")
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

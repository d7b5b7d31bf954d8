package kbindex

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	"github.com/vulnkeeper/vulnkeeper/appliance/resolve"
)

// someIdentities is a real slice of the catalogue: every identity of a few vendors.
func someIdentities(t testing.TB) []appliance.CatalogEntry {
	t.Helper()
	keep := map[string]bool{"mozilla": true, "videolan": true, "haxx": true, "curl": true, "boltcms": true,
		"logitech": true, "gnu": true, "openssl": true}
	var ids []appliance.CatalogEntry
	for _, id := range loadCatalogue(t) {
		if keep[id.Vendor] {
			ids = append(ids, id)
		}
	}
	return ids
}

func buildSmall(t *testing.T) (*Index, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kbindex")
	if err := Build(context.Background(), dir, someIdentities(t)); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, dir
}

func TestCandidates(t *testing.T) {
	ix, _ := buildSmall(t)
	tests := []struct {
		vendor, product string
		want            string // among the first five
	}{
		{"mozilla", "firefox", "mozilla:firefox"},
		{"videolan", "vlc_media_player_portable", "videolan:vlc_media_player"},
		{"", "openssl", "openssl:openssl"},
		{"logitech", "logi_bolt", "boltcms:bolt"}, // a candidate, which the resolver's guard judges
	}
	for _, tt := range tests {
		got, err := ix.Candidates(context.Background(), tt.vendor, tt.product, 5)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(" "+joinCandidates(got), " "+tt.want+" ") {
			t.Errorf("Candidates(%q, %q) = %s, want %s among them", tt.vendor, tt.product, joinCandidates(got), tt.want)
		}
	}
	if got, err := ix.Candidates(context.Background(), "mozilla", "", 5); err != nil || len(got) != 0 {
		t.Errorf("empty product: got %v, %v; want no candidates", got, err)
	}
}

func TestCandidatesAreDeterministic(t *testing.T) {
	ix, _ := buildSmall(t)
	first, err := ix.Candidates(context.Background(), "", "gnu_utilities", 20)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, _ := ix.Candidates(context.Background(), "", "gnu_utilities", 20)
		if joinCandidates(again) != joinCandidates(first) {
			t.Fatalf("order changed: %s vs %s", joinCandidates(again), joinCandidates(first))
		}
	}
}

func joinCandidates(cs []Candidate) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.Vendor + ":" + c.Product + " ")
	}
	return b.String()
}

func TestBuildSkipsCurrentIndexAndRebuildsStale(t *testing.T) {
	ids := someIdentities(t)
	dir := filepath.Join(t.TempDir(), "kbindex")
	ctx := context.Background()
	if err := Build(ctx, dir, ids); err != nil {
		t.Fatal(err)
	}
	stamp := modTime(t, dir)
	if err := Build(ctx, dir, ids); err != nil || !modTime(t, dir).Equal(stamp) {
		t.Fatalf("second Build of the same catalogue rebuilt (err %v)", err)
	}
	changed := append(ids[:len(ids):len(ids)], appliance.CatalogEntry{Identity: appliance.Identity{Part: "a", Vendor: "acme", Product: "rocket_sled"}})
	if Current(dir, changed) {
		t.Fatal("a changed catalogue must be stale")
	}
	if err := Build(ctx, dir, changed); err != nil || !Current(dir, changed) {
		t.Fatalf("rebuild: %v", err)
	}
	ix, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	got, _ := ix.Candidates(ctx, "acme", "rocket_sled", 1)
	if len(got) != 1 || got[0].Product != "rocket_sled" {
		t.Fatalf("rebuilt index misses the new identity: %+v", got)
	}
}

func modTime(t *testing.T, dir string) time.Time {
	t.Helper()
	st, err := os.Stat(filepath.Join(dir, fingerprintFile))
	if err != nil {
		t.Fatal(err)
	}
	return st.ModTime()
}

func TestOpenRefusesMissingOrUnfinished(t *testing.T) {
	for _, dir := range []string{filepath.Join(t.TempDir(), "absent"), t.TempDir()} {
		if ix, err := Open(context.Background(), dir); err == nil {
			ix.Close()
			t.Errorf("Open(%s) succeeded, want an error", dir)
		}
	}
}

// BenchmarkResolveUncached resolves every eval name against the full catalogue with the
// cache dropped before each call; p50/p99 are reported per resolution.
func BenchmarkResolveUncached(b *testing.B) {
	r, cases := benchResolver(b)
	ctx := context.Background()
	var durations []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ec := cases[i%len(cases)]
		r.Invalidate()
		start := time.Now()
		if _, err := r.Resolve(ctx, nil, ec.vendor, ec.product); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	reportPercentiles(b, durations)
}

func BenchmarkResolveCached(b *testing.B) {
	r, cases := benchResolver(b)
	ctx := context.Background()
	for _, ec := range cases {
		r.Resolve(ctx, nil, ec.vendor, ec.product)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ec := cases[i%len(cases)]
		if _, err := r.Resolve(ctx, nil, ec.vendor, ec.product); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	ids := loadCatalogue(b)
	for b.Loop() {
		if err := Build(context.Background(), filepath.Join(b.TempDir(), "kbindex"), ids); err != nil {
			b.Fatal(err)
		}
	}
}

func benchResolver(b *testing.B) (*resolve.Resolver, []evalCase) {
	b.Helper()
	return newRealResolver(b), loadEval(b)
}

func reportPercentiles(b *testing.B, durations []time.Duration) {
	if len(durations) == 0 {
		return
	}
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	at := func(p float64) float64 {
		return float64(durations[int(p*float64(len(durations)-1))].Microseconds())
	}
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}

// TestEmptyCatalogueBuildsAnEmptyIndex: an installation without identities yet (org create,
// then an SBOM import) gets an index that answers no candidates instead of a crash.
func TestEmptyCatalogueBuildsAnEmptyIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kbindex")
	if err := Build(context.Background(), dir, nil); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got, err := ix.Candidates(context.Background(), "mozilla", "firefox", 5); err != nil || len(got) != 0 {
		t.Errorf("candidates from an empty index: %v, %v", got, err)
	}
}

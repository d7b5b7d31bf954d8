package matcher

import (
	"math"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// buildMeasured builds the index from every real 2.0 feed and returns the heap it keeps.
func buildMeasured(b *testing.B) (*Index, uint64) {
	b.Helper()
	before := heapAfterGC()
	ix := loadIndex(b, allFeeds(b)...)
	after := heapAfterGC()
	return ix, after - min(before, after)
}

// cpuTime is the user and system time the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkLookup200K runs 200,000 queries per iteration, on one goroutine, sampled at the
// range bounds the data names ("bounds") or at those and every exact version ("named").
func BenchmarkLookup200K(b *testing.B) {
	ix, heap := buildMeasured(b)
	for _, sample := range []struct {
		name  string
		exact bool
	}{{"bounds", false}, {"named", true}} {
		b.Run(sample.name, func(b *testing.B) {
			lookups(b, ix, boundQueries(ix, rand.New(rand.NewPCG(7, 11)), 200_000, sample.exact), heap)
		})
	}
	s := ix.Stats()
	b.Logf("index: %d CVEs, %d configurations, %d criteria, %d products, %d unparsable", s.CVEs, s.Configurations, s.Criteria, s.Products, s.Unparsable)
}

func lookups(b *testing.B, ix *Index, queries []Query, heap uint64) {
	const chunks = 10
	findings, cpuStart := 0, cpuTime()
	best := time.Duration(math.MaxInt64)
	for b.Loop() {
		findings = 0
		for c := range chunks {
			start := cpuTime()
			for _, q := range queries[c*len(queries)/chunks : (c+1)*len(queries)/chunks] {
				findings += len(ix.Match(q))
			}
			best = min(best, cpuTime()-start)
		}
	}
	lookups := float64(b.N * len(queries))
	perLookup := b.Elapsed().Seconds() / lookups
	b.ReportMetric(perLookup*1e9, "ns/lookup")
	b.ReportMetric(1/perLookup, "lookups/s")
	// CPU time as well as wall time, since on a shared machine the wall clock also counts
	// waiting; the best tenth, scaled to the whole run, is the figure least disturbed by others.
	b.ReportMetric(float64((cpuTime()-cpuStart).Nanoseconds())/lookups, "cpu-ns/lookup")
	b.ReportMetric((best * chunks).Seconds(), "best-cpu-s/200K")
	b.ReportMetric(float64(findings)/float64(len(queries)), "findings/lookup")
	b.ReportMetric(float64(heap)/(1<<20), "index-MB")
}

// BenchmarkHost500 matches one host of 500 installed products drawn from the data.
func BenchmarkHost500(b *testing.B) {
	ix, _ := buildMeasured(b)
	host := boundQueries(ix, rand.New(rand.NewPCG(3, 5)), 500, true)
	cpuStart := cpuTime()
	for b.Loop() {
		for _, q := range host {
			ix.Match(q)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/host")
	b.ReportMetric(float64((cpuTime()-cpuStart).Microseconds())/1e3/float64(b.N), "cpu-ms/host")
}

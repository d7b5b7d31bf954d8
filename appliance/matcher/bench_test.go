package matcher

import (
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

// BenchmarkLookup200K runs 200,000 queries sampled at the versions the data names (range
// bounds and exact versions) per iteration, on one goroutine.
func BenchmarkLookup200K(b *testing.B) {
	ix, heap := buildMeasured(b)
	queries := boundQueries(ix, rand.New(rand.NewPCG(7, 11)), 200_000)
	findings := 0
	cpuStart := cpuTime()
	for b.Loop() {
		findings = 0
		for _, q := range queries {
			findings += len(ix.Match(q))
		}
	}
	lookups := float64(b.N * len(queries))
	// CPU time as well as wall time: on a shared machine the wall clock also counts waiting.
	b.ReportMetric(float64((cpuTime()-cpuStart).Nanoseconds())/lookups, "cpu-ns/lookup")
	perLookup := b.Elapsed().Seconds() / lookups
	b.ReportMetric(perLookup*1e9, "ns/lookup")
	b.ReportMetric(1/perLookup, "lookups/s")
	b.ReportMetric(float64(findings)/float64(len(queries)), "findings/lookup")
	b.ReportMetric(float64(heap)/(1<<20), "index-MB")
	s := ix.Stats()
	b.Logf("index: %d CVEs, %d configurations, %d criteria, %d products, %d unparsable", s.CVEs, s.Configurations, s.Criteria, s.Products, s.Unparsable)
}

// BenchmarkHost500 matches one host of 500 installed products drawn from the data.
func BenchmarkHost500(b *testing.B) {
	ix, _ := buildMeasured(b)
	host := boundQueries(ix, rand.New(rand.NewPCG(3, 5)), 500)
	cpuStart := cpuTime()
	for b.Loop() {
		for _, q := range host {
			ix.Match(q)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/host")
	b.ReportMetric(float64((cpuTime()-cpuStart).Microseconds())/1e3/float64(b.N), "cpu-ms/host")
}

package collect

import (
	"os"
	"runtime"
	"testing"
)

// Collecting this machine's packages and OS, as the agent does each cycle.
func BenchmarkCollectThisHost(b *testing.B) {
	h := Host{FS: os.DirFS("/"), Root: "/", GOOS: runtime.GOOS, Arch: runtime.GOARCH, Registry: LocalRegistry()}
	var n int
	for b.Loop() {
		_, prods, err := Collect(h)
		if err != nil {
			b.Fatal(err)
		}
		n = len(prods)
	}
	b.ReportMetric(float64(n), "products")
}

package inventory_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
)

// generatedEPSS is a daily EPSS file in the real format (comment line, header, one row per
// CVE sorted by id, decimals with trailing zeros dropped) with rows rows.
func generatedEPSS(rows int) []byte {
	var b bytes.Buffer
	b.WriteString("#model_version:v2025.03.14,score_date:2026-10-01T12:00:22Z\ncve,epss,percentile\n")
	for i := 0; i < rows; i++ {
		score := float64(i%99991) / 99991
		fmt.Fprintf(&b, "CVE-%d-%d,%g,%g\n", 1999+i/20000, 1000+i%20000, float64(int(score*1e5))/1e5, float64(i)/float64(rows))
	}
	return b.Bytes()
}

// BenchmarkEPSSImport imports a 250,000-row daily EPSS file into a fresh store, then the same
// file again (the daily update of an installation that has yesterday's scores).
func BenchmarkEPSSImport(b *testing.B) {
	const rows = 250_000
	file := generatedEPSS(rows)
	var first, second time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w := newWorld(b)
		b.StartTimer()
		for pass, took := range []*time.Duration{&first, &second} {
			start := time.Now()
			st, err := w.importer.Import(context.Background(), "epss.csv", bytes.NewReader(file), int64(len(file)))
			if err != nil || st.EPSS != rows {
				b.Fatalf("pass %d: %d rows, %v", pass, st.EPSS, err)
			}
			*took += time.Since(start)
		}
	}
	b.ReportMetric(float64(rows*b.N)/first.Seconds(), "rows/s")
	b.ReportMetric(first.Seconds()/float64(b.N), "s/first-import")
	b.ReportMetric(second.Seconds()/float64(b.N), "s/re-import")
}

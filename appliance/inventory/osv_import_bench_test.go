package inventory_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/advisories"
)

// BenchmarkOSVImport200k imports 200,000 OSV records into a fresh SQLite file through the
// importer `feed import` uses, then imports them again unchanged (issue 9 §5: ≥ 5,000
// records/s, peak RSS ≤ 300 MB, the re-import changes nothing and is faster). The records are
// the shared Ubuntu, AlmaLinux, GHSA and Debian samples with generated ids, made as they are read.
func BenchmarkOSVImport200k(b *testing.B) {
	const records = 200_000
	gen := newGeneratedOSV(b, records)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		w := newWorld(b)
		b.StartTimer()
		start := time.Now()
		st, err := w.importer.ImportOSVDir(ctx, "generated", gen)
		first := time.Since(start)
		if err != nil || st.Changed != st.Advisories || st.Advisories < records {
			b.Fatalf("import: %+v, %v", st, err)
		}
		start = time.Now()
		again, err := w.importer.ImportOSVDir(ctx, "generated", gen)
		second := time.Since(start)
		if err != nil || again.Changed != 0 || again.Advisories != st.Advisories {
			b.Fatalf("re-import: %+v, %v; want the same %d entries, none changed", again, err, st.Advisories)
		}
		b.ReportMetric(records/first.Seconds(), "records/s")
		b.ReportMetric(records/second.Seconds(), "reimport-records/s")
	}
	b.ReportMetric(peakRSSMiB(b), "peak-RSS-MiB")
}

// generatedOSV is a directory of n OSV records made from the shared samples as they are
// opened: record i is sample i mod len(samples) with the id GEN-i.
type generatedOSV struct {
	n          int
	head, tail [][]byte // each sample split around its id
}

func newGeneratedOSV(tb testing.TB, n int) *generatedOSV {
	tb.Helper()
	g := &generatedOSV{n: n}
	for _, dir := range []string{"ubuntu-osv", "redhat/almalinux-osv", "ghsa-osv", "debian/osv"} {
		fsys := os.DirFS(sharedData + "/advisories/" + dir)
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || path.Ext(p) != ".json" {
				return err
			}
			raw, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			a, err := advisories.DecodeOSV(bytes.NewReader(raw))
			if err != nil {
				return err
			}
			loc := regexp.MustCompile(`"id"\s*:\s*"` + regexp.QuoteMeta(a.ID) + `"`).FindIndex(raw)
			if loc == nil {
				return fmt.Errorf("%s: no id member", p)
			}
			at := loc[1] - 1 - len(a.ID) // where the id's text starts
			g.head, g.tail = append(g.head, raw[:at]), append(g.tail, raw[at+len(a.ID):])
			return nil
		})
		if err != nil {
			tb.Fatalf("samples of %s: %v", dir, err)
		}
	}
	if len(g.head) == 0 {
		tb.Fatal("no OSV samples")
	}
	return g
}

func (g *generatedOSV) record(i int) []byte {
	k := i % len(g.head)
	return append(append(append([]byte(nil), g.head[k]...), "GEN-"+strconv.Itoa(i)...), g.tail[k]...)
}

func (g *generatedOSV) Open(name string) (fs.File, error) {
	if name == "." {
		return &generatedDir{g: g}, nil
	}
	i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "GEN-"), ".json"))
	if err != nil || i < 0 || i >= g.n {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &generatedFile{name: name, Reader: bytes.NewReader(g.record(i))}, nil
}

type generatedDir struct {
	g    *generatedOSV
	next int
}

func (d *generatedDir) Stat() (fs.FileInfo, error) { return generatedInfo{name: ".", dir: true}, nil }
func (d *generatedDir) Read([]byte) (int, error)   { return 0, fs.ErrInvalid }
func (d *generatedDir) Close() error               { return nil }

func (d *generatedDir) ReadDir(n int) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	for ; d.next < d.g.n && (n <= 0 || len(out) < n); d.next++ {
		out = append(out, fs.FileInfoToDirEntry(generatedInfo{name: fmt.Sprintf("GEN-%d.json", d.next)}))
	}
	return out, nil
}

type generatedFile struct {
	name string
	*bytes.Reader
}

func (f *generatedFile) Stat() (fs.FileInfo, error) {
	return generatedInfo{name: f.name, size: f.Size()}, nil
}
func (f *generatedFile) Close() error { return nil }

type generatedInfo struct {
	name string
	size int64
	dir  bool
}

func (i generatedInfo) Name() string { return i.name }
func (i generatedInfo) Size() int64  { return i.size }
func (i generatedInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i generatedInfo) ModTime() time.Time { return time.Time{} }
func (i generatedInfo) IsDir() bool        { return i.dir }
func (i generatedInfo) Sys() any           { return nil }

// peakRSSMiB is the process's peak resident set (VmHWM) in MiB.
func peakRSSMiB(tb testing.TB) float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatalf("read peak RSS: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				tb.Fatalf("parse %q: %v", line, err)
			}
			return float64(kb) / 1024
		}
	}
	tb.Fatal("no VmHWM in /proc/self/status")
	return 0
}

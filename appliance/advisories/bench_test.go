package advisories

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"testing"
	"time"
)

// debianHost2000 is 2,000 installed packages of a buster host: two binaries for every source
// package the DSA/DLA lists name for buster (half below the fix, half at it), the real
// bullseye manifest's names, and unrelated packages up to 2,000.
func debianHost2000(b *testing.B, ix *Index) []Installed {
	ri := ix.releases[relKey{"debian", "10"}]
	names := make([]string, 0, len(ri.byName))
	for n := range ri.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var pkgs []Installed
	for i, n := range names {
		e := ri.byName[n][0].entry()
		v := e.Fixed
		if v == "" || i%2 == 0 {
			v = "0.1-1"
		}
		pkgs = append(pkgs, Installed{Name: n, Version: v}, Installed{Name: "lib" + n + "-1", Version: v, SourcePackage: n})
	}
	pkgs = append(pkgs, dpkgManifest(b, "debian-bullseye-amd64.dpkg-manifest.tsv")...)
	for i := 0; len(pkgs) < 2000; i++ {
		pkgs = append(pkgs, Installed{Name: fmt.Sprintf("unrelated-%d", i), Version: "1.0-1"})
	}
	b.Logf("%d source packages with advisories, %d installed", len(names), len(pkgs))
	return pkgs[:2000]
}

// BenchmarkMatchDebianHost2000: a 2,000-package buster host against the 8,940 DSA/DLA
// advisories (target ≤ 20 ms per host).
func BenchmarkMatchDebianHost2000(b *testing.B) {
	ix := debianListIndex(b)
	pkgs := debianHost2000(b, ix)
	host := Host{OSID: "debian", VersionID: "10"}
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		n = len(ix.Match(host, pkgs).Findings)
	}
	b.ReportMetric(float64(n), "findings")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/host")
}

// osvTemplates are the shared OSV records split around their id, so that records with new ids
// can be produced without copying.
type osvTemplate struct{ head, tail []byte }

func loadTemplates(b *testing.B) []osvTemplate {
	var out []osvTemplate
	fsys := os.DirFS(advDir)
	for _, dir := range []string{"ubuntu-osv", "redhat/almalinux-osv", "ghsa-osv", "debian/osv"} {
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || len(p) < 5 || p[len(p)-5:] != ".json" {
				return err
			}
			raw, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			a, err := DecodeOSV(bytes.NewReader(raw))
			if err != nil {
				return err
			}
			i := bytes.Index(raw, []byte(`"`+a.ID+`"`))
			if i < 0 {
				return fmt.Errorf("%s: id not found", p)
			}
			out = append(out, osvTemplate{head: raw[:i+1], tail: raw[i+1+len(a.ID):]})
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// BenchmarkDecodeOSV200k decodes 200,000 OSV records generated from the shapes of
// the shared Ubuntu, AlmaLinux, GHSA and Debian records (target ≥ 5,000 records/s).
func BenchmarkDecodeOSV200k(b *testing.B) {
	const records = 200_000
	tpl := loadTemplates(b)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		n := 0
		for r := 0; r < records; r++ {
			t := tpl[r%len(tpl)]
			id := fmt.Sprintf("GEN-%d", r)
			a, err := DecodeOSV(io.MultiReader(bytes.NewReader(t.head), bytes.NewReader([]byte(id)), bytes.NewReader(t.tail)))
			if err != nil {
				b.Fatal(err)
			}
			if a.ID == id {
				n++
			}
		}
		if n != records {
			b.Fatalf("%d records decoded with their id", n)
		}
	}
	b.ReportMetric(float64(records*b.N)/time.Since(start).Seconds(), "records/s")
}

package advisories

import (
	"bufio"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	dataDir = "../../../shared/data"
	advDir  = dataDir + "/advisories"
	invDir  = dataDir + "/inventory"
)

// loadOSVDir loads every OSV record under dir (relative to advDir) into ix.
func loadOSVDir(t testing.TB, ix *Index, dir string) int {
	t.Helper()
	n := 0
	err := ReadOSVDir(os.DirFS(advDir), dir, func(a Advisory) error {
		ix.Add(a)
		n++
		return nil
	})
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return n
}

// readTSV reads a tab-separated file with a header into maps.
func readTSV(t testing.TB, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = '\t', true, -1
	head, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		row := map[string]string{}
		for i, h := range head {
			if i < len(rec) {
				row[h] = rec[i]
			}
		}
		out = append(out, row)
	}
}

// lines returns the non-empty lines of a file.
func lines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// dpkgManifest reads "name[:arch]\tversion" lines.
func dpkgManifest(t testing.TB, file string) []Installed {
	var out []Installed
	for _, l := range lines(t, filepath.Join(invDir, file)) {
		name, ver, ok := strings.Cut(l, "\t")
		if ok {
			out = append(out, Installed{Name: name, Version: ver})
		}
	}
	return out
}

// rpmQA reads `rpm -qa` lines (name-version-release.arch, no epoch).
func rpmQA(t testing.TB, file string) []Installed {
	var out []Installed
	for _, l := range lines(t, filepath.Join(invDir, file)) {
		nvr, arch := l, ""
		if i := strings.LastIndexByte(l, '.'); i > 0 {
			nvr, arch = l[:i], l[i+1:]
		}
		i := strings.LastIndexByte(nvr, '-')
		j := strings.LastIndexByte(nvr[:i], '-')
		out = append(out, Installed{Name: nvr[:j], Version: nvr[j+1:], Arch: arch})
	}
	return out
}

// kiwiPackages reads KIWI's name|epoch|version|release|arch|disturl|license lines.
func kiwiPackages(t testing.TB, file string) []Installed {
	var out []Installed
	for _, l := range lines(t, filepath.Join(invDir, file)) {
		f := strings.Split(l, "|")
		if len(f) < 5 || f[0] == "gpg-pubkey" {
			continue
		}
		v := f[2] + "-" + f[3]
		if f[1] != "(none)" {
			v = f[1] + ":" + v
		}
		out = append(out, Installed{Name: f[0], Version: v, Arch: f[4]})
	}
	return out
}

// fileID is the advisory id of an expected/*.tsv advisory_file column.
func fileID(file string) string {
	return strings.TrimSuffix(filepath.Base(file), ".json")
}

// findingSet keys findings by "advisory|package" (architecture qualifier dropped).
func findingSet(fs []Finding) map[string]Finding {
	out := map[string]Finding{}
	for _, f := range fs {
		out[f.AdvisoryID+"|"+trimArch(f.Package)] = f
	}
	return out
}

// compareSets reports every key in one set and not the other.
func compareSets(t *testing.T, what string, want map[string]string, got map[string]Finding) {
	t.Helper()
	for k, why := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("%s: missing finding %s (expected: %s)", what, k, why)
		}
	}
	for k, f := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected finding %s: %+v", what, k, f)
		}
	}
}

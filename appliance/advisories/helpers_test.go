package advisories

import (
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance/hostlist"
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

// hostList reads a shared host list with parse into Installed packages.
func hostList(t testing.TB, file string, parse func(io.Reader) ([]hostlist.Package, error)) []Installed {
	t.Helper()
	pkgs, err := hostlist.ReadFile(filepath.Join(invDir, file), parse)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Installed, len(pkgs))
	for i, p := range pkgs {
		out[i] = Installed{Name: p.Name, Version: p.Version, Arch: p.Arch}
	}
	return out
}

// dpkgManifest reads "name[:arch]\tversion" lines.
func dpkgManifest(t testing.TB, file string) []Installed { return hostList(t, file, hostlist.Dpkg) }

// rpmQA reads `rpm -qa` lines (name-version-release.arch, no epoch).
func rpmQA(t testing.TB, file string) []Installed { return hostList(t, file, hostlist.RPMQA) }

// kiwiPackages reads KIWI's name|epoch|version|release|arch|disturl|license lines.
func kiwiPackages(t testing.TB, file string) []Installed { return hostList(t, file, hostlist.KIWI) }

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

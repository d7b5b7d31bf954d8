package version

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

const nvdFeed = "../../../shared/data/nvd/nvdcve-2.0-2015.json.gz"

// realVersions returns the distinct version bounds and criterion versions of a real NVD feed.
func realVersions(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(nvdFeed)
	if err != nil {
		tb.Fatalf("real NVD feed is required: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	seen := map[string]bool{}
	lines := bufio.NewScanner(gz)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for lines.Scan() {
		if v, ok := versionOnLine(lines.Text()); ok && v != "*" && v != "-" {
			seen[v] = true
		}
	}
	if err := lines.Err(); err != nil {
		tb.Fatal(err)
	}
	return slices.Sorted(func(yield func(string) bool) {
		for v := range seen {
			if !yield(v) {
				return
			}
		}
	})
}

// versionOnLine picks a version out of a pretty-printed feed line: a bound's value or the
// version component of a criterion (escapes simply dropped, which is fine for ordering).
func versionOnLine(line string) (string, bool) {
	key, value, ok := strings.Cut(strings.TrimSpace(line), " : ")
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal([]byte(strings.TrimSuffix(value, ",")), &s) != nil {
		return "", false
	}
	switch {
	case strings.HasPrefix(key, `"version`):
		return s, true
	case key == `"criteria"`:
		fields := strings.Split(strings.ReplaceAll(s, `\:`, "."), ":")
		if len(fields) == 13 {
			return strings.ReplaceAll(fields[5], `\`, ""), true
		}
	}
	return "", false
}

// TestRealVersionsSortConsistently sorts a sample of real NVD versions and checks every pair:
// a total preorder never puts a later element before an earlier one.
func TestRealVersionsSortConsistently(t *testing.T) {
	all := realVersions(t)
	if len(all) < 5000 {
		t.Fatalf("only %d distinct versions read from %s", len(all), nvdFeed)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	sample := all[:2500]
	slices.SortFunc(sample, Compare)
	for i := range sample {
		for j := i + 1; j < len(sample); j++ {
			if Compare(sample[i], sample[j]) > 0 || Compare(sample[j], sample[i]) < 0 {
				t.Fatalf("sorted %q before %q but Compare disagrees", sample[i], sample[j])
			}
		}
	}
}

func TestParsedAgreesWithStrings(t *testing.T) {
	all := realVersions(t)
	parsed := make([]Version, len(all))
	for i, s := range all {
		parsed[i] = Parse(s)
	}
	for i := 1; i < len(all); i++ {
		want := Compare(all[i-1], all[i])
		if got := parsed[i-1].Compare(parsed[i]); got != want {
			t.Errorf("%q vs %q: parsed %d, strings %d", all[i-1], all[i], got, want)
		}
	}
}

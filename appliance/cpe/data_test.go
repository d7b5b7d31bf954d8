package cpe

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"html"
	"io"
	"os"
	"strings"
	"testing"
)

const (
	nvdFeed       = "../../../shared/data/nvd/nvdcve-2.0-2015.json.gz"
	cpeDictionary = "../../../shared/data/cpe/official-cpe-dictionary_v2.3-2015-10-14.xml.gz"
)

// gzipLines calls line for every line of a gzip file that must exist.
func gzipLines(tb testing.TB, path string, line func(string)) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("real data file is required: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	scanLines(tb, gz, line)
}

func scanLines(tb testing.TB, r io.Reader, line func(string)) {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for lines.Scan() {
		line(lines.Text())
	}
	if err := lines.Err(); err != nil {
		tb.Fatal(err)
	}
}

// realCriteria returns the distinct CPE criteria of the 2015 NVD feed.
func realCriteria(tb testing.TB) []string {
	seen := map[string]bool{}
	var criteria []string
	gzipLines(tb, nvdFeed, func(line string) {
		value, ok := strings.CutPrefix(strings.TrimSpace(line), `"criteria" : `)
		var s string
		if ok && json.Unmarshal([]byte(strings.TrimSuffix(value, ",")), &s) == nil && !seen[s] {
			seen[s] = true
			criteria = append(criteria, s)
		}
	})
	return criteria
}

// TestRealCriteriaRoundTrip parses every criterion of a real feed and re-formats it: NVD writes
// canonical formatted strings, so the text must come back byte for byte.
func TestRealCriteriaRoundTrip(t *testing.T) {
	criteria := realCriteria(t)
	if len(criteria) < 5000 {
		t.Fatalf("only %d criteria read from %s", len(criteria), nvdFeed)
	}
	escaped := 0
	for _, s := range criteria {
		n, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if got := n.String(); got != s {
			t.Errorf("Parse(%q).String() = %q", s, got)
		}
		if strings.Contains(s, `\`) {
			escaped++
		}
	}
	if escaped == 0 {
		t.Error("no criterion with escapes was exercised")
	}
	t.Logf("%d criteria round-tripped, %d with escapes", len(criteria), escaped)
}

// dictionaryPair is one entry of the CPE dictionary: its 2.2 URI and its 2.3 formatted name.
type dictionaryPair struct{ uri, formatted string }

func dictionaryPairs(tb testing.TB) []dictionaryPair {
	var pairs []dictionaryPair
	var uri string
	gzipLines(tb, cpeDictionary, func(line string) {
		if v, ok := attribute(line, `<cpe-item name="`); ok {
			uri = v
		} else if v, ok := attribute(line, `<cpe-23:cpe23-item name="`); ok && uri != "" {
			pairs = append(pairs, dictionaryPair{uri: uri, formatted: v})
			uri = ""
		}
	})
	return pairs
}

func attribute(line, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	if !ok {
		return "", false
	}
	value, _, ok := strings.Cut(rest, `"`)
	return html.UnescapeString(value), ok
}

// TestDictionaryURIMatchesFormatted reads both bindings of every dictionary entry: the 2.2
// URI (percent-encoding, packed edition) must give the same Name as the 2.3 string.
func TestDictionaryURIMatchesFormatted(t *testing.T) {
	pairs := dictionaryPairs(t)
	if len(pairs) < 100000 {
		t.Fatalf("only %d entries read from %s", len(pairs), cpeDictionary)
	}
	for _, p := range pairs {
		fromURI, errURI := Parse(p.uri)
		fromFormatted, errFormatted := Parse(p.formatted)
		if errURI != nil || errFormatted != nil {
			t.Errorf("Parse(%q): %v; Parse(%q): %v", p.uri, errURI, p.formatted, errFormatted)
			continue
		}
		if fromURI != fromFormatted {
			t.Errorf("%q → %#v\n%q → %#v", p.uri, fromURI, p.formatted, fromFormatted)
		}
		if got := fromFormatted.String(); got != p.formatted {
			t.Errorf("Parse(%q).String() = %q", p.formatted, got)
		}
	}
}

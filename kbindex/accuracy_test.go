package kbindex

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/resolve"
)

type evalCase struct {
	line                    int
	source, vendor, product string
	expected                string // "vendor:product" or "-"
}

func loadEval(t testing.TB) []evalCase {
	t.Helper()
	f, err := os.Open("testdata/eval.tsv")
	if err != nil {
		t.Fatalf("eval set: %v", err)
	}
	defer f.Close()
	var cases []evalCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 4 {
			t.Fatalf("eval.tsv:%d: want 4 columns, got %d", n, len(cols))
		}
		cases = append(cases, evalCase{line: n, source: cols[0], vendor: cols[1], product: cols[2], expected: cols[3]})
	}
	return cases
}

// newRealResolver builds the Bleve index of the full catalogue once into a temp dir and
// returns a resolver over it (no overrides, no KB).
func newRealResolver(t testing.TB) *resolve.Resolver {
	t.Helper()
	ids := loadCatalogue(t)
	dir := filepath.Join(t.TempDir(), "kbindex")
	start := time.Now()
	if err := Build(context.Background(), dir, ids); err != nil {
		t.Fatal(err)
	}
	t.Logf("built index of %d identities in %s", len(ids), time.Since(start).Round(time.Millisecond))
	ix, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return resolve.New(resolve.NewCatalog(ids), ix, nil, resolve.Options{})
}

type confusion struct {
	correct, wrong, unresolvedOK, missed, falseResolved int
}

func TestAccuracy(t *testing.T) {
	cases := loadEval(t)
	if len(cases) < 150 {
		t.Fatalf("eval set has %d names, want at least 150", len(cases))
	}
	r := newRealResolver(t)
	var c confusion
	for _, ec := range cases {
		res, err := r.Resolve(context.Background(), nil, ec.vendor, ec.product)
		if err != nil {
			t.Fatalf("eval.tsv:%d: %v", ec.line, err)
		}
		c.record(t, r, ec, res)
	}
	resolvable := c.correct + c.wrong + c.missed
	t.Logf("names %d: resolvable %d -> correct %d, wrong %d, missed %d; expected unresolved %d -> unresolved %d, resolved anyway %d",
		len(cases), resolvable, c.correct, c.wrong, c.missed, c.unresolvedOK+c.falseResolved, c.unresolvedOK, c.falseResolved)
	if got := float64(c.correct) / float64(resolvable); got < 0.90 {
		t.Errorf("correct %.1f%% of resolvable names, want >= 90%%", 100*got)
	}
	if got := float64(c.wrong+c.falseResolved) / float64(len(cases)); got > 0.01 {
		t.Errorf("wrong %.1f%% of names, want <= 1%%", 100*got)
	}
}

func (c *confusion) record(t *testing.T, r *resolve.Resolver, ec evalCase, res resolve.Result) {
	got := res.Vendor + ":" + res.Product
	switch {
	case ec.expected == "-" && res.Method == appliance.ResolutionUnresolved:
		c.unresolvedOK++
	case ec.expected == "-":
		c.falseResolved++
		t.Logf("eval.tsv:%d FALSE %q/%q -> %s (%s %.2f)", ec.line, ec.vendor, ec.product, got, res.Method, res.Confidence)
	case res.Method == appliance.ResolutionUnresolved:
		c.missed++
		t.Logf("eval.tsv:%d MISSED %q/%q want %s; candidates %v", ec.line, ec.vendor, ec.product, ec.expected, topCandidates(res))
	case sameSoftware(r, ec.expected, res):
		c.correct++
	default:
		c.wrong++
		t.Logf("eval.tsv:%d WRONG %q/%q -> %s (%s %.2f) want %s", ec.line, ec.vendor, ec.product, got, res.Method, res.Confidence, ec.expected)
	}
}

// sameSoftware accepts the expected identity or any alias of it: the matcher uses them all.
func sameSoftware(r *resolve.Resolver, expected string, res resolve.Result) bool {
	vendor, product, _ := strings.Cut(expected, ":")
	for _, vp := range r.Aliases(vendor, product) {
		if vp.Vendor == res.Vendor && vp.Product == res.Product {
			return true
		}
	}
	return false
}

func topCandidates(res resolve.Result) []string {
	var out []string
	for i, c := range res.Candidates {
		if i == 3 {
			break
		}
		out = append(out, fmt.Sprintf("%s:%s=%.2f", c.Vendor, c.Product, c.Score))
	}
	return out
}

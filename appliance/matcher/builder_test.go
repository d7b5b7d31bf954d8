package matcher

import (
	"slices"
	"sync"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance/nvd"
)

func TestBuilderKeepsOneFindingPerCVEInIDOrder(t *testing.T) {
	b := NewBuilder()
	twice := []nvd.Configuration{orConfig(anyOf(vulnerable(x10))), orConfig(anyOf(ranged(vulnerable(xAny), "0.5", "", "", "2.0")))}
	for _, id := range []string{"CVE-2021-10000", "CVE-2021-9999", "CVE-2019-0001", "CVE-2021-0100"} {
		b.Add(id, twice)
	}
	got := cveIDs(b.Build().Match(product("x", "y", "1.0")))
	want := []string{"CVE-2019-0001", "CVE-2021-0100", "CVE-2021-9999", "CVE-2021-10000"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestBuilderReplacesAndRemoves(t *testing.T) {
	b := NewBuilder()
	b.Add("CVE-2024-0001", []nvd.Configuration{orConfig(anyOf(vulnerable(x10)))})
	b.Add("CVE-2024-0002", []nvd.Configuration{orConfig(anyOf(vulnerable(x10)))})
	before := b.Build()
	b.Add("CVE-2024-0001", []nvd.Configuration{orConfig(anyOf(vulnerable(x15)))})
	b.Add("CVE-2024-0002", nil)
	after := b.Build()
	tests := []struct {
		name  string
		ix    *Index
		query Query
		want  []string
	}{
		{"first build unchanged by later adds", before, product("x", "y", "1.0"), []string{"CVE-2024-0001", "CVE-2024-0002"}},
		{"replaced configuration gone", after, product("x", "y", "1.0"), nil},
		{"replacement in effect", after, product("x", "y", "1.5"), []string{"CVE-2024-0001"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cveIDs(tt.ix.Match(tt.query)); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if s := after.Stats(); s.CVEs != 1 || s.Criteria != 1 {
		t.Errorf("stats %+v, want 1 CVE with 1 referenced criterion", s)
	}
}

func TestBuilderSurvivesUnparsableCriteria(t *testing.T) {
	b := NewBuilder()
	b.Add("CVE-2024-0001", []nvd.Configuration{andConfig(anyOf(vulnerable(x10)), anyOf(platformOnly("cpe:2.3:o:broken")))})
	b.Add("CVE-2024-0002", []nvd.Configuration{orConfig(anyOf(vulnerable("cpe:2.3:a:x:y:1.0:*")))})
	ix := b.Build()
	got := ix.Match(product("x", "y", "1.0"))
	if len(got) != 1 || got[0].CVEID != "CVE-2024-0001" || got[0].Platform != "on "+unparsableName {
		t.Errorf("got %+v, want CVE-2024-0001 assuming the unparsable platform", got)
	}
	if s := ix.Stats(); s.Unparsable != 2 {
		t.Errorf("stats %+v, want 2 unparsable criteria", s)
	}
}

func TestIndexIsSafeForConcurrentQueries(t *testing.T) {
	ix := loadIndex(t, "../../../shared/conformance/fixtures/nvd-mini.json")
	want := cveIDs(ix.Match(product("openssl", "openssl", "1.1.1k")))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if got := cveIDs(ix.Match(product("openssl", "openssl", "1.1.1k"))); !slices.Equal(got, want) {
					t.Errorf("got %v, want %v", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

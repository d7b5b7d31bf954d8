package matcher

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	"github.com/vulnkeeper/vulnkeeper/appliance/version"
)

func TestMatchConformanceFixtures(t *testing.T) {
	ix := loadIndex(t, filepath.Join(fixturesDir, "nvd-mini.json"), filepath.Join(fixturesDir, "nvd-live.json"))
	tests := []struct {
		name  string
		query Query
		want  []string
	}{
		{"openssl 1.1.1k", product("openssl", "openssl", "1.1.1k"), []string{"CVE-2021-3711", "CVE-2022-0778", "CVE-2022-2068"}},
		{"openssl 1.1.1l", product("openssl", "openssl", "1.1.1l"), []string{"CVE-2022-0778", "CVE-2022-2068"}},
		{"openssl 3.0.7", product("openssl", "openssl", "3.0.7"), nil},
		{"chrome before the fix", product("google", "chrome", "116.0.5845.96"), []string{"CVE-2023-4863"}},
		{"chrome at the fix", product("google", "chrome", "116.0.5845.187"), nil},
		{"notepad++ at inclusive end", product("notepad-plus-plus", "notepad++", "8.5.6"), []string{"CVE-2023-40031"}},
		{"notepad++ after", product("notepad-plus-plus", "notepad++", "8.5.7"), nil},
		{"log4j outside", product("apache", "log4j", "2.17.1"), nil},
		{"log4j inside", product("apache", "log4j", "2.14.1"), []string{"CVE-2021-44228"}},
		{"7-zip exact", product("7-zip", "7-zip", "21.07"), []string{"CVE-2099-10001"}},
		{"7-zip other", product("7-zip", "7-zip", "21.08"), nil},
		{"platform-only record", product("microsoft", "windows_10", "-"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cveIDs(ix.Match(tt.query))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMatchRealPlatformConfigurations(t *testing.T) {
	ix := loadIndex(t, filepath.Join(dataDir, "nvd", "nvdcve-2.0-2015.json.gz"))
	tests := []struct {
		name    string
		query   Query
		cve     string
		want    Finding
		present bool
	}{
		{"firmware at inclusive end on its device", product("siemens", "simatic_s7_1200_cpu_firmware", "4.0"), "CVE-2015-1048",
			Finding{CVEID: "CVE-2015-1048", Criteria: "cpe:2.3:o:siemens:simatic_s7_1200_cpu_firmware:*:*:*:*:*:*:*:*",
				MatchCriteriaID: "755D96DF-3F53-474A-A960-74CF5CD9F5D5", Platform: "on siemens:simatic_s7_1200_cpu"}, true},
		{"firmware after the end", product("siemens", "simatic_s7_1200_cpu_firmware", "4.1"), "CVE-2015-1048", Finding{}, false},
		{"the device itself", product("siemens", "simatic_s7_1200_cpu", "-"), "CVE-2015-1048", Finding{}, false},
		{"escaped version bound", product("cisco", "ios", "15.3(100)m"), "CVE-2015-0586",
			Finding{CVEID: "CVE-2015-0586", Criteria: "cpe:2.3:o:cisco:ios:*:*:*:*:*:*:*:*",
				MatchCriteriaID: "301648DA-BD83-4698-8585-1A927FF788F3", Platform: "on cisco:2900_integrated_service_router"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			findings := ix.Match(tt.query)
			i := slices.IndexFunc(findings, func(f Finding) bool { return f.CVEID == tt.cve })
			if (i >= 0) != tt.present {
				t.Fatalf("%s present %v, want %v", tt.cve, i >= 0, tt.present)
			}
			if tt.present && findings[i] != tt.want {
				t.Errorf("got %+v, want %+v", findings[i], tt.want)
			}
		})
	}
}

// TestMatchAgreesWithBruteForce checks the lookup structures (exact-version search, range
// tree, candidate pruning) against a scan of every criterion and every CVE, on a real feed at
// versions taken from its own bounds.
func TestMatchAgreesWithBruteForce(t *testing.T) {
	ix := loadIndex(t, filepath.Join(dataDir, "nvd", "nvdcve-2.0-2015.json.gz"),
		filepath.Join(dataDir, "nvd", "nvdcve-2.0-modified.json.gz"))
	queries := boundQueries(ix, rand.New(rand.NewPCG(1, 2)), 400, true)
	findings := 0
	for _, q := range queries {
		got, want := ix.Match(q), bruteForce(ix, q)
		if !slices.Equal(got, want) {
			t.Fatalf("%+v: index %v, brute force %v", q, got, want)
		}
		findings += len(got)
	}
	if findings < len(queries) {
		t.Errorf("only %d findings for %d queries at data bounds; the sample is not exercising matches", findings, len(queries))
	}
}

func bruteForce(ix *Index, q Query) []Finding {
	var qs queryState
	for _, a := range q.Aliases {
		if id, ok := ix.byName[a]; ok {
			qs.products = append(qs.products, id)
		}
	}
	for id := range ix.criteria {
		c := &ix.criteria[id]
		if qs.names(c.product) && c.matchesPart(q.Part) && c.matchesUpdate(q.Update) && admitsByText(c, q.Version) {
			qs.matched = append(qs.matched, uint32(id))
		}
	}
	var out []Finding
	for i := range ix.cves {
		if f, ok := ix.evaluateCVE(uint32(i), scanHits(ix, uint32(i), &qs), &qs); ok {
			out = append(out, f)
		}
	}
	return out
}

// scanHits finds a CVE's hits by walking all its criteria instead of the users lists.
func scanHits(ix *Index, cve uint32, qs *queryState) []hit {
	var hits []hit
	for ci, c := range ix.cves[cve].configs {
		for ni, n := range c.nodes {
			for _, m := range n.matches {
				if m.vulnerable && qs.matches(m.crit) {
					hits = append(hits, hit{nodeRef{cve, uint32(ci), uint32(ni), c.simple}, m.crit, ix.rank[m.crit]})
				}
			}
		}
	}
	slices.SortFunc(hits, compareHits)
	return hits
}

// admitsByText re-derives the version rule from the criterion's strings, without the index.
func admitsByText(c *criterion, v string) bool {
	none := v == "" || v == "-"
	switch c.kind {
	case versionAny:
		return true
	case versionNA:
		return none
	case versionExact:
		return !none && version.Compare(v, c.exact.String()) == 0
	}
	if none {
		return false
	}
	lo, hi := true, true
	if c.lo.set {
		cmp := version.Compare(v, c.lo.v.String())
		lo = cmp > 0 || cmp == 0 && c.lo.inclusive
	}
	if c.hi.set {
		cmp := version.Compare(v, c.hi.v.String())
		hi = cmp < 0 || cmp == 0 && c.hi.inclusive
	}
	return lo && hi
}

// boundQueries samples n queries at the versions the data names: the range bounds of
// vulnerable criteria and, with exact set, their exact versions too.
func boundQueries(ix *Index, rng *rand.Rand, n int, exact bool) []Query {
	var pool []Query
	for i := range ix.criteria {
		c := &ix.criteria[i]
		if c.product == noProduct || len(ix.users[i]) == 0 {
			continue
		}
		versions := []string{c.lo.v.String(), c.hi.v.String()}
		if exact {
			versions = append(versions, c.exact.String())
		}
		for _, v := range versions {
			if v != "" {
				pool = append(pool, Query{Aliases: []appliance.Identity{ix.names[c.product]}, Version: v})
			}
		}
	}
	queries := make([]Query, n)
	for i := range queries {
		queries[i] = pool[rng.IntN(len(pool))]
	}
	return queries
}

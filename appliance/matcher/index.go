package matcher

import (
	"slices"
	"strings"
)

// Index answers vulnerability queries; build it with a Builder. It is immutable.
type Index struct {
	criteria []criterion
	users    [][]configRef // per criterion: the configurations using it as vulnerable
	rank     []uint32   // per criterion: its position in criteria text order
	names    []VendorProduct
	byName   map[VendorProduct]uint32
	products []productEntry
	cves     []cveEntry // ordered by CVE id
	stats    Stats
}

type cveEntry struct {
	id      string
	configs []config
}

type config struct {
	and, negate bool
	nodes       []node
}

type node struct {
	and, negate bool
	matches     []occurrence   // sorted by criterion
	products    []productCount // distinct products named, by product id
}

type occurrence struct {
	crit       uint32
	vulnerable bool
}

type productCount struct {
	product, count uint32
}

// Stats describes the index.
func (ix *Index) Stats() Stats { return ix.stats }

// Match returns one Finding per CVE affecting the queried product, ordered by CVE id.
func (ix *Index) Match(q Query) []Finding {
	qs := ix.newQueryState(q)
	if len(qs.products) == 0 {
		return nil
	}
	candidates := ix.candidates(qs.matched)
	findings := make([]Finding, 0, len(candidates))
	for len(candidates) > 0 {
		cve := candidates[0].cve
		n := 1
		for n < len(candidates) && candidates[n].cve == cve {
			n++
		}
		if f, ok := ix.evaluateCVE(&ix.cves[cve], candidates[:n], &qs); ok {
			findings = append(findings, f)
		}
		candidates = candidates[n:]
	}
	return findings
}

// queryState is a query resolved against the index: its products and the criteria it matches.
type queryState struct {
	products []uint32
	matched  []uint32 // sorted criterion ids that the product, version and update satisfy
}

func (ix *Index) newQueryState(q Query) queryState {
	var qs queryState
	for _, alias := range q.Aliases {
		if id, ok := ix.byName[alias]; ok && !slices.Contains(qs.products, id) {
			qs.products = append(qs.products, id)
		}
	}
	if len(qs.products) == 0 {
		return qs
	}
	v := parseQueryVersion(q.Version)
	var candidates []uint32
	for _, p := range qs.products {
		candidates = ix.products[p].versionCandidates(v, candidates[:0])
		for _, id := range candidates {
			c := &ix.criteria[id]
			if c.matchesPart(q.Part) && c.matchesUpdate(q.Update) {
				qs.matched = append(qs.matched, id)
			}
		}
	}
	slices.Sort(qs.matched)
	qs.matched = slices.Compact(qs.matched)
	return qs
}

func (qs *queryState) names(product uint32) bool { return slices.Contains(qs.products, product) }

func (qs *queryState) matches(crit uint32) bool {
	_, found := slices.BinarySearch(qs.matched, crit)
	return found
}

// configRef names one configuration of one CVE.
type configRef struct {
	cve, config uint32
}

func compareConfigRefs(a, b configRef) int {
	if c := compareUint32(a.cve, b.cve); c != 0 {
		return c
	}
	return compareUint32(a.config, b.config)
}

// candidates are the configurations that use a matched criterion as vulnerable — the only ones
// that can report a CVE — in CVE id order.
func (ix *Index) candidates(matched []uint32) []configRef {
	var out []configRef
	for _, crit := range matched {
		out = append(out, ix.users[crit]...)
	}
	slices.SortFunc(out, compareConfigRefs)
	return slices.Compact(out)
}

func (ix *Index) addUsers(cve uint32, referenced []bool) {
	for ci, c := range ix.cves[cve].configs {
		ref := configRef{cve: cve, config: uint32(ci)}
		for _, n := range c.nodes {
			for _, m := range n.matches {
				referenced[m.crit] = true
				users := ix.users[m.crit]
				if m.vulnerable && (len(users) == 0 || users[len(users)-1] != ref) {
					ix.users[m.crit] = append(users, ref)
				}
			}
		}
	}
}

// compareCVEIDs orders CVE ids by year, then sequence number numerically
// ("CVE-2021-9999" before "CVE-2021-10000"); other strings fall back to text order.
func compareCVEIDs(a, b string) int {
	ya, na, okA := splitCVEID(a)
	yb, nb, okB := splitCVEID(b)
	if !okA || !okB || ya != yb {
		return strings.Compare(a, b)
	}
	if len(na) != len(nb) {
		return len(na) - len(nb)
	}
	return strings.Compare(na, nb)
}

func splitCVEID(id string) (year, number string, ok bool) {
	rest, found := strings.CutPrefix(id, "CVE-")
	if !found {
		return "", "", false
	}
	return strings.Cut(rest, "-")
}

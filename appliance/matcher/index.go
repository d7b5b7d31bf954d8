package matcher

import (
	"slices"
	"strings"
	"sync"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Index answers vulnerability queries; build it with a Builder. It is immutable.
type Index struct {
	criteria []criterion
	users    [][]nodeRef // per criterion: the nodes using it as vulnerable
	rank     []uint32    // per criterion: its position in criteria text order
	// Columns read for every finding, kept apart from the structs for locality.
	cveIDs   []string // per CVE
	critText []string // per criterion: criteria as NVD writes it
	critID   []string // per criterion: matchCriteriaId
	names    []appliance.Identity
	byName   map[appliance.Identity]uint32
	products []productEntry
	cves     []cveEntry // ordered by CVE id
	stats    Stats
	scratch  sync.Pool // of *queryState
}

type cveEntry struct {
	id      string
	configs []config
}

type config struct {
	and, negate bool
	// simple marks the common shape decided by its hits alone: one plain OR node of
	// vulnerable criteria.
	simple bool
	nodes  []node
}

type node struct {
	and, negate bool
	matches     []occurrence   // sorted by criterion
	products    []productCount // distinct products named, by product id
	// vulnerableOnly marks nodes without platform criteria: for them the hits alone decide.
	vulnerableOnly bool
	assumption     string // Platform text when the node's products are assumed (see assumptionText)
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
// It is safe for concurrent use.
func (ix *Index) Match(q Query) []Finding {
	qs := ix.scratch.Get().(*queryState)
	defer ix.scratch.Put(qs)
	if !ix.resolve(q, qs) {
		return nil
	}
	qs.hits = ix.hits(qs.matched, qs.hits[:0])
	hits := qs.hits
	findings := make([]Finding, 0, distinctCVEs(hits))
	for len(hits) > 0 {
		n := 1
		for n < len(hits) && hits[n].cve == hits[0].cve {
			n++
		}
		if f, ok := ix.evaluateCVE(hits[0].cve, hits[:n], qs); ok {
			findings = append(findings, f)
		}
		hits = hits[n:]
	}
	return findings
}

func distinctCVEs(hits []hit) int {
	n := 0
	for i := range hits {
		if i == 0 || hits[i].cve != hits[i-1].cve {
			n++
		}
	}
	return n
}

// queryState is a query resolved against the index: its products and the criteria it matches.
// Its buffers are reused between queries through Index.scratch.
type queryState struct {
	products   []uint32
	matched    []uint32 // sorted criterion ids that the product, version and update satisfy
	candidates []uint32
	hits       []hit
}

// resolve fills qs for q and reports whether the index knows any of q's products.
func (ix *Index) resolve(q Query, qs *queryState) bool {
	qs.products, qs.matched = qs.products[:0], qs.matched[:0]
	for _, alias := range q.Aliases {
		if id, ok := ix.byName[alias]; ok && !slices.Contains(qs.products, id) {
			qs.products = append(qs.products, id)
		}
	}
	if len(qs.products) == 0 {
		return false
	}
	v := parseQueryVersion(q.Version)
	for _, p := range qs.products {
		qs.candidates = ix.products[p].versionCandidates(v, qs.candidates[:0])
		for _, id := range qs.candidates {
			c := &ix.criteria[id]
			if c.matchesPart(q.Part) && c.matchesUpdate(q.Update) {
				qs.matched = append(qs.matched, id)
			}
		}
	}
	slices.Sort(qs.matched)
	qs.matched = slices.Compact(qs.matched)
	return true
}

func (qs *queryState) names(product uint32) bool { return slices.Contains(qs.products, product) }

func (qs *queryState) matches(crit uint32) bool {
	_, found := slices.BinarySearch(qs.matched, crit)
	return found
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

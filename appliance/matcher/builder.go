package matcher

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
	"github.com/vulnkeeper/vulnkeeper/appliance/nvd"
	"github.com/vulnkeeper/vulnkeeper/appliance/version"
)

// noProduct stands for the product of a criterion whose CPE name could not be parsed: it is an
// unknown to every query and never matches one.
const noProduct = math.MaxUint32

// Builder collects CVE configurations and builds an Index. Adding a CVE again replaces it;
// adding it without configurations removes it. A Builder may keep being used after Build.
type Builder struct {
	interned   map[string]string
	criteria   []criterion
	critIndex  map[criterionKey]uint32
	names      []appliance.Identity
	byName     map[appliance.Identity]uint32
	cves       map[string][]config
	unparsable int
}

type criterionKey struct {
	text, id, startIncl, startExcl, endIncl, endExcl string
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{
		interned:  make(map[string]string),
		critIndex: make(map[criterionKey]uint32),
		byName:    make(map[appliance.Identity]uint32),
		cves:      make(map[string][]config),
	}
}

// Add records the configurations of one CVE, parsing each distinct criterion once.
func (b *Builder) Add(cveID string, configs []nvd.Configuration) {
	if len(configs) == 0 {
		delete(b.cves, cveID)
		return
	}
	converted := make([]config, len(configs))
	for i, c := range configs {
		converted[i] = config{and: isAND(c.Operator), negate: c.Negate, nodes: b.nodes(c.Nodes)}
		converted[i].simple = isSimple(&converted[i])
	}
	b.cves[b.intern(cveID)] = converted
}

func (b *Builder) nodes(in []nvd.Node) []node {
	out := make([]node, len(in))
	for i, n := range in {
		matches := make([]occurrence, len(n.Matches))
		for j, m := range n.Matches {
			matches[j] = occurrence{crit: b.criterionFor(m), vulnerable: m.Vulnerable}
		}
		slices.SortStableFunc(matches, func(a, b occurrence) int { return compareUint32(a.crit, b.crit) })
		out[i] = node{and: isAND(n.Operator), negate: n.Negate, matches: matches, products: b.productCounts(matches),
			vulnerableOnly: !slices.ContainsFunc(matches, func(o occurrence) bool { return !o.vulnerable })}
		out[i].assumption = b.intern(assumptionText(b.names, &out[i], func(uint32) bool { return false }))
	}
	return out
}

// productCounts lists the distinct products a node names, with how many criteria name each,
// ordered by product id for binary search.
func (b *Builder) productCounts(matches []occurrence) []productCount {
	var counts []productCount
	for _, m := range matches {
		p := b.criteria[m.crit].product
		i := slices.IndexFunc(counts, func(pc productCount) bool { return pc.product == p })
		if i < 0 {
			counts = append(counts, productCount{product: p})
			i = len(counts) - 1
		}
		counts[i].count++
	}
	slices.SortFunc(counts, func(a, b productCount) int { return compareUint32(a.product, b.product) })
	return slices.Clip(counts)
}

func (b *Builder) criterionFor(m nvd.Match) uint32 {
	key := criterionKey{m.Criteria, m.MatchCriteriaID, m.VersionStartIncluding, m.VersionStartExcluding,
		m.VersionEndIncluding, m.VersionEndExcluding}
	if id, ok := b.critIndex[key]; ok {
		return id
	}
	id := uint32(len(b.criteria))
	b.criteria = append(b.criteria, b.parseCriterion(m))
	b.critIndex[key] = id
	return id
}

func (b *Builder) parseCriterion(m nvd.Match) criterion {
	c := criterion{text: b.intern(m.Criteria), id: b.intern(m.MatchCriteriaID), product: noProduct}
	name, err := cpe.Parse(m.Criteria)
	if err != nil {
		b.unparsable++
		return c
	}
	c.product = b.productID(appliance.Identity{Vendor: name.Vendor, Product: name.Product})
	c.part, c.update = b.intern(name.Part), b.intern(name.Update)
	switch {
	case name.Version == cpe.NA:
		c.kind = versionNA
	case name.Version != cpe.Any:
		c.kind, c.exact = versionExact, version.Parse(name.Version)
	case m.HasBounds():
		c.kind = versionRange
		c.lo = loBound(m.VersionStartIncluding, m.VersionStartExcluding)
		c.hi = hiBound(m.VersionEndIncluding, m.VersionEndExcluding)
		c.fixed = b.intern(m.VersionEndExcluding)
	default:
		c.kind = versionAny
	}
	return c
}

func (b *Builder) productID(vp appliance.Identity) uint32 {
	if id, ok := b.byName[vp]; ok {
		return id
	}
	vp = appliance.Identity{Vendor: b.intern(vp.Vendor), Product: b.intern(vp.Product)}
	id := uint32(len(b.names))
	b.names = append(b.names, vp)
	b.byName[vp] = id
	return id
}

// intern keeps one copy of each repeated string (vendors, updates, criteria shared by CVEs).
func (b *Builder) intern(s string) string {
	if v, ok := b.interned[s]; ok {
		return v
	}
	s = strings.Clone(s)
	b.interned[s] = s
	return s
}

func isSimple(c *config) bool {
	if c.negate || len(c.nodes) != 1 {
		return false
	}
	n := &c.nodes[0]
	return !n.and && !n.negate && n.vulnerableOnly
}

func isAND(op string) bool { return strings.EqualFold(op, nvd.OperatorAND) }

func compareUint32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Build returns an immutable Index of the CVEs added so far; it is safe for concurrent use.
func (b *Builder) Build() *Index {
	ids := slices.SortedFunc(maps.Keys(b.cves), compareCVEIDs)
	ix := &Index{
		criteria: slices.Clip(b.criteria),
		names:    slices.Clip(b.names),
		byName:   maps.Clone(b.byName),
		cves:     make([]cveEntry, len(ids)),
		users:    make([][]nodeRef, len(b.criteria)),
	}
	referenced := make([]bool, len(b.criteria))
	for i, id := range ids {
		ix.cves[i] = cveEntry{id: id, configs: b.cves[id]}
		ix.stats.Configurations += len(b.cves[id])
		ix.addUsers(uint32(i), referenced)
	}
	ix.products = b.buildProducts(referenced)
	ix.rank = textRanks(ix.criteria)
	ix.cveIDs = ids
	ix.critText, ix.critID = make([]string, len(ix.criteria)), make([]string, len(ix.criteria))
	for i := range ix.criteria {
		ix.critText[i], ix.critID[i] = ix.criteria[i].text, ix.criteria[i].id
	}
	ix.scratch.New = func() any { return new(queryState) }
	ix.stats.CVEs, ix.stats.Products, ix.stats.Unparsable = len(ids), len(b.names), b.unparsable
	for _, r := range referenced {
		if r {
			ix.stats.Criteria++
		}
	}
	return ix
}

// textRanks numbers criteria in (criteria text, match criteria id) order, so choices between
// criteria do not depend on the order they were added in.
func textRanks(criteria []criterion) []uint32 {
	order := make([]uint32, len(criteria))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		ca, cb := &criteria[a], &criteria[b]
		if c := strings.Compare(ca.text, cb.text); c != 0 {
			return c
		}
		return strings.Compare(ca.id, cb.id)
	})
	rank := make([]uint32, len(criteria))
	for r, id := range order {
		rank[id] = uint32(r)
	}
	return rank
}

// buildProducts arranges every referenced criterion under its product.
func (b *Builder) buildProducts(referenced []bool) []productEntry {
	pbs := make([]productBuilder, len(b.names))
	for i := range pbs {
		pbs[i].name = b.names[i]
	}
	for id := range b.criteria {
		c := &b.criteria[id]
		if referenced[id] && c.product != noProduct {
			pbs[c.product].add(uint32(id), c)
		}
	}
	products := make([]productEntry, len(pbs))
	for i := range pbs {
		products[i] = pbs[i].build(b.criteria)
	}
	return products
}

package matcher

import (
	"slices"
	"strconv"
	"strings"
)

// maxUnknownNodes bounds the assumptions tried per configuration (2^n combinations). NVD
// configurations have at most three nodes; a configuration with more unknown nodes than this
// is not reported rather than guessed.
const maxUnknownNodes = 8

// maxPlatformNames keeps Platform readable for configurations listing dozens of OS releases.
const maxPlatformNames = 10

// unparsableName stands in Platform for criteria whose CPE name could not be read.
const unparsableName = "(unparsable criteria)"

// nodeState is a node seen from one query: the value of its criteria that name the queried
// product, with the product's matching vulnerable criteria as they are (actual) and turned
// false (forced), and whether other products leave an unknown.
type nodeState struct {
	and, negate     bool
	actual, forced  bool
	unknown         bool
	vulnerableMatch uint32 // a matching vulnerable criterion of the queried product
	hasVulnerable   bool
}

// value evaluates the node with its unknown set to x.
func (s *nodeState) value(x, forced bool) bool {
	known := s.actual
	if forced {
		known = s.forced
	}
	var v bool
	if s.and {
		v = known && (!s.unknown || x)
	} else {
		v = known || (s.unknown && x)
	}
	return v != s.negate
}

// assumption reports whether setting the unknown to x is a claim about the host worth
// recording: other products present in a plain node, absent in a negated one.
func (s *nodeState) assumption(x bool) bool { return s.unknown && x != s.negate }

// outcome is the cheapest way a configuration reports the CVE.
type outcome struct {
	cost     int
	crit     uint32
	platform string
}

// evaluateCVE reports the CVE through the candidate configuration needing the fewest assumptions.
func (ix *Index) evaluateCVE(cve *cveEntry, candidates []configRef, qs *queryState) (Finding, bool) {
	var best outcome
	found := false
	for _, ref := range candidates {
		o, ok := ix.evaluateConfig(&cve.configs[ref.config], qs)
		if ok && (!found || o.cost < best.cost) {
			best, found = o, true
		}
	}
	if !found {
		return Finding{}, false
	}
	c := &ix.criteria[best.crit]
	return Finding{CVEID: cve.id, Criteria: c.text, MatchCriteriaID: c.id, Platform: best.platform}, true
}

// evaluateConfig tries every assignment of the unknown nodes and keeps the one needing the
// fewest assumptions under which the queried product's vulnerable match decides the result.
func (ix *Index) evaluateConfig(c *config, qs *queryState) (outcome, bool) {
	var buf [4]nodeState
	states := buf[:0]
	unknowns, vulnerable := 0, false
	var crit uint32
	for i := range c.nodes {
		s := ix.nodeState(&c.nodes[i], qs)
		if s.unknown {
			unknowns++
		}
		if s.hasVulnerable && (!vulnerable || ix.rank[s.vulnerableMatch] < ix.rank[crit]) {
			crit, vulnerable = s.vulnerableMatch, true
		}
		states = append(states, s)
	}
	if !vulnerable || unknowns > maxUnknownNodes {
		return outcome{}, false
	}
	cost, mask := -1, uint32(0)
	for m := uint32(0); m < 1<<unknowns; m++ {
		if !combine(c, states, m, false) || combine(c, states, m, true) {
			continue
		}
		if n := assumptions(states, m); cost < 0 || n < cost {
			cost, mask = n, m
		}
	}
	if cost < 0 {
		return outcome{}, false
	}
	o := outcome{cost: cost, crit: crit}
	if cost > 0 {
		o.platform = ix.platform(c.nodes, states, mask, qs)
	}
	return o, true
}

// combine evaluates the configuration; bit k of mask is the k-th unknown node's assumption.
func combine(c *config, states []nodeState, mask uint32, forced bool) bool {
	result, bit := c.and, 0
	for i := range states {
		x := false
		if states[i].unknown {
			x = mask&(1<<bit) != 0
			bit++
		}
		if c.and {
			result = result && states[i].value(x, forced)
		} else {
			result = result || states[i].value(x, forced)
		}
	}
	return result != c.negate
}

func assumptions(states []nodeState, mask uint32) int {
	cost, bit := 0, 0
	for i := range states {
		if !states[i].unknown {
			continue
		}
		if states[i].assumption(mask&(1<<bit) != 0) {
			cost++
		}
		bit++
	}
	return cost
}

func (ix *Index) nodeState(n *node, qs *queryState) nodeState {
	s := nodeState{and: n.and, negate: n.negate}
	known := uint32(0)
	for _, p := range qs.products {
		i, found := slices.BinarySearchFunc(n.products, p, func(pc productCount, p uint32) int { return compareUint32(pc.product, p) })
		if found {
			known += n.products[i].count
		}
	}
	s.unknown = known < uint32(len(n.matches))
	matched, matchedVulnerable := 0, 0
	if known > 0 {
		matched, matchedVulnerable = ix.countMatched(n, qs, &s)
	}
	if s.and {
		s.actual = matched == int(known)
		s.forced = s.actual && matchedVulnerable == 0
	} else {
		s.actual = matched > 0
		s.forced = matched > matchedVulnerable
	}
	return s
}

// countMatched counts the node's criteria that the query matches, walking whichever of the
// node and the matched set is shorter.
func (ix *Index) countMatched(n *node, qs *queryState, s *nodeState) (matched, vulnerable int) {
	count := func(m occurrence) {
		matched++
		if m.vulnerable {
			vulnerable++
			ix.noteVulnerable(s, m.crit)
		}
	}
	if len(n.matches) <= len(qs.matched) {
		for _, m := range n.matches {
			if qs.matches(m.crit) {
				count(m)
			}
		}
		return matched, vulnerable
	}
	for _, crit := range qs.matched {
		i, _ := slices.BinarySearchFunc(n.matches, crit, func(m occurrence, c uint32) int { return compareUint32(m.crit, c) })
		for ; i < len(n.matches) && n.matches[i].crit == crit; i++ {
			count(n.matches[i])
		}
	}
	return matched, vulnerable
}

// noteVulnerable keeps the matching vulnerable criterion first in text order, so the reported
// criterion does not depend on the order CVEs were added in.
func (ix *Index) noteVulnerable(s *nodeState, crit uint32) {
	if !s.hasVulnerable || ix.rank[crit] < ix.rank[s.vulnerableMatch] {
		s.vulnerableMatch, s.hasVulnerable = crit, true
	}
}

// platform spells out the assumptions of an outcome: "on a:b, c:d; not on e:f", names sorted.
func (ix *Index) platform(nodes []node, states []nodeState, mask uint32, qs *queryState) string {
	var present, absent []string
	bit := 0
	for i := range states {
		if !states[i].unknown {
			continue
		}
		x := mask&(1<<bit) != 0
		bit++
		switch {
		case !states[i].assumption(x):
		case states[i].negate:
			absent = ix.appendOthers(absent, &nodes[i], qs)
		default:
			present = ix.appendOthers(present, &nodes[i], qs)
		}
	}
	slices.Sort(present)
	slices.Sort(absent)
	return joinPlatform(present, absent)
}

func (ix *Index) appendOthers(names []string, n *node, qs *queryState) []string {
	for _, pc := range n.products {
		if qs.names(pc.product) {
			continue
		}
		name := unparsableName
		if pc.product != noProduct {
			name = ix.names[pc.product].String()
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

func joinPlatform(present, absent []string) string {
	var parts []string
	if len(present) > 0 {
		parts = append(parts, "on "+joinNames(present))
	}
	if len(absent) > 0 {
		parts = append(parts, "not on "+joinNames(absent))
	}
	return strings.Join(parts, "; ")
}

func joinNames(names []string) string {
	if len(names) <= maxPlatformNames {
		return strings.Join(names, ", ")
	}
	more := len(names) - maxPlatformNames
	return strings.Join(names[:maxPlatformNames], ", ") + " and " + strconv.Itoa(more) + " more"
}

package matcher

import "slices"

// maxUnknownNodes bounds the assumptions tried per configuration (2^n combinations). NVD
// configurations have at most three nodes; a configuration with more unknown nodes than this
// is not reported rather than guessed.
const maxUnknownNodes = 8

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

// evaluateCVE reports the CVE through the hit configuration needing the fewest assumptions,
// the first such in configuration order. Hits of simple configurations are decided without
// touching the configuration.
func (ix *Index) evaluateCVE(cve uint32, hits []hit, qs *queryState) (Finding, bool) {
	var best outcome
	found := false
	for len(hits) > 0 && (!found || best.cost > 0) {
		n := 1
		for n < len(hits) && hits[n].config == hits[0].config {
			n++
		}
		o, ok := outcome{crit: hits[0].crit}, true
		if !hits[0].simple {
			o, ok = ix.evaluateConfig(&ix.cves[cve].configs[hits[0].config], hits[:n], qs)
		}
		if ok && (!found || o.cost < best.cost) {
			best, found = o, true
		}
		hits = hits[n:]
	}
	if !found {
		return Finding{}, false
	}
	return Finding{CVEID: ix.cveIDs[cve], Criteria: ix.critText[best.crit], MatchCriteriaID: ix.critID[best.crit],
		Platform: best.platform, FixedVersion: ix.criteria[best.crit].fixed}, true
}

// evaluateConfig tries every assignment of the unknown nodes and keeps the one needing the
// fewest assumptions under which the queried product's vulnerable match decides the result.
func (ix *Index) evaluateConfig(c *config, hits []hit, qs *queryState) (outcome, bool) {
	var buf [4]nodeState
	states, unknowns := ix.nodeStates(c, hits, qs, buf[:0])
	crit, vulnerable := ix.leastVulnerableMatch(states)
	if !vulnerable || unknowns > maxUnknownNodes {
		return outcome{}, false
	}
	cost, mask := cheapestAssumptions(c, states, unknowns)
	if cost < 0 {
		return outcome{}, false
	}
	o := outcome{cost: cost, crit: crit}
	if cost > 0 {
		o.platform = ix.platform(c.nodes, states, mask, qs)
	}
	return o, true
}

// nodeStates evaluates every node, handing each its first hit (hits are ordered by node).
func (ix *Index) nodeStates(c *config, hits []hit, qs *queryState, states []nodeState) ([]nodeState, int) {
	unknowns := 0
	for i := range c.nodes {
		for len(hits) > 0 && hits[0].node < uint32(i) {
			hits = hits[1:]
		}
		var first *hit
		if len(hits) > 0 && hits[0].node == uint32(i) {
			first = &hits[0]
		}
		s := ix.nodeState(&c.nodes[i], first, qs)
		if s.unknown {
			unknowns++
		}
		states = append(states, s)
	}
	return states, unknowns
}

// leastVulnerableMatch picks, across nodes, the matching vulnerable criterion first in text order.
func (ix *Index) leastVulnerableMatch(states []nodeState) (crit uint32, ok bool) {
	for i := range states {
		if states[i].hasVulnerable && (!ok || ix.rank[states[i].vulnerableMatch] < ix.rank[crit]) {
			crit, ok = states[i].vulnerableMatch, true
		}
	}
	return crit, ok
}

// cheapestAssumptions returns the fewest assumptions (and their mask) under which the
// configuration holds and would not without the queried product's vulnerable matches;
// cost -1 when no assignment does.
func cheapestAssumptions(c *config, states []nodeState, unknowns int) (cost int, mask uint32) {
	cost = -1
	for m := uint32(0); m < 1<<unknowns; m++ {
		if !combine(c, states, m, false) || combine(c, states, m, true) {
			continue
		}
		if n := assumptions(states, m); cost < 0 || n < cost {
			cost, mask = n, m
		}
	}
	return cost, mask
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

// nodeState evaluates a node for the query. first is the node's first hit, nil without one;
// a node of vulnerable criteria only is decided by it, other nodes naming the queried product
// are walked.
func (ix *Index) nodeState(n *node, first *hit, qs *queryState) nodeState {
	s := nodeState{and: n.and, negate: n.negate}
	known := knownCount(n, qs)
	s.unknown = known < uint32(len(n.matches))
	if !n.and && n.vulnerableOnly {
		s.actual = first != nil
		if first != nil {
			s.vulnerableMatch, s.hasVulnerable = first.crit, true
		}
		return s
	}
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

// knownCount is how many of the node's criteria name the queried product.
func knownCount(n *node, qs *queryState) uint32 {
	if len(n.products) == 1 {
		if qs.names(n.products[0].product) {
			return n.products[0].count
		}
		return 0
	}
	known := uint32(0)
	for _, p := range qs.products {
		i, found := slices.BinarySearchFunc(n.products, p, func(pc productCount, p uint32) int { return compareUint32(pc.product, p) })
		if found {
			known += n.products[i].count
		}
	}
	return known
}

// countMatched counts the node's criteria that the query matches, walking the node when it is
// no longer than the matched set and searching it for each matched criterion otherwise.
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

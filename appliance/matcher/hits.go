package matcher

import "slices"

// nodeRef names one node of one configuration of one CVE. simple copies config.simple, so
// that the commonest configurations are decided from their hits alone.
type nodeRef struct {
	cve, config, node uint32
	simple            bool
}

// hit says that a criterion the query matches is a vulnerable criterion of a node. The hits of
// a query are exactly the places where a CVE can be reported, so only their configurations
// are evaluated. rank copies the criterion's text rank to keep sorting local.
type hit struct {
	nodeRef
	crit, rank uint32
}

// hits lists the query's hits grouped by CVE (in id order), configuration and node, and within
// a node by criteria text.
func (ix *Index) hits(matched []uint32, out []hit) []hit {
	for _, crit := range matched {
		for _, ref := range ix.users[crit] {
			out = append(out, hit{nodeRef: ref, crit: crit, rank: ix.rank[crit]})
		}
	}
	// One criterion's users are already in order; so, often, are a few criteria's.
	if !slices.IsSortedFunc(out, compareHits) {
		slices.SortFunc(out, compareHits)
	}
	return out
}

func compareHits(a, b hit) int {
	switch {
	case a.cve != b.cve:
		return compareUint32(a.cve, b.cve)
	case a.config != b.config:
		return compareUint32(a.config, b.config)
	case a.node != b.node:
		return compareUint32(a.node, b.node)
	}
	return compareUint32(a.rank, b.rank)
}

// addUsers records, for every vulnerable criterion of a CVE, the nodes that use it.
func (ix *Index) addUsers(cve uint32, referenced []bool) {
	for ci, c := range ix.cves[cve].configs {
		for ni, n := range c.nodes {
			ref := nodeRef{cve: cve, config: uint32(ci), node: uint32(ni), simple: c.simple}
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

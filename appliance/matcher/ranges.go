package matcher

import "slices"

// rangeSet finds the version ranges that contain a key in O(k log n) for k hits: ranges
// sorted by least admitted key (so the ones admitting a key are a prefix) under a segment
// tree holding, per subtree, the greatest admitted key.
type rangeSet struct {
	ranges []rangeEntry
	widest []int32 // segment tree: greatest hi in the subtree
}

// rangeEntry admits the keys lo..hi, both included.
type rangeEntry struct {
	lo, hi int32
	crit   uint32
}

func newRangeSet(entries []rangeEntry) rangeSet {
	slices.SortStableFunc(entries, func(a, b rangeEntry) int { return int(a.lo) - int(b.lo) })
	rs := rangeSet{ranges: slices.Clip(entries)}
	if len(entries) > 0 {
		rs.widest = make([]int32, 4*len(entries))
		rs.build(1, 0, len(entries))
	}
	return rs
}

func (rs *rangeSet) build(node, l, r int) int32 {
	if r-l == 1 {
		rs.widest[node] = rs.ranges[l].hi
	} else {
		mid := (l + r) / 2
		rs.widest[node] = max(rs.build(2*node, l, mid), rs.build(2*node+1, mid, r))
	}
	return rs.widest[node]
}

// containing appends to out the criteria of every range that admits key.
func (rs *rangeSet) containing(key int32, out []uint32) []uint32 {
	prefix, _ := slices.BinarySearchFunc(rs.ranges, key, func(e rangeEntry, key int32) int {
		if e.lo <= key {
			return -1
		}
		return 1
	})
	if prefix == 0 {
		return out
	}
	return rs.collect(1, 0, len(rs.ranges), prefix, key, out)
}

func (rs *rangeSet) collect(node, l, r, prefix int, key int32, out []uint32) []uint32 {
	if l >= prefix || rs.widest[node] < key {
		return out
	}
	if r-l == 1 {
		return append(out, rs.ranges[l].crit)
	}
	mid := (l + r) / 2
	out = rs.collect(2*node, l, mid, prefix, key, out)
	return rs.collect(2*node+1, mid, r, prefix, key, out)
}

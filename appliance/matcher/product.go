package matcher

import (
	"math"
	"slices"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	"github.com/vulnkeeper/vulnkeeper/appliance/version"
)

// productEntry holds every criterion of one vendor:product, arranged by how it constrains the
// version. Every version the product's criteria name is ranked once at build time, so a lookup
// compares versions only to place the query among them (one binary search); exact versions
// and range bounds are then integers.
//
// Keys: the i-th distinct version has key 2i+1; a version between the (i-1)-th and the i-th
// has key 2i. Comparing keys is comparing versions.
type productEntry struct {
	name      appliance.Identity
	values    []version.Version // distinct named versions, ascending
	unbounded []uint32          // version "*" without bounds
	na        []uint32          // version "-"
	exactFrom []uint32          // criteria of values[i] are exact[exactFrom[i]:exactFrom[i+1]]
	exact     []uint32
	ranges    rangeSet
}

// productBuilder collects a product's criteria before they are ranked.
type productBuilder struct {
	name      appliance.Identity
	unbounded []uint32
	na        []uint32
	exact     []uint32
	ranged    []uint32
}

func (pb *productBuilder) add(id uint32, c *criterion) {
	switch c.kind {
	case versionAny:
		pb.unbounded = append(pb.unbounded, id)
	case versionNA:
		pb.na = append(pb.na, id)
	case versionExact:
		pb.exact = append(pb.exact, id)
	case versionRange:
		pb.ranged = append(pb.ranged, id)
	}
}

func (pb *productBuilder) build(criteria []criterion) productEntry {
	e := productEntry{name: pb.name, unbounded: slices.Clip(pb.unbounded), na: slices.Clip(pb.na)}
	e.values = distinctVersions(pb, criteria)
	e.exactFrom, e.exact = e.groupExact(pb.exact, criteria)
	ranges := make([]rangeEntry, len(pb.ranged))
	for i, id := range pb.ranged {
		c := &criteria[id]
		ranges[i] = rangeEntry{lo: e.loKey(c.lo), hi: e.hiKey(c.hi), crit: id}
	}
	e.ranges = newRangeSet(ranges)
	return e
}

func distinctVersions(pb *productBuilder, criteria []criterion) []version.Version {
	var values []version.Version
	for _, id := range pb.exact {
		values = append(values, criteria[id].exact)
	}
	for _, id := range pb.ranged {
		for _, b := range []bound{criteria[id].lo, criteria[id].hi} {
			if b.set {
				values = append(values, b.v)
			}
		}
	}
	slices.SortFunc(values, version.Version.Compare)
	return slices.Clip(slices.CompactFunc(values, func(a, b version.Version) bool { return a.Compare(b) == 0 }))
}

// groupExact lays out exact-version criteria by the rank of their version.
func (e *productEntry) groupExact(ids []uint32, criteria []criterion) (from, exact []uint32) {
	if len(ids) == 0 {
		return nil, nil
	}
	byRank := make([][]uint32, len(e.values))
	for _, id := range ids {
		i := e.key(criteria[id].exact) / 2
		byRank[i] = append(byRank[i], id)
	}
	from = make([]uint32, len(e.values)+1)
	exact = make([]uint32, 0, len(ids))
	for i, group := range byRank {
		exact = append(exact, group...)
		from[i+1] = uint32(len(exact))
	}
	return from, exact
}

// key places v among the product's named versions.
func (e *productEntry) key(v version.Version) int32 {
	i, found := slices.BinarySearchFunc(e.values, v, version.Version.Compare)
	if found {
		return int32(2*i + 1)
	}
	return int32(2 * i)
}

// loKey is the least key a lower bound admits; hiKey the greatest an upper bound admits.
func (e *productEntry) loKey(b bound) int32 {
	if !b.set {
		return 0
	}
	k := e.key(b.v)
	if !b.inclusive {
		k++
	}
	return k
}

func (e *productEntry) hiKey(b bound) int32 {
	if !b.set {
		return math.MaxInt32
	}
	k := e.key(b.v)
	if !b.inclusive {
		k--
	}
	return k
}

// versionCandidates appends the criteria whose version constraint admits the queried version;
// part and update are checked by the caller.
func (e *productEntry) versionCandidates(v queryVersion, out []uint32) []uint32 {
	out = append(out, e.unbounded...)
	if v.none {
		return append(out, e.na...)
	}
	k := e.key(v.parsed)
	if k%2 == 1 && len(e.exactFrom) > 0 {
		i := k / 2
		out = append(out, e.exact[e.exactFrom[i]:e.exactFrom[i+1]]...)
	}
	return e.ranges.containing(k, out)
}

// queryVersion is the queried version parsed once; none marks "" and "-" (no version).
type queryVersion struct {
	parsed version.Version
	none   bool
}

func parseQueryVersion(s string) queryVersion {
	if s == "" || s == "-" {
		return queryVersion{none: true}
	}
	return queryVersion{parsed: version.Parse(s)}
}

package matcher

import (
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance/version"
)

// versionKind says how a criterion constrains the version.
type versionKind uint8

const (
	versionExact versionKind = iota // one version, equal by version.Compare
	versionAny                      // "*" without bounds: every version
	versionRange                    // "*" with bounds
	versionNA                       // "-": the product has no version
)

// bound is one end of a version range; an unset bound does not constrain.
type bound struct {
	v         version.Version
	set       bool
	inclusive bool
}

// criterion is one distinct cpeMatch (criteria text plus bounds), parsed once.
type criterion struct {
	product uint32
	part    string
	update  string // unescaped; "*" any, "-" none
	kind    versionKind
	text    string
	id      string // matchCriteriaId
	fixed   string // versionEndExcluding of a range: the first version not affected
	exact   version.Version
	lo, hi  bound
}

// matchesPart accepts "*" on either side and an empty query part.
func (c *criterion) matchesPart(part string) bool {
	return part == "" || c.part == "*" || strings.EqualFold(c.part, part)
}

// matchesUpdate: "*" takes any update, "-" only none, a named update only itself.
func (c *criterion) matchesUpdate(update string) bool {
	switch c.update {
	case "*":
		return true
	case "-":
		return update == "" || update == "-"
	}
	return strings.EqualFold(c.update, update)
}

// compareLo orders lower bounds from least to most restrictive: unset first, then by version,
// inclusive before exclusive.
func compareLo(a, b bound) int {
	if a.set != b.set {
		return boolOrder(a.set, b.set)
	}
	if c := a.v.Compare(b.v); c != 0 || !a.set {
		return c
	}
	return boolOrder(!a.inclusive, !b.inclusive)
}

// compareHi orders upper bounds from most to least restrictive: exclusive before inclusive at
// one version, unset last.
func compareHi(a, b bound) int {
	if a.set != b.set {
		return boolOrder(!a.set, !b.set)
	}
	if c := a.v.Compare(b.v); c != 0 || !a.set {
		return c
	}
	return boolOrder(a.inclusive, b.inclusive)
}

// boolOrder sorts false before true.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// makeBound picks the stricter of an including and an excluding bound when NVD gives both;
// moreRestrictive(a, b) > 0 says a admits fewer versions than b.
func makeBound(including, excluding string, moreRestrictive func(a, b bound) int) bound {
	in, ex := parseBound(including, true), parseBound(excluding, false)
	switch {
	case !ex.set:
		return in
	case !in.set:
		return ex
	case moreRestrictive(in, ex) > 0:
		return in
	}
	return ex
}

func parseBound(s string, inclusive bool) bound {
	if s == "" {
		return bound{}
	}
	return bound{v: version.Parse(s), set: true, inclusive: inclusive}
}

func loBound(including, excluding string) bound {
	return makeBound(including, excluding, compareLo)
}

func hiBound(including, excluding string) bound {
	return makeBound(including, excluding, func(a, b bound) int { return compareHi(b, a) })
}

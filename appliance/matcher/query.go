// Package matcher is the in-memory vulnerability index: built from the stored CVE
// configurations, it answers "which CVEs affect this product at this version" in microseconds.
//
// Semantics for one product on a host (NVD configuration rules, seen from a single product):
//   - A criterion names the queried product when its vendor:product is one of the query's
//     aliases; it is then true or false: part ("*" or equal, any part when the query names none),
//     version (exact by version.Compare; "*" with any subset of the four bounds; "-" only for
//     a query version "" or "-"), and update ("*" any; "-" only a query without update; a named
//     update only the same Query.Update, case-insensitively). Edition, language and target
//     fields are not compared. A query without a version matches only "-" and unbounded "*".
//   - Criteria naming other products are unknown: the host may or may not have them. In each
//     node they act as one unknown (the node's other products present), which the matcher may
//     assume either way.
//   - A CVE is reported when some assumption about those unknowns makes its configuration
//     true while the queried product's matching vulnerable criteria are what make it true
//     (with them false it would be false). Platform-only criteria (vulnerable:false) can
//     therefore never produce a finding on their own.
//   - Assumptions are recorded in Finding.Platform, the fewest possible, one per node joined by
//     "; ": a node of other products assumed present reads "on vendor:product, …" (names
//     sorted, at most ten); a negated node whose products are assumed absent reads
//     "not on vendor:product, …". So a negated node means "the host does not have these":
//     naming the queried product it is simply false when the product matches; naming others
//     it is assumed to hold, and says so.
package matcher

import "github.com/vulnkeeper/vulnkeeper/appliance"

// Query asks for the CVEs of one installed product. Aliases are every (vendor, product) the
// identity has been published under; Part is "a", "o", "h" or "" for any.
type Query struct {
	Part    string
	Aliases []appliance.Identity
	Version string
	Update  string
}

// Finding is one CVE that affects the queried product.
type Finding struct {
	CVEID           string
	Criteria        string // the cpeMatch criteria that matched, as NVD writes it
	MatchCriteriaID string
	Platform        string // assumptions about other products, "" when none were needed
	// FixedVersion is the matched range's versionEndExcluding ("" for other criteria).
	FixedVersion string
}

// Stats describes a built index.
type Stats struct {
	CVEs, Configurations, Criteria, Products int
	// Unparsable counts criteria whose CPE name could not be read; they never match a query.
	Unparsable int
}

package matcher

import (
	"slices"
	"strconv"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// maxPlatformNames keeps Platform readable for configurations listing dozens of OS releases.
const maxPlatformNames = 10

// unparsableName stands in Platform for criteria whose CPE name could not be read.
const unparsableName = "(unparsable criteria)"

// platform spells out the assumptions of an outcome, one per assumed node in node order:
// "on a:b, c:d; not on e:f".
func (ix *Index) platform(nodes []node, states []nodeState, mask uint32, qs *queryState) string {
	text, bit := "", 0
	for i := range states {
		if !states[i].unknown {
			continue
		}
		x := mask&(1<<bit) != 0
		bit++
		if !states[i].assumption(x) {
			continue
		}
		t := ix.assumptionText(&nodes[i], qs)
		if text == "" {
			text = t
		} else {
			text += "; " + t
		}
	}
	return text
}

// assumptionText is the claim that assuming a node's other products makes. The text built
// with the index serves whenever the query names none of the node's products.
func (ix *Index) assumptionText(n *node, qs *queryState) string {
	if knownCount(n, qs) == 0 {
		return n.assumption
	}
	return assumptionText(ix.names, n, qs.names)
}

// assumptionText says "on a:b, c:d" (names sorted) or, for a negated node, "not on a:b",
// leaving out the products skip accepts.
func assumptionText(names []appliance.Identity, n *node, skip func(product uint32) bool) string {
	var others []string
	for _, pc := range n.products {
		if skip(pc.product) {
			continue
		}
		name := unparsableName
		if pc.product != noProduct {
			name = names[pc.product].String()
		}
		others = append(others, name)
	}
	if len(others) == 0 {
		return ""
	}
	slices.Sort(others)
	prefix := "on "
	if n.negate {
		prefix = "not on "
	}
	return prefix + joinNames(slices.Compact(others))
}

func joinNames(names []string) string {
	if len(names) <= maxPlatformNames {
		return strings.Join(names, ", ")
	}
	more := len(names) - maxPlatformNames
	return strings.Join(names[:maxPlatformNames], ", ") + " and " + strconv.Itoa(more) + " more"
}

package catalog

import (
	"context"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
)

// ctxCheckEvery bounds how many records pass between two looks at the context.
const ctxCheckEvery = 1024

type identityKey struct{ part, vendor, product string }

func keyOf(id appliance.CatalogEntry) identityKey { return identityKey{id.Part, id.Vendor, id.Product} }

// distinct remembers the keys already emitted, so a file names each identity once even when
// its rows differ only in case.
type distinct map[identityKey]struct{}

func (d distinct) firstTime(id appliance.CatalogEntry) bool {
	k := keyOf(id)
	if _, ok := d[k]; ok {
		return false
	}
	d[k] = struct{}{}
	return true
}

// productSet folds the many versions a dictionary lists for one product into one appliance.CatalogEntry,
// keeping first-seen order so output is deterministic.
type productSet struct {
	index map[identityKey]int
	list  []appliance.CatalogEntry
}

func newProductSet() *productSet {
	return &productSet{index: make(map[identityKey]int)}
}

// add merges an entry: the product stays deprecated only while every entry is, and keeps the
// shortest non-empty title.
func (s *productSet) add(id appliance.CatalogEntry) {
	k := keyOf(id)
	i, ok := s.index[k]
	if !ok {
		s.index[k] = len(s.list)
		s.list = append(s.list, id)
		return
	}
	s.list[i].Absorb(id)
}

// emit hands every collected identity to fn, watching ctx.
func (s *productSet) emit(ctx context.Context, fn func(appliance.CatalogEntry) error) (int, error) {
	for i, id := range s.list {
		if i%ctxCheckEvery == 0 && ctx.Err() != nil {
			return i, ctx.Err()
		}
		if err := fn(id); err != nil {
			return i, err
		}
	}
	return len(s.list), nil
}

// identityFromName turns a parsed CPE name into the identity it names; title is cleaned of
// white space runs and of a trailing copy of the name's version.
func identityFromName(n cpe.Name, title string, deprecated bool) (appliance.CatalogEntry, error) {
	id := appliance.CatalogEntry{Identity: appliance.Identity{Part: n.Part, Vendor: strings.ToLower(n.Vendor), Product: strings.ToLower(n.Product)}, Title: stripVersion(normalizeSpace(title), n.Version, n.Update), Deprecated: deprecated, Platform: appliance.PlatformOf(n.TargetSW)}
	return id, checkIdentity(id)
}

// checkIdentity refuses what cannot name a product. NA ("-") is tolerated because NVD data
// carries it as a placeholder vendor or product; ANY ("*") matches everything and names nothing.
func checkIdentity(id appliance.CatalogEntry) error {
	switch id.Part {
	case "a", "o", "h":
	default:
		return appliance.Invalid("part", "enum", "part %q is not one of a, o, h", id.Part)
	}
	if err := checkComponent("vendor", id.Vendor); err != nil {
		return err
	}
	return checkComponent("product", id.Product)
}

func checkComponent(field, value string) error {
	if value == "" || value == cpe.Any {
		return appliance.Invalid(field, "required", "%s %q names no product", field, value)
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; c <= ' ' || c > '~' {
			return appliance.Invalid(field, "charset",
				"%s %q has a character outside printable ASCII", field, value)
		}
	}
	return nil
}

package resolve

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Weights of the deterministic fuzzy score.
const (
	productWeight = 0.7
	vendorWeight  = 0.3
	titleBonus    = 0.05
	guardCap      = 0.5 // a candidate whose product words are not all reported scores at most this
	reviewCount   = 5   // candidates kept on an unresolved result
)

// fuzzy asks the index for candidates, scores them and accepts the best only when it is
// above the threshold and clearly ahead of the best candidate that is not an alias of it.
func (r *Resolver) fuzzy(ctx context.Context, q *query) (Result, error) {
	if r.index == nil || q.key.Product == "" {
		return Result{Method: appliance.ResolutionUnresolved}, nil
	}
	found, err := r.index.Candidates(ctx, q.key.Vendor, q.key.Product, r.opts.Candidates)
	if err != nil {
		return Result{}, fmt.Errorf("fuzzy candidates: %w", err)
	}
	scored := q.scoreAll(found)
	if len(scored) > 0 && r.accepts(q.cat, scored) {
		best := scored[0]
		return Result{Part: best.Part, Vendor: best.Vendor, Product: best.Product, Method: appliance.ResolutionFuzzy,
			Confidence: best.Score}, nil
	}
	if len(scored) > reviewCount {
		scored = scored[:reviewCount]
	}
	return Result{Method: appliance.ResolutionUnresolved, Candidates: scored}, nil
}

func (r *Resolver) accepts(cat *Catalog, scored []Candidate) bool {
	best := scored[0]
	if best.Score < r.opts.Threshold {
		return false
	}
	aliases := aliasSet(aliasesIn(cat, best.Vendor, best.Product))
	for _, c := range scored[1:] {
		if !aliases[appliance.Identity{Vendor: c.Vendor, Product: c.Product}] {
			return best.Score-c.Score >= r.opts.Margin
		}
	}
	return true
}

// scoreAll scores candidates, keeps one per (vendor, product) and sorts best first; ties
// break by name so the outcome never depends on the index's order.
func (q *query) scoreAll(found []Candidate) []Candidate {
	seen := make(map[appliance.Identity]bool, len(found))
	scored := make([]Candidate, 0, len(found))
	for _, c := range found {
		vp := appliance.Identity{Vendor: c.Vendor, Product: c.Product}
		if seen[vp] {
			continue
		}
		seen[vp] = true
		if id, ok := q.cat.Lookup(c.Vendor, c.Product); ok {
			c.Part, c.Title = id.Part, id.Title
		}
		c.Score = q.score(c)
		scored = append(scored, c)
	}
	sort.Slice(scored, func(i, j int) bool {
		a, b := scored[i], scored[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Vendor+":"+a.Product < b.Vendor+":"+b.Product
	})
	return scored
}

// score combines product-word similarity (Dice), vendor agreement and a title match.
func (q *query) score(c Candidate) float64 {
	candidate := significant(Words(c.Product))
	matched, guardOK := q.matchWords(candidate)
	denominator := len(candidate) + q.significantProductWords(candidate)
	s := 0.0
	if denominator > 0 {
		s = productWeight * 2 * matched / float64(denominator)
	}
	s += vendorWeight * q.vendorScore(c.Vendor)
	if c.Title != "" && q.titleMatches(c.Title) {
		s += titleBonus
	}
	if !guardOK || len(candidate) == 0 {
		s = min(s, guardCap)
	}
	return roundScore(min(s, 1))
}

// matchWords counts candidate words found in the reported product (1 each) or only in the
// publisher's name (0.5: "Amazon Web Services" does not make every "amazon_*" product
// match); guardOK says every candidate word was reported somewhere.
func (q *query) matchWords(candidate []string) (matched float64, guardOK bool) {
	product := set(q.productWords...)
	for _, s := range q.products {
		product[s] = true
	}
	vendor := set(q.vendorWords...)
	guardOK = true
	for _, w := range candidate {
		switch {
		case product[w]:
			matched++
		case vendor[w]:
			matched += 0.5
		default:
			guardOK = false
		}
	}
	return matched, guardOK
}

// significantProductWords counts reported product words, except plain numbers the
// candidate does not spell (a version-like "2016" should not dilute the match).
func (q *query) significantProductWords(candidate []string) int {
	inCandidate := set(candidate...)
	n := 0
	for _, w := range significant(q.productWords) {
		if !allDigits(w) || inCandidate[w] {
			n++
		}
	}
	return max(n, 1)
}

func (q *query) reportedWords() map[string]bool {
	words := set(q.productWords...)
	for _, w := range q.vendorWords {
		words[w] = true
	}
	for _, s := range q.products {
		words[s] = true
	}
	return words
}

func (q *query) vendorScore(vendor string) float64 {
	switch {
	case len(q.vendorWords) == 0 && containsAll(q.productWords, Words(vendor)):
		return 0.6
	case len(q.vendorWords) == 0:
		return 0.4
	case q.vendorAgrees(vendor):
		return 1
	default:
		return 0
	}
}

func (q *query) titleMatches(title string) bool {
	reported := q.reportedWords()
	for _, w := range significant(productTokens(title)) {
		if !reported[w] && !allDigits(w) {
			return false
		}
	}
	return true
}

// significant drops filler words that never decide an identity.
func significant(words []string) []string {
	kept := make([]string, 0, len(words))
	for _, w := range words {
		if !editionNoise[w] && !productNoise[w] {
			kept = append(kept, w)
		}
	}
	return kept
}

func containsAll(words, wanted []string) bool {
	have := set(words...)
	for _, w := range wanted {
		if !have[w] {
			return false
		}
	}
	return len(wanted) > 0
}

func roundScore(s float64) float64 {
	return float64(int(s*1000+0.5)) / 1000
}

// joinVP formats an identity for messages and tests.
func joinVP(vp appliance.Identity) string { return strings.Join([]string{vp.Vendor, vp.Product}, ":") }

package kbindex

import (
	"context"
	"fmt"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/vulnkeeper/vulnkeeper/appliance/resolve"
)

// Candidate is a possible identity; Score is Bleve's relevance, which the resolver replaces
// with its own deterministic score.
type Candidate = resolve.Candidate

// Field names and boosts: product words decide, vendor and title words support.
const (
	fieldProduct = "p"
	fieldVendor  = "v"
	fieldTitle   = "t"
	wordAnalyzer = "words"

	boostProduct       = 3.0
	boostVendor        = 1.5
	boostProductVendor = 1.0 // a product word that is a vendor word ("zoom")
	boostTitle         = 0.5
)

// document holds space-separated, already normalized words; the analyzer only splits them.
type document struct {
	P string `json:"p"`
	V string `json:"v"`
	T string `json:"t"`
}

func newDocument(id appliance.CatalogEntry) document {
	return document{
		P: strings.Join(words(id.Product), " "),
		V: strings.Join(words(id.Vendor), " "),
		T: strings.Join(resolve.Words(resolve.Normalize("", id.Title).Product), " "),
	}
}

// docID encodes the identity, so a hit needs no stored fields.
func docID(id appliance.CatalogEntry) string {
	return id.Part + "\x1f" + id.Vendor + "\x1f" + id.Product
}

func parseDocID(id string) (Candidate, bool) {
	parts := strings.SplitN(id, "\x1f", 3)
	if len(parts) != 3 {
		return Candidate{}, false
	}
	return Candidate{Part: parts[0], Vendor: parts[1], Product: parts[2]}, true
}

// words splits a CPE component into its "_" words plus the parts of hyphenated words.
func words(component string) []string {
	out := resolve.Words(strings.ToLower(component))
	for _, w := range out {
		if strings.Contains(w, "-") {
			out = append(out, strings.Split(w, "-")...)
		}
	}
	return out
}

func newMapping() mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	err := im.AddCustomAnalyzer(wordAnalyzer, map[string]any{
		"type": custom.Name, "tokenizer": whitespace.Name, "token_filters": []string{lowercase.Name},
	})
	if err != nil {
		panic(fmt.Sprintf("kbindex: analyzer definition: %v", err)) // a constant definition
	}
	doc := bleve.NewDocumentStaticMapping()
	for _, name := range []string{fieldProduct, fieldVendor, fieldTitle} {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = wordAnalyzer
		f.Store, f.IncludeInAll, f.IncludeTermVectors, f.DocValues = false, false, false, false
		doc.AddFieldMappingsAt(name, f)
	}
	im.DefaultMapping = doc
	im.DefaultAnalyzer = wordAnalyzer
	return im
}

// Candidates returns up to n identities sharing words with a normalized (vendor, product)
// as produced by resolve.Normalize, best Bleve score first.
func (ix *Index) Candidates(ctx context.Context, vendor, product string, n int) ([]Candidate, error) {
	q := candidateQuery(words(vendor), words(product))
	if q == nil || n <= 0 {
		return nil, nil
	}
	req := bleve.NewSearchRequestOptions(q, n, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := ix.bleve.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("kbindex candidates %q/%q: %w", vendor, product, err)
	}
	out := make([]Candidate, 0, len(res.Hits))
	for _, hit := range res.Hits {
		if c, ok := parseDocID(hit.ID); ok {
			c.Score = hit.Score
			out = append(out, c)
		}
	}
	return out, nil
}

// candidateQuery requires a shared product word (in product, vendor or title) and lets
// vendor words only raise the score: a vendor match alone proposes nothing useful and,
// for large vendors, would score thousands of documents.
func candidateQuery(vendorWords, productWords []string) query.Query {
	var productClauses, vendorClauses []query.Query
	for _, w := range productWords {
		productClauses = append(productClauses, term(fieldProduct, w, boostProduct),
			term(fieldVendor, w, boostProductVendor), term(fieldTitle, w, boostTitle))
	}
	if len(productClauses) == 0 {
		return nil
	}
	for _, w := range vendorWords {
		vendorClauses = append(vendorClauses, term(fieldVendor, w, boostVendor))
	}
	q := bleve.NewBooleanQuery()
	q.AddMust(bleve.NewDisjunctionQuery(productClauses...))
	if len(vendorClauses) > 0 {
		q.AddShould(vendorClauses...)
	}
	return q
}

func term(field, word string, boost float64) query.Query {
	t := bleve.NewTermQuery(word)
	t.SetField(field)
	t.SetBoost(boost)
	return t
}

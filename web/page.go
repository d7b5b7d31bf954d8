package web

import (
	"net/http"
	"strconv"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// page is a validated page request.
type page struct {
	Page, PerPage int
}

// parsePage reads page and per_page; per_page above max is capped, non-numbers are 400.
func parsePage(r *http.Request, def, max int) (page, error) {
	return parseNamedPage(r, "page", "per_page", def, max)
}

// parseNamedPage reads a page number and size from the named parameters (a list inside a
// detail: hosts_page, hosts_per_page), as parsePage does.
func parseNamedPage(r *http.Request, pageName, perPageName string, def, max int) (page, error) {
	p := page{Page: 1, PerPage: def}
	q := r.URL.Query()
	if v := q.Get(pageName); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, appliance.Invalid(pageName, "min", "%s must be a whole number of at least 1", pageName)
		}
		p.Page = n
	}
	if v := q.Get(perPageName); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, appliance.Invalid(perPageName, "min", "%s must be a whole number of at least 1", perPageName)
		}
		p.PerPage = min(n, max)
	}
	if p.Page > 1_000_000 {
		return p, appliance.Invalid(pageName, "max", "%s must be at most 1000000", pageName)
	}
	return p, nil
}

// pages is how many pages of perPage hold total items (the count appliance.Page gives).
func pages(total, perPage int) int {
	return appliance.Page[struct{}]{Total: total, PerPage: perPage}.Pages()
}

// queryBool reads an optional boolean query parameter.
func queryBool(r *http.Request, name string) (*bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return nil, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, appliance.Invalid(name, "type", "%s must be true or false", name)
	}
	return &b, nil
}

// queryInt reads an optional integer query parameter (0 when absent).
func queryInt(r *http.Request, name string) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, appliance.Invalid(name, "type", "%s must be a whole number", name)
	}
	return n, nil
}

// queryOrder reads order=asc|desc; asc is the default unless defDesc.
func queryOrder(r *http.Request, defDesc bool) (bool, error) {
	switch r.URL.Query().Get("order") {
	case "":
		return defDesc, nil
	case "asc":
		return false, nil
	case "desc":
		return true, nil
	}
	return false, appliance.Invalid("order", "enum", "order must be asc or desc")
}

package web

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// allowQuery refuses a query parameter the route does not read, naming it: a misspelt or
// unsupported filter (`?hostname=` on products) is a 400, not a silently unfiltered list.
func allowQuery(r *http.Request, names ...string) error {
	q := r.URL.Query()
	unknown := make([]string, 0, len(q))
	for name := range q {
		if !slices.Contains(names, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	if len(unknown[0]) > 64 {
		unknown[0] = unknown[0][:64] + "…"
	}
	return appliance.Invalid(unknown[0], "unknown_parameter", "unknown query parameter %q; this list reads %s",
		unknown[0], strings.Join(names, ", "))
}

// reviewPage reads the review queue's page; it reads no other parameter.
func reviewPage(r *http.Request) (page, error) {
	if err := allowQuery(r, "page", "per_page"); err != nil {
		return page{}, err
	}
	return parsePage(r, 100, 500)
}

// queryInstalled reads installed=true|false|any. Absent, it is true when the list filters on
// vulnerabilities (history, which no host has now, is not exposure) and any otherwise.
func queryInstalled(r *http.Request, vulnFilter bool) (*bool, error) {
	v := r.URL.Query().Get("installed")
	switch v {
	case "any":
		return nil, nil
	case "":
		if !vulnFilter {
			return nil, nil
		}
		yes := true
		return &yes, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, appliance.Invalid("installed", "enum", "installed must be true, false or any")
	}
	return &b, nil
}

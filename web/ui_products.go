package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

// productSortOptions are the sorts the product list offers.
var productSortOptions = []string{"name", "vendor", "version", "criticality", "created_at", "updated_at"}

type productsView struct {
	Items   []appliance.Product
	Q       url.Values
	Sorts   []string
	Pager   pager
	Invalid string
}

func (s *Server) productsPage(w http.ResponseWriter, r *http.Request) {
	v := productsView{Q: r.URL.Query(), Sorts: productSortOptions}
	f, err := productFilter(r, currentUser(r).OrganizationID)
	if err == nil {
		v.Items, v.Pager.Total, err = s.inventory.Products(r.Context(), f)
	}
	status, invalid, ok := s.listOutcome(w, r, err)
	if !ok {
		return
	}
	v.Invalid = invalid
	v.Pager = newPager(v.Q, max(f.Page, 1), max(f.PerPage, 1), v.Pager.Total)
	s.render(w, r, status, "products", view{Title: "Products", Nav: "products", Data: v})
}

type productView struct {
	inventory.ProductDetail
	CPE        string
	NotTracked bool
	HostsPager namedPager
}

// productPage shows a product, its findings riskiest first, and one page of its hosts.
func (s *Server) productPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "product")
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	pg, err := parseNamedPage(r, "hosts_page", "hosts_per_page", 50, inventory.MaxProductAssetsPerPage)
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	d, err := s.inventory.ProductPage(r.Context(), currentUser(r).OrganizationID, id, pg.Page, pg.PerPage)
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	v := productView{ProductDetail: d, CPE: inventory.CPE(d.Product), NotTracked: d.Resolution == appliance.ResolutionNotTracked,
		HostsPager: newNamedPager(r.URL.Query(), "hosts_page", d.AssetsPage)}
	s.render(w, r, http.StatusOK, "product", view{Title: d.Name + " " + d.Version, Nav: "products", Data: v})
}

func productPath(id int64) string { return "/products/" + strconv.FormatInt(id, 10) }

// productIdentitySubmit confirms (or, empty, re-resolves) a product's CPE identity: an
// organization override for every version reported that way.
func (s *Server) productIdentitySubmit(w http.ResponseWriter, r *http.Request) {
	s.updateProductForm(w, r, func(in *inventory.ProductInput) {
		c := r.PostFormValue("cpe")
		in.CPE = &c
	}, "Identity saved; the findings below are fresh.")
}

// productTrackingSubmit marks the product's reported name "not a product we track"
// (not_tracked=true) or tracks it again (false), for every version.
func (s *Server) productTrackingSubmit(w http.ResponseWriter, r *http.Request) {
	ignore := r.PostFormValue("not_tracked") == "true"
	msg := "Tracked again: every version was resolved afresh."
	if ignore {
		msg = "Not tracked: no version of this name is matched or waits for review."
	}
	s.updateProductForm(w, r, func(in *inventory.ProductInput) { in.NotTracked = &ignore }, msg)
}

func (s *Server) productCriticalitySubmit(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PostFormValue("criticality"))
	if err != nil {
		n = 0 // refused by the service's range check
	}
	s.updateProductForm(w, r, func(in *inventory.ProductInput) { in.Criticality = &n }, "Criticality saved.")
}

func (s *Server) updateProductForm(w http.ResponseWriter, r *http.Request, set func(*inventory.ProductInput), ok string) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "product")
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	var in inventory.ProductInput
	set(&in)
	u := currentUser(r)
	_, err = s.inventory.UpdateProduct(r.Context(), u.OrganizationID, u.ID, id, in)
	s.done(w, r, productPath(id), err, ok)
}

type reviewView struct {
	Items     []inventory.ReviewEntry
	Confirmed []inventory.ProductDetail
	Pager     pager
}

const reviewPerPage = 50

func (s *Server) reviewPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	pg, _ := strconv.Atoi(q.Get("page"))
	pg = max(pg, 1)
	orgID := currentUser(r).OrganizationID
	items, total, err := s.inventory.Review(r.Context(), orgID, pg, reviewPerPage)
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	v := reviewView{Items: items, Pager: newPager(q, pg, reviewPerPage, total)}
	ids := strings.Split(q.Get("confirmed"), ",")
	for _, f := range ids[:min(20, len(ids))] {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			continue
		}
		d, err := s.inventory.Product(r.Context(), orgID, id)
		if err != nil {
			continue // deleted meanwhile, or not ours
		}
		v.Confirmed = append(v.Confirmed, d)
	}
	s.render(w, r, http.StatusOK, "review", view{Title: "Review queue", Nav: "review", Data: v})
}

// decide applies a review decision (an identity or "not tracked") to the product and every
// version reported the same way.
func (s *Server) decide(r *http.Request, productID string, in inventory.ProductInput) (int64, error) {
	id, err := pathID(productID, "product")
	if err != nil {
		return 0, err
	}
	u := currentUser(r)
	_, err = s.inventory.UpdateProduct(r.Context(), u.OrganizationID, u.ID, id, in)
	return id, err
}

var notTrackedInput = inventory.ProductInput{NotTracked: new(true)}

// reviewConfirmSubmit confirms one name: a candidate in one click or a typed CPE.
func (s *Server) reviewConfirmSubmit(w http.ResponseWriter, r *http.Request) {
	cpe := strings.TrimSpace(r.PostFormValue("cpe"))
	if cpe == "" {
		s.done(w, r, "/review", appliance.Invalid("cpe", "required", "type a CPE or pick a candidate"), "")
		return
	}
	id, err := s.decide(r, r.PostFormValue("product_id"), inventory.ProductInput{CPE: &cpe})
	s.done(w, r, "/review?confirmed="+strconv.FormatInt(id, 10), err, "Confirmed "+cpe+".")
}

// reviewNotTrackedSubmit marks one name "not a product we track": it leaves the queue.
func (s *Server) reviewNotTrackedSubmit(w http.ResponseWriter, r *http.Request) {
	_, err := s.decide(r, r.PostFormValue("product_id"), notTrackedInput)
	s.done(w, r, "/review", err, "Marked “not a product we track”; it left the queue.")
}

// reviewBulkSubmit confirms the best candidate of every selected name, or (action
// not_tracked) marks them all "not a product we track"; each pick is "product id", then
// SPACE and the best candidate's cpe when there is one. Confirming skips names without one.
func (s *Server) reviewBulkSubmit(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.done(w, r, "/review", appliance.Invalid("pick", "form", "the form could not be read"), "")
		return
	}
	picks := r.PostForm["pick"]
	if len(picks) == 0 || len(picks) > reviewPerPage {
		s.done(w, r, "/review", appliance.Invalid("pick", "count", "select between 1 and %d names", reviewPerPage), "")
		return
	}
	ignore := r.PostForm.Get("action") == "not_tracked"
	var done []string
	for _, p := range picks {
		pid, cpe, _ := strings.Cut(p, " ")
		in := notTrackedInput
		if !ignore {
			if cpe == "" {
				continue
			}
			in = inventory.ProductInput{CPE: &cpe}
		}
		id, err := s.decide(r, pid, in)
		if err != nil {
			s.done(w, r, "/review?confirmed="+strings.Join(done, ","), err, "")
			return
		}
		done = append(done, strconv.FormatInt(id, 10))
	}
	if ignore {
		s.done(w, r, "/review", nil, "Marked "+strconv.Itoa(len(done))+" names “not a product we track”.")
		return
	}
	if len(done) == 0 {
		s.done(w, r, "/review", appliance.Invalid("pick", "candidate", "none of the selected names has a candidate: type a CPE for it, or mark it not tracked"), "")
		return
	}
	s.done(w, r, "/review?confirmed="+strings.Join(done, ","), nil, "Confirmed "+strconv.Itoa(len(done))+" names.")
}

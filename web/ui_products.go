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
	status := http.StatusOK
	if err != nil {
		var msg string
		var ok bool
		if status, msg, ok = publicError(err); !ok {
			s.uiFail(w, r, err)
			return
		}
		v.Invalid = msg
	}
	v.Pager = newPager(v.Q, max(f.Page, 1), max(f.PerPage, 1), v.Pager.Total)
	s.render(w, r, status, "products", view{Title: "Products", Nav: "products", Data: v})
}

const hostsPerPage = 50

type productView struct {
	inventory.ProductDetail
	CPE   string
	Hosts []appliance.AssetRef
	Pager pager
}

func (s *Server) productPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "product")
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	d, err := s.inventory.Product(r.Context(), currentUser(r).OrganizationID, id)
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	pg, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pg = max(pg, 1)
	from := min((pg-1)*hostsPerPage, len(d.Assets))
	v := productView{ProductDetail: d, CPE: inventory.CPE(d.Product), Hosts: d.Assets[from:min(from+hostsPerPage, len(d.Assets))],
		Pager: newPager(r.URL.Query(), pg, hostsPerPage, len(d.Assets))}
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

// confirmIdentity gives the product (and every version reported the same way) cpe.
func (s *Server) confirmIdentity(r *http.Request, productID, cpe string) (int64, error) {
	id, err := pathID(productID, "product")
	if err != nil {
		return 0, err
	}
	u := currentUser(r)
	_, err = s.inventory.UpdateProduct(r.Context(), u.OrganizationID, u.ID, id, inventory.ProductInput{CPE: &cpe})
	return id, err
}

// reviewConfirmSubmit confirms one name: a candidate in one click or a typed CPE.
func (s *Server) reviewConfirmSubmit(w http.ResponseWriter, r *http.Request) {
	cpe := strings.TrimSpace(r.PostFormValue("cpe"))
	if cpe == "" {
		s.done(w, r, "/review", appliance.Invalid("cpe", "required", "type a CPE or pick a candidate"), "")
		return
	}
	id, err := s.confirmIdentity(r, r.PostFormValue("product_id"), cpe)
	s.done(w, r, "/review?confirmed="+strconv.FormatInt(id, 10), err, "Confirmed "+cpe+".")
}

// reviewBulkSubmit confirms the best candidate of every selected name; each pick is
// "product id" SPACE "cpe".
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
	var done []string
	for _, p := range picks {
		pid, cpe, _ := strings.Cut(p, " ")
		id, err := s.confirmIdentity(r, pid, cpe)
		if err != nil {
			s.done(w, r, "/review?confirmed="+strings.Join(done, ","), err, "")
			return
		}
		done = append(done, strconv.FormatInt(id, 10))
	}
	s.done(w, r, "/review?confirmed="+strings.Join(done, ","), nil, "Confirmed "+strconv.Itoa(len(done))+" names.")
}

package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/exposure"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

// findingRowJSON is one finding of the organization: a CVE of an installed product.
type findingRowJSON struct {
	MatchID     int64     `json:"match_id"`
	ProductID   int64     `json:"product_id"`
	Vendor      string    `json:"vendor"`
	Product     string    `json:"product"`
	Version     string    `json:"version"`
	CPE         *string   `json:"cpe"`
	Criticality int       `json:"criticality"`
	HostCount   int       `json:"host_count"`
	CVEID       string    `json:"cve_id"`
	Severity    string    `json:"severity"`
	Score       *float64  `json:"score"`
	KEV         bool      `json:"kev"`
	KEVDueDate  *string   `json:"kev_due_date"`
	EPSS        *epssJSON `json:"epss"`
	findingJSON
}

func toFindingRowJSON(r appliance.FindingRow) findingRowJSON {
	j := findingRowJSON{MatchID: r.MatchID, ProductID: r.Product.ID, Vendor: r.Product.Vendor, Product: r.Product.Name,
		Version: r.Product.Version, Criticality: r.Product.Criticality, HostCount: r.Product.AssetCount, CVEID: r.CVEID,
		Severity: r.Severity, KEV: r.KEV, EPSS: toEPSSJSON(r.EPSS), findingJSON: toFindingJSON(r.Finding)}
	if c := inventory.CPE(r.Product); c != "" {
		j.CPE = &c
	}
	if r.HasScore {
		s := r.Score
		j.Score = &s
	}
	if !r.KEVDue.IsZero() {
		d := r.KEVDue.Format(time.DateOnly)
		j.KEVDueDate = &d
	}
	return j
}

// listFindings serves GET /api/findings: every finding of the organization, paged as JSON or
// streamed whole as CSV (format=csv), with the same filters.
func (s *Server) listFindings(w http.ResponseWriter, r *http.Request) {
	pg, err := listQuery(r, "search", "severity", "kev", "fix_available", "include_suppressed", "format")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	f := appliance.FindingFilter{OrganizationID: currentUser(r).OrganizationID, Search: q.Get("search"), Severity: q.Get("severity"),
		Page: pg.Page, PerPage: pg.PerPage}
	if f.KEV, err = queryBool(r, "kev"); err == nil {
		if f.FixAvailable, err = queryBool(r, "fix_available"); err == nil {
			f.IncludeSuppressed, err = includeSuppressed(r)
		}
	}
	format := "json"
	if err == nil {
		format, err = listFormat(r)
	}
	if err == nil {
		err = exposure.ValidateFindingFilter(f)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if format == "csv" {
		s.exportFindings(w, r, f)
		return
	}
	rows, total, err := s.exposure.Findings(r.Context(), f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pageOf(appliance.Page[appliance.FindingRow]{Items: rows, Total: total, Page: f.Page,
		PerPage: f.PerPage}, toFindingRowJSON))
}

var findingRowCSVHeader = []string{"match_id", "product_id", "vendor", "product", "version", "cpe", "criticality", "host_count",
	"cve_id", "severity", "score", "kev", "kev_due_date", "epss_score", "epss_percentile", "epss_date", "source", "basis",
	"fixed_version", "fix_state"}

// exportFindings streams the organization's findings as CSV, one row in memory at a time.
func (s *Server) exportFindings(w http.ResponseWriter, r *http.Request, f appliance.FindingFilter) {
	out := startCSV(w, "findings.csv", findingRowCSVHeader...)
	err := s.exposure.EachFinding(r.Context(), f, func(row appliance.FindingRow) error {
		j := toFindingRowJSON(row)
		score, epss := "", []string{"", "", ""}
		if j.Score != nil {
			score = strconv.FormatFloat(*j.Score, 'f', -1, 64)
		}
		if j.EPSS != nil {
			epss = []string{strconv.FormatFloat(j.EPSS.Score, 'f', -1, 64), strconv.FormatFloat(j.EPSS.Percentile, 'f', -1, 64), j.EPSS.Date}
		}
		return out.row(strconv.FormatInt(j.MatchID, 10), strconv.FormatInt(j.ProductID, 10), j.Vendor, j.Product, j.Version,
			csvStr(j.CPE), strconv.Itoa(j.Criticality), strconv.Itoa(j.HostCount), j.CVEID, j.Severity, score,
			strconv.FormatBool(j.KEV), csvStr(j.KEVDueDate), epss[0], epss[1], epss[2], j.Source, j.Basis,
			csvStr(j.FixedVersion), j.FixState)
	})
	out.end(s, r, err)
}

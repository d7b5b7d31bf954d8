package web

import (
	"encoding/csv"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
)

// listFormat reads format=json|csv of a list route (json when absent).
func listFormat(r *http.Request) (string, error) {
	switch f := r.URL.Query().Get("format"); f {
	case "", "json":
		return "json", nil
	case "csv":
		return "csv", nil
	default:
		return "", appliance.Invalid("format", "enum", "format must be json or csv")
	}
}

// csvStream writes a CSV export as it is produced, flushed every csvFlushRows rows, so a large
// export holds one row in memory.
type csvStream struct {
	w  *csv.Writer
	rc *http.ResponseController
	n  int
}

const csvFlushRows = 500

func startCSV(w http.ResponseWriter, filename string, header ...string) *csvStream {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	w.WriteHeader(http.StatusOK)
	c := &csvStream{w: csv.NewWriter(w), rc: http.NewResponseController(w)}
	_ = c.w.Write(header)
	return c
}

func (c *csvStream) row(fields ...string) error {
	for i, f := range fields {
		fields[i] = csvCell(f)
	}
	if err := c.w.Write(fields); err != nil {
		return err
	}
	if c.n++; c.n%csvFlushRows == 0 {
		c.w.Flush()
		_ = c.rc.Flush()
	}
	return c.w.Error()
}

// end flushes the rest; a failure after the header went out cannot become an error body, so
// the connection is cut (the client sees a failed download, not a silently short file).
func (c *csvStream) end(s *Server, r *http.Request, err error) {
	c.w.Flush()
	if err == nil {
		err = c.w.Error()
	}
	if err != nil {
		s.log.Error("CSV export failed", slog.String("path", r.URL.Path), slog.Int("rows", c.n), slog.Any("error", err))
		panic(http.ErrAbortHandler)
	}
}

// csvCell keeps a spreadsheet from reading a reported text as a formula: a cell starting with
// = + - @ (or a tab or carriage return) gets a leading apostrophe.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

var productCSVHeader = []string{"id", "vendor", "name", "version", "cpe", "criticality", "asset_count",
	"vulnerability_count", "resolution", "resolution_confidence", "created_at", "updated_at"}

// exportProducts streams the filtered products as CSV, every page.
func (s *Server) exportProducts(w http.ResponseWriter, r *http.Request, f appliance.ProductFilter) {
	out := startCSV(w, "products.csv", productCSVHeader...)
	err := s.inventory.EachProduct(r.Context(), f, func(p appliance.Product) error {
		j := toProductJSON(p)
		return out.row(strconv.FormatInt(j.ID, 10), j.Vendor, j.Name, j.Version, csvStr(j.CPE), strconv.Itoa(j.Criticality),
			strconv.Itoa(j.AssetCount), strconv.Itoa(j.VulnerabilityCount), j.Resolution,
			strconv.FormatFloat(j.ResolutionConfidence, 'f', -1, 64), j.CreatedAt.UTC().Format(time.RFC3339), j.UpdatedAt.UTC().Format(time.RFC3339))
	})
	out.end(s, r, err)
}

var containerCSVHeader = []string{"id", "image_name", "image_tag", "image_id", "hostname", "last_scanned",
	"critical", "high", "medium", "low", "unknown"}

// exportContainers streams the filtered container images as CSV, every page.
func (s *Server) exportContainers(w http.ResponseWriter, r *http.Request, f appliance.ContainerFilter) {
	out := startCSV(w, "containers.csv", containerCSVHeader...)
	err := s.containers.Each(r.Context(), f, func(img appliance.ContainerImage) error {
		c := img.Counts
		return out.row(strconv.FormatInt(img.ID, 10), img.Name, img.Tag, img.ImageID, img.Hostname, csvTime(img.LastScanned),
			strconv.Itoa(c.Critical), strconv.Itoa(c.High), strconv.Itoa(c.Medium), strconv.Itoa(c.Low), strconv.Itoa(c.Unknown))
	})
	out.end(s, r, err)
}

var assignmentCSVHeader = []string{"id", "status", "assigned_to", "match_id", "product_id", "product_name", "cve_id",
	"priority", "due_date", "kev_due_date", "overdue", "notes", "created_by", "created_at", "updated_at", "resolved_at"}

// exportAssignments streams the filtered remediation assignments as CSV, every page.
func (s *Server) exportAssignments(w http.ResponseWriter, r *http.Request, f appliance.AssignmentFilter) {
	out := startCSV(w, "assignments.csv", assignmentCSVHeader...)
	err := s.remediation.Each(r.Context(), f, func(rec remediation.Record) error {
		j := toAssignmentJSON(rec)
		resolved := ""
		if j.ResolvedAt != nil {
			resolved = csvTime(*j.ResolvedAt)
		}
		return out.row(strconv.FormatInt(j.ID, 10), j.Status, csvStr(j.AssignedTo), csvInt(j.MatchID), csvInt(j.ProductID),
			csvStr(j.ProductName), csvStr(j.CVEID), j.Priority, j.DueDate, csvStr(j.KEVDueDate), strconv.FormatBool(j.Overdue),
			j.Notes, csvStr(j.CreatedBy), csvTime(j.CreatedAt), csvTime(j.UpdatedAt), resolved)
	})
	out.end(s, r, err)
}

var findingCSVHeader = []string{"product_id", "product", "version", "match_id", "cve_id", "severity", "score", "kev",
	"kev_due_date", "epss_score", "epss_percentile", "epss_date", "source", "basis", "fixed_version", "fix_state", "criteria"}

// exportProductFindings writes one product's findings as CSV, riskiest first; suppressed ones
// only when asked.
func (s *Server) exportProductFindings(w http.ResponseWriter, r *http.Request, d inventory.ProductDetail, include bool) {
	out := startCSV(w, fmt.Sprintf("product-%d-findings.csv", d.Product.ID), findingCSVHeader...)
	var err error
	now := s.triageNow()
	for _, v := range d.Vulnerabilities {
		if !include && v.Triage.SuppressedAt(now) {
			continue
		}
		j := toProductVulnJSON(v, now)
		score, epss := "", []string{"", "", ""}
		if j.Score != nil {
			score = strconv.FormatFloat(*j.Score, 'f', -1, 64)
		}
		if j.EPSS != nil {
			epss = []string{strconv.FormatFloat(j.EPSS.Score, 'f', -1, 64), strconv.FormatFloat(j.EPSS.Percentile, 'f', -1, 64), j.EPSS.Date}
		}
		err = out.row(strconv.FormatInt(d.Product.ID, 10), d.Product.Name, d.Product.Version, strconv.FormatInt(j.MatchID, 10),
			j.CVEID, j.Severity, score, strconv.FormatBool(j.KEV != nil), csvStr(j.KEVDueDate), epss[0], epss[1], epss[2],
			j.Source, j.Basis, csvStr(j.FixedVersion), j.FixState, j.Criteria)
		if err != nil {
			break
		}
	}
	out.end(s, r, err)
}

func csvTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func csvInt(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

func csvStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// assetsExportPage is how many hosts an export reads at a time.
var assetsExportPage = 500

var assetCSVHeader = []string{"id", "hostname", "kind", "tags", "os_name", "os_version", "os_id", "os_version_id", "agent_version",
	"last_seen_at", "last_inventory_at", "products", "findings", "critical", "high", "medium", "low", "kev"}

// exportAssets streams the hosts the filter selects as CSV, a page of hosts in memory at a
// time; first is the first page, already read (it validated the filter).
func (s *Server) exportAssets(w http.ResponseWriter, r *http.Request, f appliance.AssetFilter, first []appliance.Asset, total int) {
	out := startCSV(w, "hosts.csv", assetCSVHeader...)
	items, err := first, error(nil)
	for {
		for _, a := range items {
			c := a.Findings
			inv := ""
			if !a.LastInventoryAt.IsZero() {
				inv = csvTime(a.LastInventoryAt)
			}
			if err = out.row(strconv.FormatInt(a.ID, 10), a.Hostname, string(a.Kind.Or()), strings.Join(a.Tags, " "), a.OSName, a.OSVersion, a.OS.ID, a.OS.VersionID,
				a.AgentVersion, csvTime(a.LastSeenAt), inv, strconv.Itoa(a.ProductCount), strconv.Itoa(c.Total), strconv.Itoa(c.Critical),
				strconv.Itoa(c.High), strconv.Itoa(c.Medium), strconv.Itoa(c.Low), strconv.Itoa(c.KEV)); err != nil {
				break
			}
		}
		if err != nil || f.Page*f.PerPage >= total {
			break
		}
		f.Page++
		if items, total, err = s.exposure.Assets(r.Context(), f); err != nil {
			break
		}
	}
	out.end(s, r, err)
}

package web

import (
	"encoding/csv"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
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
		cpe := ""
		if j.CPE != nil {
			cpe = *j.CPE
		}
		return out.row(strconv.FormatInt(j.ID, 10), j.Vendor, j.Name, j.Version, cpe, strconv.Itoa(j.Criticality),
			strconv.Itoa(j.AssetCount), strconv.Itoa(j.VulnerabilityCount), j.Resolution,
			strconv.FormatFloat(j.ResolutionConfidence, 'f', -1, 64), j.CreatedAt.UTC().Format(time.RFC3339), j.UpdatedAt.UTC().Format(time.RFC3339))
	})
	out.end(s, r, err)
}

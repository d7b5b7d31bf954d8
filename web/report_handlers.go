package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/report"
)

//go:embed reports/*.html
var reportFiles embed.FS

// complianceTemplate is the printable one-page report; its style is the linked
// /static/report.css, so the page needs no inline style or script under the UI's CSP.
var complianceTemplate = template.Must(template.ParseFS(reportFiles, "reports/compliance.html"))

// complianceView is the report with what the template shows beside it.
type complianceView struct {
	report.Compliance
	CSS       string
	AgeLabels []string
	AgeTotals []int
}

func newComplianceView(c report.Compliance, css string) complianceView {
	v := complianceView{Compliance: c, CSS: css, AgeTotals: make([]int, len(report.AgeBuckets)+1)}
	low := 0
	for _, limit := range report.AgeBuckets {
		v.AgeLabels = append(v.AgeLabels, fmt.Sprintf("%d–%d d", low, limit))
		low = limit + 1
	}
	v.AgeLabels = append(v.AgeLabels, fmt.Sprintf("over %d d", low-1))
	for _, row := range c.Severities {
		for i, n := range row.Ages {
			v.AgeTotals[i] += n
		}
	}
	return v
}

// complianceReport renders the caller's organization's compliance report as one HTML page.
func (s *Server) complianceReport(w http.ResponseWriter, r *http.Request) {
	if err := allowQuery(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	if s.reports == nil {
		s.writeError(w, r, appliance.NotFound("reports are not served here"))
		return
	}
	c, err := s.reports.Compliance(r.Context(), currentUser(r).OrganizationID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	css := "/static/report.css"
	if s.ui != nil {
		css += "?v=" + s.ui.version
	}
	var buf bytes.Buffer
	if err := complianceTemplate.Execute(&buf, newComplianceView(c, css)); err != nil {
		s.writeError(w, r, fmt.Errorf("render compliance report: %w", err))
		return
	}
	w.Header().Set("Content-Security-Policy", uiCSP)
	w.Header().Set("Cache-Control", "no-store")
	writeBody(w, r, http.StatusOK, "text/html; charset=utf-8", buf.Bytes(), nil)
}

// Package risk scores findings: how bad a vulnerability is (CVSS), how likely it is to be
// exploited (CISA KEV, FIRST EPSS) and how much the product matters (its criticality), added
// up as points so every score shows where it comes from. The README documents the formula.
package risk

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// The weights of the formula (points; a score is at most 100).
const (
	// SeverityWeight turns a CVSS base score (0–10) into 0–50 points.
	SeverityWeight = 5.0
	// KEVPoints are given to a CVE CISA KEV lists; RansomwarePoints more when KEV knows it
	// used in ransomware campaigns.
	KEVPoints        = 25.0
	RansomwarePoints = 5.0
	// EPSSWeight turns the EPSS probability (0–1) into 0–25 points, for CVEs KEV does not list.
	EPSSWeight = 25.0
	// CriticalityWeight gives (criticality − 1) × 5, 0–20 points, for criticality 1–5.
	CriticalityWeight = 5.0
)

// SeverityScores stand in for a CVSS score when the CVE data has only a severity (or none:
// unknown).
var SeverityScores = map[string]float64{"critical": 9.0, "high": 7.5, "medium": 5.5, "low": 2.5, "none": 0}

// UnknownSeverityScore stands in for a CVE without score or known severity.
const UnknownSeverityScore = 5.0

// Input is what a finding's risk is computed from.
type Input struct {
	CVSS        *appliance.CVSS
	Severity    string // lowercase; used without CVSS
	KEV         *appliance.KEVStatus
	EPSS        *appliance.EPSSScore
	Criticality int // 1–5; 0 when the finding has no product (container images)
}

// Score adds up the points of a finding.
func Score(in Input) appliance.Risk {
	var factors []appliance.RiskFactor
	add := func(f appliance.RiskFactor) { factors = append(factors, f) }
	if in.CVSS != nil {
		add(appliance.RiskFactor{Name: "cvss", Value: in.CVSS.Score, Points: in.CVSS.Score * SeverityWeight,
			Detail: cvssDetail(in.CVSS)})
	} else {
		s, ok := SeverityScores[in.Severity]
		detail := fmt.Sprintf("no CVSS score; severity %s counts as %.1f", in.Severity, s)
		if !ok {
			s, detail = UnknownSeverityScore, fmt.Sprintf("no CVSS score or severity; counts as %.1f", UnknownSeverityScore)
		}
		add(appliance.RiskFactor{Name: "severity", Value: s, Points: s * SeverityWeight, Detail: detail})
	}
	switch {
	case in.KEV != nil:
		detail := "listed in CISA KEV (known exploited)"
		if !in.KEV.DueDate.IsZero() {
			detail += ", due " + in.KEV.DueDate.Format(time.DateOnly)
		}
		add(appliance.RiskFactor{Name: "kev", Value: 1, Points: KEVPoints, Detail: detail})
		if in.KEV.Ransomware {
			add(appliance.RiskFactor{Name: "ransomware", Value: 1, Points: RansomwarePoints,
				Detail: "known use in ransomware campaigns"})
		}
	case in.EPSS != nil:
		add(appliance.RiskFactor{Name: "epss", Value: in.EPSS.Score, Points: in.EPSS.Score * EPSSWeight,
			Detail: fmt.Sprintf("EPSS %.1f%% chance of exploitation in 30 days (percentile %.2f, %s)",
				in.EPSS.Score*100, in.EPSS.Percentile, in.EPSS.Date.Format(time.DateOnly))})
	default:
		add(appliance.RiskFactor{Name: "epss", Value: 0, Points: 0, Detail: "no exploit evidence (not in KEV, no EPSS score)"})
	}
	if in.Criticality > 0 {
		add(appliance.RiskFactor{Name: "criticality", Value: float64(in.Criticality),
			Points: float64(in.Criticality-1) * CriticalityWeight, Detail: fmt.Sprintf("product criticality %d of 5", in.Criticality)})
	}
	total := 0.0
	for i := range factors {
		factors[i].Points = math.Round(factors[i].Points*10) / 10
		total += factors[i].Points
	}
	return appliance.Risk{Score: int(math.Min(100, math.Round(total))), Factors: factors}
}

func cvssDetail(c *appliance.CVSS) string {
	s := fmt.Sprintf("CVSS %s base score %.1f", c.Version, c.Score)
	if c.Source != "" {
		s += " (" + c.Source + ")"
	}
	return s
}

// Product scores a product's finding at the product's criticality.
func Product(v appliance.ProductVulnerability, criticality int) appliance.Risk {
	return Score(Input{CVSS: v.CVSS, Severity: v.Severity, KEV: v.KEVEntry, EPSS: v.EPSS, Criticality: criticality})
}

// Container scores a container image's finding, which has no product criticality.
func Container(f appliance.ContainerFinding) appliance.Risk {
	return Score(Input{CVSS: f.CVSS, Severity: strings.ToLower(f.Severity), KEV: f.KEVEntry, EPSS: f.EPSS})
}

package containers

import "strings"

// Severities as stored and shown (uppercase, as Trivy writes them).
const (
	SeverityCritical = "CRITICAL"
	SeverityHigh     = "HIGH"
	SeverityMedium   = "MEDIUM"
	SeverityLow      = "LOW"
	SeverityUnknown  = "UNKNOWN"
)

// NormalizeSeverity uppercases a scanner's severity. Grype's "Negligible" (below Low) becomes
// LOW, so it is still counted and listed rather than hidden among unknowns; anything else
// unrecognized, or empty, becomes UNKNOWN.
func NormalizeSeverity(s string) string {
	switch upper := strings.ToUpper(strings.TrimSpace(s)); upper {
	case SeverityCritical, SeverityHigh, SeverityMedium, SeverityLow:
		return upper
	case "NEGLIGIBLE":
		return SeverityLow
	default:
		return SeverityUnknown
	}
}

// Counts is the number of findings per severity.
type Counts struct {
	Critical, High, Medium, Low, Unknown int
}

// Total is the number of findings counted.
func (c Counts) Total() int {
	return c.Critical + c.High + c.Medium + c.Low + c.Unknown
}

// CountBySeverity counts findings per normalized severity.
func CountBySeverity(vs []Vulnerability) Counts {
	var c Counts
	for _, v := range vs {
		switch NormalizeSeverity(v.Severity) {
		case SeverityCritical:
			c.Critical++
		case SeverityHigh:
			c.High++
		case SeverityMedium:
			c.Medium++
		case SeverityLow:
			c.Low++
		default:
			c.Unknown++
		}
	}
	return c
}

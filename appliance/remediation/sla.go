package remediation

import (
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Policy is the SLA: days allowed to remediate a finding, per severity. The windows need not
// be ordered (a shop may give low findings less time than medium ones).
type Policy struct {
	Critical, High, Medium, Low int // days
}

const maxWindowDays = 3650

// DefaultPolicy is 15/30/90/180 days.
func DefaultPolicy() Policy {
	return Policy{Critical: 15, High: 30, Medium: 90, Low: 180}
}

// Validate requires every window to be 1 to 3650 days.
func (p Policy) Validate() error {
	for _, w := range []struct {
		name string
		days int
	}{{"critical", p.Critical}, {"high", p.High}, {"medium", p.Medium}, {"low", p.Low}} {
		if w.days < 1 || w.days > maxWindowDays {
			return appliance.Invalid("sla."+w.name, "range", "SLA window for %s must be 1 to %d days, got %d",
				w.name, maxWindowDays, w.days)
		}
	}
	return nil
}

// Days is the window for a CVSS severity (lowercase). "none", empty and unknown severities get
// the low window: a finding without a score still has to be looked at, but not first.
func (p Policy) Days(severity string) int {
	switch normalizeSeverity(severity) {
	case "critical":
		return p.Critical
	case "high":
		return p.High
	case "medium":
		return p.Medium
	}
	return p.Low
}

// Finding is what the SLA needs of one vulnerability a target covers.
type Finding struct {
	Severity string    // CVSS severity, lowercase: critical, high, medium, low, none or empty
	KEV      bool      // listed in CISA's Known Exploited Vulnerabilities catalogue
	KEVDue   time.Time // CISA's due date; zero when unknown; ignored unless KEV
}

// DueDate derives a due date (a UTC calendar day) from the finding and the day of now.
// A KEV finding gets the critical window whatever its severity (or its own, if shorter), and
// CISA's due date when that is earlier still but not already past: CISA dates are federal
// deadlines counted from the day of listing, so a past one says nothing about new work.
// p is assumed valid (see Validate).
func DueDate(p Policy, f Finding, now time.Time) time.Time {
	today := day(now)
	days := p.Days(f.Severity)
	if f.KEV {
		days = min(days, p.Critical)
	}
	due := today.AddDate(0, 0, days)
	if f.KEV && !f.KEVDue.IsZero() {
		if kevDue := day(f.KEVDue); !kevDue.Before(today) && kevDue.Before(due) {
			due = kevDue
		}
	}
	return due
}

// MostSevere picks the finding that drives a target's SLA: KEV findings rank as critical;
// among equals a KEV finding wins, then the earlier CISA due date, then the first given.
// No findings yield the zero Finding (low window).
func MostSevere(findings []Finding) Finding {
	var best Finding
	for i, f := range findings {
		if i == 0 || moreSevere(f, best) {
			best = f
		}
	}
	return best
}

func moreSevere(a, b Finding) bool {
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra > rb
	}
	if a.KEV != b.KEV {
		return a.KEV
	}
	return !a.KEVDue.IsZero() && (b.KEVDue.IsZero() || a.KEVDue.Before(b.KEVDue))
}

func rank(f Finding) int {
	if f.KEV {
		return severityRank("critical")
	}
	return severityRank(f.Severity)
}

func severityRank(severity string) int {
	switch normalizeSeverity(severity) {
	case "critical":
		return 4
	case "high":
		return 3
	case "medium":
		return 2
	case "low":
		return 1
	}
	return 0
}

func normalizeSeverity(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// day is the UTC calendar day of t, at midnight.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

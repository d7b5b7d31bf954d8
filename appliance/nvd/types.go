// Package nvd streams NVD CVE API 2.0 JSON feeds and the CISA Known Exploited Vulnerabilities
// catalogue into domain records, one record at a time, so a feed of any size is imported in
// constant memory.
package nvd

import (
	"context"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// CVE is one vulnerability record of an NVD CVE 2.0 feed.
type CVE struct {
	ID          string
	Description string // the English description
	Status      string // NVD vulnStatus; "Rejected" records are passed on so callers can delete them
	Published   time.Time
	Modified    time.Time
	Score       float64
	Vector      string
	Severity    string // lowercase: critical, high, medium, low, none; "" without metrics
	// ScoreVersion is the CVSS version the score comes from: "4.0", "3.1", "3.0", "2.0" or "".
	ScoreVersion string
	// ScoreSource is who scored it: SourceNVD, SourceCISAADP or the CNA's name.
	ScoreSource    string
	Configurations []Configuration
	// References are the references tagged as a patch or a vendor advisory.
	References []appliance.Reference
	// Origin is where the record came from: OriginNVD or OriginCVE5 (a CVE JSON 5 record,
	// its configurations built from the CNA's and CISA ADP's affected data).
	Origin string
}

// Scorers and origins of CVE data.
const (
	SourceNVD     = "NVD"
	SourceCISAADP = "CISA-ADP"
	OriginNVD     = "nvd"
	OriginCVE5    = "cve5"
)

// StatusRejected is the vulnStatus of a withdrawn CVE.
const StatusRejected = "Rejected"

// Rejected reports whether NVD withdrew the record.
func (c CVE) Rejected() bool { return c.Status == StatusRejected }

// Operators of configurations and nodes.
const (
	OperatorOR  = "OR"
	OperatorAND = "AND"
)

// Configuration is one NVD applicability statement: its nodes combine under Operator.
type Configuration struct {
	Operator string // "AND" or "OR" (the default)
	Negate   bool
	Nodes    []Node
}

// Node combines its criteria under Operator.
type Node struct {
	Operator string // "AND" or "OR" (the default)
	Negate   bool
	Matches  []Match
}

// Match is one cpeMatch criterion; the bounds apply when the criteria's version is "*".
type Match struct {
	Vulnerable            bool
	Criteria              string // CPE 2.3 formatted string, escaped as NVD writes it
	MatchCriteriaID       string
	VersionStartIncluding string
	VersionStartExcluding string
	VersionEndIncluding   string
	VersionEndExcluding   string
}

// HasBounds reports whether any of the four version bounds is set.
func (m Match) HasBounds() bool {
	return m.VersionStartIncluding != "" || m.VersionStartExcluding != "" ||
		m.VersionEndIncluding != "" || m.VersionEndExcluding != ""
}

// KEVEntry is one entry of the CISA KEV catalogue.
type KEVEntry struct {
	CVEID         string
	VendorProject string
	Product       string
	Name          string // vulnerabilityName
	DateAdded     time.Time
	DueDate       time.Time // zero when the catalogue names none
	Ransomware    string    // knownRansomwareCampaignUse: "Known" or "Unknown"
}

// Stats counts the records handed to a Handler.
type Stats struct {
	CVEs int
	KEV  int
	// TotalResults is an API page's totalResults: the records of the whole query (0 in files
	// without it).
	TotalResults int
}

// Handler receives records in feed order. An error stops the import and is returned by it,
// so a caller running the import inside a transaction can roll it back.
type Handler interface {
	CVE(ctx context.Context, c CVE) error
	KEV(ctx context.Context, e KEVEntry) error
}

// HandlerFuncs adapts two functions to a Handler; a nil function ignores its records.
type HandlerFuncs struct {
	OnCVE func(ctx context.Context, c CVE) error
	OnKEV func(ctx context.Context, e KEVEntry) error
}

// CVE calls OnCVE when it is set.
func (h HandlerFuncs) CVE(ctx context.Context, c CVE) error {
	if h.OnCVE == nil {
		return nil
	}
	return h.OnCVE(ctx, c)
}

// KEV calls OnKEV when it is set.
func (h HandlerFuncs) KEV(ctx context.Context, e KEVEntry) error {
	if h.OnKEV == nil {
		return nil
	}
	return h.OnKEV(ctx, e)
}

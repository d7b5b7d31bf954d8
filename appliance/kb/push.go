package kb

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// KB publication rules.
const (
	// PublishThreshold is how many independent voices (customers, see licensing.Voice) must push the same tuple before a
	// community mapping is published.
	PublishThreshold = 3
	// CommunityConfidenceCap bounds the confidence of every community mapping.
	CommunityConfidenceCap = 0.90
	// DefaultCommunityConfidence is assumed when a push leaves confidence out: an installation's
	// confirmation is evidence, but weaker than a curated or NVD identity.
	DefaultCommunityConfidence = 0.5
	// MaxPushMappings bounds one push request.
	MaxPushMappings = 500
	// MaxMappingFieldLength bounds each text field of a mapping, in characters.
	MaxMappingFieldLength = 256
)

// Mapping is the one form of a KB mapping: what an installation pushes, what the licence
// server publishes and pulls return, and what a snapshot carries. Confidence is nil only in a
// push that leaves it out; Source, Part, Retracted and UpdatedAt are the licence server's.
type Mapping struct {
	VendorPattern  string
	ProductPattern string
	CPEVendor      string
	CPEProduct     string
	Confidence     *float64
	Source         appliance.KBSource
	Part           string // nvd catalogue rows: a, o or h (empty means a)
	Retracted      bool   // importers drop it
	UpdatedAt      time.Time
}

// Conf is a confidence for a Mapping.
func Conf(c float64) *float64 { return &c }

// ConfidenceValue is the confidence, 0 when none was given.
func (m Mapping) ConfidenceValue() float64 {
	if m.Confidence == nil {
		return 0
	}
	return *m.Confidence
}

// ValidatePush checks a push request: an installation ID and 1..500 mappings, each with all four
// fields (judged trimmed, at most 256 characters), CPE fields made of CPE 2.3 component
// characters, and confidence, when present, in [0,1]. The first defect is returned as an
// *appliance.ValidationError naming it, e.g. field "mappings[3].confidence".
func ValidatePush(installationID string, ms []Mapping) error {
	if err := checkText("installation_id", installationID); err != nil {
		return err
	}
	switch {
	case len(ms) == 0:
		return appliance.Invalid("mappings", "required", "at least one mapping is required")
	case len(ms) > MaxPushMappings:
		return appliance.Invalid("mappings", "max_items", "at most %d mappings per push, got %d", MaxPushMappings, len(ms))
	}
	for i, m := range ms {
		if err := validateMapping(fmt.Sprintf("mappings[%d].", i), m); err != nil {
			return err
		}
	}
	return nil
}

// Trimmed returns the mapping with blanks around its text fields removed, as it is stored.
func (m Mapping) Trimmed() Mapping {
	m.VendorPattern = strings.TrimSpace(m.VendorPattern)
	m.ProductPattern = strings.TrimSpace(m.ProductPattern)
	m.CPEVendor = strings.TrimSpace(m.CPEVendor)
	m.CPEProduct = strings.TrimSpace(m.CPEProduct)
	return m
}

// CapConfidence is the confidence a community mapping is stored with: DefaultCommunityConfidence
// when absent, otherwise clamped to [0, CommunityConfidenceCap].
func CapConfidence(c *float64) float64 {
	if c == nil || math.IsNaN(*c) {
		return DefaultCommunityConfidence
	}
	return math.Min(math.Max(*c, 0), CommunityConfidenceCap)
}

// TupleKey is the case-insensitive identity of a mapping tuple (vendor_pattern, product_pattern,
// cpe_vendor, cpe_product): pushes with equal keys confirm the same mapping.
func TupleKey(m Mapping) string {
	m = m.Trimmed()
	// Unit separators cannot occur in valid fields (control characters are refused).
	return strings.ToLower(strings.Join([]string{m.VendorPattern, m.ProductPattern, m.CPEVendor, m.CPEProduct}, "\x1f"))
}

func validateMapping(prefix string, m Mapping) error {
	texts := []struct{ field, value string }{
		{"vendor_pattern", m.VendorPattern}, {"product_pattern", m.ProductPattern},
		{"cpe_vendor", m.CPEVendor}, {"cpe_product", m.CPEProduct},
	}
	for _, t := range texts {
		if err := checkText(prefix+t.field, t.value); err != nil {
			return err
		}
	}
	for _, t := range texts[2:] {
		if !IsCPEComponent(strings.TrimSpace(t.value)) {
			return appliance.Invalid(prefix+t.field, "format",
				"must be a CPE 2.3 component: letters, digits, _ - . and backslash-escaped punctuation")
		}
	}
	return checkConfidence(prefix+"confidence", m.Confidence)
}

func checkText(field, value string) error {
	value = strings.TrimSpace(value)
	switch {
	case value == "":
		return appliance.Invalid(field, "required", "is required")
	case !utf8.ValidString(value) || strings.IndexFunc(value, unicode.IsControl) >= 0:
		return appliance.Invalid(field, "format", "must be UTF-8 text without control characters")
	case utf8.RuneCountInString(value) > MaxMappingFieldLength:
		return appliance.Invalid(field, "max_length", "must be at most %d characters", MaxMappingFieldLength)
	}
	return nil
}

func checkConfidence(field string, c *float64) error {
	if c != nil && !inUnitRange(*c) {
		return appliance.Invalid(field, "range", "must be between 0 and 1")
	}
	return nil
}

// inUnitRange reports whether c is in [0,1]; NaN is not.
func inUnitRange(c float64) bool {
	return c >= 0 && c <= 1
}

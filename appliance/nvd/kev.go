package nvd

import (
	"fmt"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// The fields of a CISA KEV catalogue entry that vulnkeeper reads.
type wireKEV struct {
	CVEID             string `json:"cveID"`
	VendorProject     string `json:"vendorProject"`
	Product           string `json:"product"`
	VulnerabilityName string `json:"vulnerabilityName"`
	DateAdded         string `json:"dateAdded"`
	DueDate           string `json:"dueDate"`
	Ransomware        string `json:"knownRansomwareCampaignUse"`
}

const kevDateLayout = "2006-01-02"

func (w *wireKEV) toEntry() (KEVEntry, error) {
	if !cveIDPattern.MatchString(w.CVEID) {
		return KEVEntry{}, appliance.Invalid("cveID", "format", "CVE id %q is not of the form CVE-YYYY-NNNN", w.CVEID)
	}
	added, err := parseKEVDate("dateAdded", w.DateAdded)
	if err != nil {
		return KEVEntry{}, fmt.Errorf("%s: %w", w.CVEID, err)
	}
	if added.IsZero() {
		return KEVEntry{}, fmt.Errorf("%s: %w", w.CVEID, appliance.Invalid("dateAdded", "required", "dateAdded is missing"))
	}
	due, err := parseKEVDate("dueDate", w.DueDate)
	if err != nil {
		return KEVEntry{}, fmt.Errorf("%s: %w", w.CVEID, err)
	}
	return KEVEntry{CVEID: w.CVEID, VendorProject: w.VendorProject, Product: w.Product,
		Name: w.VulnerabilityName, DateAdded: added, DueDate: due, Ransomware: w.Ransomware}, nil
}

func parseKEVDate(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(kevDateLayout, s, time.UTC)
	if err != nil {
		return time.Time{}, appliance.Invalid(field, "date", "%q is not a date (YYYY-MM-DD)", s)
	}
	return t, nil
}

func invalidRecord(what string) error {
	return appliance.Invalid("vulnerabilities", "record", "%s", what)
}

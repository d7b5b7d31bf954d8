package containers

import (
	"encoding/json"
	"fmt"

	"github.com/vulnkeeper/vulnkeeper/appliance/jsonarray"
)

// The few fields of Trivy's JSON report (SchemaVersion 2) that vulnkeeper reads; Trivy's own
// Go types are deliberately not imported (see DESIGN.md).
type trivyResult struct {
	Target          string         `json:"Target"`
	Type            string         `json:"Type"`
	Vulnerabilities jsonarray.Span `json:"Vulnerabilities"` // read element by element
}

type trivyVulnerability struct {
	VulnerabilityID  string `json:"VulnerabilityID"`
	PkgName          string `json:"PkgName"`
	InstalledVersion string `json:"InstalledVersion"`
	FixedVersion     string `json:"FixedVersion"`
	Severity         string `json:"Severity"`
	Title            string `json:"Title"`
	Description      string `json:"Description"`
}

const trivySchemaVersion = 2

func parseTrivy(report scanReport) (Scan, error) {
	if err := checkTrivySchema(report.SchemaVersion); err != nil {
		return Scan{}, err
	}
	vulns, err := trivyVulnerabilities(report.Results)
	return Scan{Format: FormatTrivy, Vulnerabilities: vulns}, err
}

// checkTrivySchema accepts an absent SchemaVersion (Results alone identify the format) or 2.
// Schema 1 was a bare array of results and is not read.
func checkTrivySchema(raw json.RawMessage) error {
	if !present(raw) {
		return nil
	}
	var version int
	if err := json.Unmarshal(raw, &version); err != nil {
		return invalidFormat("Trivy SchemaVersion must be an integer")
	}
	if version != trivySchemaVersion {
		return invalidFormat("unsupported Trivy SchemaVersion %d (want %d)", version, trivySchemaVersion)
	}
	return nil
}

// trivyVulnerabilities streams the results and their vulnerabilities under the report's
// bounds (maxResults, maxRawFindings).
func trivyVulnerabilities(results jsonarray.Span) ([]Vulnerability, error) {
	var out []Vulnerability
	resultBudget, findingBudget := maxResults, maxRawFindings
	i := 0
	err := eachElement(results, "Results", "results", maxResults, &resultBudget, func(element []byte) error {
		var r trivyResult
		if err := json.Unmarshal(element, &r); err != nil {
			return invalidJSON(err)
		}
		field := fmt.Sprintf("Results[%d].Vulnerabilities", i)
		i++
		j := 0
		return eachElement(r.Vulnerabilities, field, "findings", maxRawFindings, &findingBudget, func(element []byte) error {
			var tv trivyVulnerability
			if err := json.Unmarshal(element, &tv); err != nil {
				return invalidJSON(err)
			}
			v, err := normalize(fromTrivy(r, tv), fmt.Sprintf("%s[%d]", field, j))
			j++
			out = append(out, v)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func fromTrivy(r trivyResult, tv trivyVulnerability) Vulnerability {
	return Vulnerability{
		CVEID:            tv.VulnerabilityID,
		PackageName:      tv.PkgName,
		InstalledVersion: tv.InstalledVersion,
		FixedVersion:     tv.FixedVersion,
		Severity:         tv.Severity,
		Title:            tv.Title,
		Description:      tv.Description,
		Target:           r.Target,
		Type:             r.Type,
	}
}

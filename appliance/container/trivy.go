package container

import (
	"encoding/json"
	"fmt"
)

// The few fields of Trivy's JSON report (SchemaVersion 2) that vulnkeeper reads; Trivy's own
// Go types are deliberately not imported (see DESIGN.md).
type trivyResult struct {
	Target          string               `json:"Target"`
	Type            string               `json:"Type"`
	Vulnerabilities []trivyVulnerability `json:"Vulnerabilities"`
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

func trivyVulnerabilities(results []trivyResult) ([]Vulnerability, error) {
	total := 0
	for _, r := range results {
		total += len(r.Vulnerabilities)
	}
	out := make([]Vulnerability, 0, total)
	for i, r := range results {
		for j, tv := range r.Vulnerabilities {
			v, err := normalize(fromTrivy(r, tv), fmt.Sprintf("Results[%d].Vulnerabilities[%d]", i, j))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
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

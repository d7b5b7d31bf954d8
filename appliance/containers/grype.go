package containers

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance/jsonarray"
)

// The fields of Grype's JSON report that vulnkeeper reads. Old Grype releases (0.7) wrote
// vulnerability.fixedInVersion; current ones write vulnerability.fix.versions. Grype has no
// title; the description sits in the vulnerability or, for distro records, only in
// relatedVulnerabilities (the NVD record).
type grypeMatch struct {
	Vulnerability          grypeVulnerability `json:"vulnerability"`
	RelatedVulnerabilities []grypeRelated     `json:"relatedVulnerabilities"`
	Artifact               grypeArtifact      `json:"artifact"`
}

type grypeVulnerability struct {
	ID             string    `json:"id"`
	Severity       string    `json:"severity"`
	Description    string    `json:"description"`
	Fix            *grypeFix `json:"fix"`
	FixedInVersion string    `json:"fixedInVersion"`
}

type grypeFix struct {
	Versions []string `json:"versions"`
}

type grypeRelated struct {
	Description string `json:"description"`
}

type grypeArtifact struct {
	Name      string          `json:"name"`
	Version   string          `json:"version"`
	Type      string          `json:"type"`
	Locations []grypeLocation `json:"locations"`
}

type grypeLocation struct {
	Path string `json:"path"`
}

func parseGrype(matches jsonarray.Span) (Scan, error) {
	scan := Scan{Format: FormatGrype}
	budget := maxRawFindings
	err := eachElement(matches, "matches", "findings", maxRawFindings, &budget, func(element []byte) error {
		var m grypeMatch
		if err := json.Unmarshal(element, &m); err != nil {
			return invalidJSON(err)
		}
		v, err := normalize(fromGrype(m), fmt.Sprintf("matches[%d]", len(scan.Vulnerabilities)))
		scan.Vulnerabilities = append(scan.Vulnerabilities, v)
		return err
	})
	if err != nil {
		return Scan{}, err
	}
	return scan, nil
}

func fromGrype(m grypeMatch) Vulnerability {
	return Vulnerability{
		CVEID:            m.Vulnerability.ID,
		PackageName:      m.Artifact.Name,
		InstalledVersion: m.Artifact.Version,
		FixedVersion:     grypeFixedVersion(m.Vulnerability),
		Severity:         m.Vulnerability.Severity,
		Description:      grypeDescription(m),
		Target:           grypeTarget(m.Artifact),
		Type:             m.Artifact.Type,
	}
}

// grypeFixedVersion joins several fix versions the way Trivy writes them ("1.2.3, 2.0.1").
func grypeFixedVersion(v grypeVulnerability) string {
	if v.Fix != nil && len(v.Fix.Versions) > 0 {
		return strings.Join(v.Fix.Versions, ", ")
	}
	return v.FixedInVersion
}

func grypeDescription(m grypeMatch) string {
	if m.Vulnerability.Description != "" {
		return m.Vulnerability.Description
	}
	for _, related := range m.RelatedVulnerabilities {
		if related.Description != "" {
			return related.Description
		}
	}
	return ""
}

// grypeTarget names where the package was found, Grype's nearest analogue of Trivy's Target.
func grypeTarget(a grypeArtifact) string {
	if len(a.Locations) == 0 {
		return ""
	}
	return a.Locations[0].Path
}

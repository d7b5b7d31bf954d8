package nvd

import "strings"

type wireMetrics struct {
	V40 []wireMetric `json:"cvssMetricV40"`
	V31 []wireMetric `json:"cvssMetricV31"`
	V30 []wireMetric `json:"cvssMetricV30"`
	V2  []wireMetric `json:"cvssMetricV2"`
}

type wireMetric struct {
	Source string `json:"source"`
	Type   string `json:"type"`
	// BaseSeverity is where CVSS v2 metrics carry the severity; later versions keep it in cvssData.
	BaseSeverity string   `json:"baseSeverity"`
	Data         wireCVSS `json:"cvssData"`
}

type wireCVSS struct {
	VectorString string  `json:"vectorString"`
	BaseScore    float64 `json:"baseScore"`
	BaseSeverity string  `json:"baseSeverity"`
}

// chosenMetric is the one metric a CVE record is scored by.
type chosenMetric struct {
	version string
	metric  *wireMetric
}

// best picks the newest CVSS version present and, within it, the Primary (NVD's own) metric,
// falling back to the first one listed.
func (m *wireMetrics) best() chosenMetric {
	byPriority := []struct {
		version string
		metrics []wireMetric
	}{{"4.0", m.V40}, {"3.1", m.V31}, {"3.0", m.V30}, {"2.0", m.V2}}
	for _, candidate := range byPriority {
		if len(candidate.metrics) > 0 {
			return chosenMetric{version: candidate.version, metric: primaryOrFirst(candidate.metrics)}
		}
	}
	return chosenMetric{}
}

func primaryOrFirst(metrics []wireMetric) *wireMetric {
	for i := range metrics {
		if strings.EqualFold(metrics[i].Type, "Primary") {
			return &metrics[i]
		}
	}
	return &metrics[0]
}

func (c chosenMetric) apply(cve *CVE) {
	if c.metric == nil {
		return
	}
	cve.ScoreVersion = c.version
	cve.Score = c.metric.Data.BaseScore
	cve.Vector = c.metric.Data.VectorString
	cve.ScoreSource = metricSource(c.metric)
	cve.Severity = strings.ToLower(c.metric.Data.BaseSeverity)
	if cve.Severity == "" {
		cve.Severity = strings.ToLower(c.metric.BaseSeverity)
	}
	if cve.Severity == "" {
		cve.Severity = SeverityFromScore(c.version, cve.Score)
	}
}

// SeverityFromScore rates a base score by the qualitative scale of its CVSS version:
// v2 knows low/medium/high only, v3 and v4 add none and critical.
func SeverityFromScore(version string, score float64) string {
	if version == "2.0" {
		switch {
		case score >= 7:
			return "high"
		case score >= 4:
			return "medium"
		}
		return "low"
	}
	switch {
	case score >= 9:
		return "critical"
	case score >= 7:
		return "high"
	case score >= 4:
		return "medium"
	case score > 0:
		return "low"
	}
	return "none"
}

// cisaADPSource is the source identifier NVD gives metrics from CISA's ADP (vulnrichment).
const cisaADPSource = "134c704f-9b21-4f2e-91b3-4a467353bcc0"

// metricSource names who scored a metric: "NVD" for NVD's own (Primary) metric, "CISA-ADP"
// for CISA's vulnrichment, otherwise the CNA's source identifier as NVD lists it.
func metricSource(m *wireMetric) string {
	switch {
	case strings.EqualFold(m.Type, "Primary") || m.Source == "nvd@nist.gov":
		return SourceNVD
	case m.Source == cisaADPSource:
		return SourceCISAADP
	}
	return m.Source
}

package web

import (
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// cvssJSON is the metric a finding's CVE is scored by.
type cvssJSON struct {
	Version string  `json:"version"`
	Score   float64 `json:"score"`
	Vector  string  `json:"vector"`
	Source  string  `json:"source"` // "NVD", "CISA-ADP" or the CNA
}

// kevJSON is the CISA KEV entry of a finding's CVE.
type kevJSON struct {
	DueDate    *string `json:"due_date"`
	Ransomware bool    `json:"ransomware"` // knownRansomwareCampaignUse "Known"
}

type referenceJSON struct {
	URL  string   `json:"url"`
	Tags []string `json:"tags"`
}

type riskFactorJSON struct {
	Factor string  `json:"factor"`
	Value  float64 `json:"value"`
	Points float64 `json:"points"`
	Detail string  `json:"detail"`
}

type riskJSON struct {
	Score   int              `json:"score"`
	Factors []riskFactorJSON `json:"factors"`
}

// cveFactsJSON is what every finding shows of its CVE: the CVSS metric (null without one),
// KEV (null when not listed), the fix references, and the risk score with its factors.
type cveFactsJSON struct {
	CVSS       *cvssJSON       `json:"cvss"`
	KEV        *kevJSON        `json:"kev"`
	References []referenceJSON `json:"references"`
	Risk       riskJSON        `json:"risk"`
}

func toCVEFactsJSON(f appliance.CVEFacts, r appliance.Risk) cveFactsJSON {
	j := cveFactsJSON{References: make([]referenceJSON, 0, len(f.References)), Risk: riskJSON{Score: r.Score,
		Factors: make([]riskFactorJSON, 0, len(r.Factors))}}
	if c := f.CVSS; c != nil {
		j.CVSS = &cvssJSON{Version: c.Version, Score: c.Score, Vector: c.Vector, Source: c.Source}
	}
	if k := f.KEVEntry; k != nil {
		j.KEV = &kevJSON{Ransomware: k.Ransomware}
		if !k.DueDate.IsZero() {
			d := k.DueDate.Format(time.DateOnly)
			j.KEV.DueDate = &d
		}
	}
	for _, ref := range f.References {
		j.References = append(j.References, referenceJSON{URL: ref.URL, Tags: ref.Tags})
	}
	for _, fa := range r.Factors {
		j.Risk.Factors = append(j.Risk.Factors, riskFactorJSON{Factor: fa.Name, Value: fa.Value, Points: fa.Points, Detail: fa.Detail})
	}
	return j
}

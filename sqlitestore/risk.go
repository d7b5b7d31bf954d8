package sqlitestore

import (
	"database/sql"
	"encoding/json"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// cveFactColumns are selected beside a finding from "LEFT JOIN cves c … LEFT JOIN kev k …":
// the CVSS metric, the fix references and the KEV entry (appliance.CVEFacts).
const cveFactColumns = `c.score, coalesce(c.score_version, ''), coalesce(c.vector, ''), coalesce(c.score_source, ''),
	coalesce(c.refs, '[]'), k.cve_id IS NOT NULL, k.due_date, coalesce(k.ransomware, '')`

type nullCVEFacts struct {
	score                         sql.NullFloat64
	version, vector, source, refs string
	kev                           bool
	due                           sql.NullString
	ransomware                    string
}

func (n *nullCVEFacts) dest() []any {
	return []any{&n.score, &n.version, &n.vector, &n.source, &n.refs, &n.kev, &n.due, &n.ransomware}
}

// value is the joined facts; a stored reference list that does not decode is left out.
func (n *nullCVEFacts) value() appliance.CVEFacts {
	var f appliance.CVEFacts
	if n.score.Valid {
		f.CVSS = &appliance.CVSS{Version: n.version, Score: n.score.Float64, Vector: n.vector, Source: n.source}
	}
	if n.kev {
		f.KEVEntry = &appliance.KEVStatus{DueDate: nullTime(n.due), Ransomware: n.ransomware == "Known"}
	}
	if err := json.Unmarshal([]byte(n.refs), &f.References); err != nil {
		f.References = nil
	}
	return f
}

package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/risk"
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

// productRisk is a product's risk: the largest risk score of its findings (NULL without any),
// the formula of appliance/risk written in SQL over products p, so lists sort by it. Each
// factor is rounded to a tenth as the Go formula does.
var productRisk = func() string {
	severities := slices.Sorted(maps.Keys(risk.SeverityScores))
	var sev strings.Builder
	sev.WriteString("CASE c.severity")
	for _, s := range severities {
		fmt.Fprintf(&sev, " WHEN '%s' THEN %g", s, risk.SeverityScores[s])
	}
	fmt.Fprintf(&sev, " ELSE %g END", risk.UnknownSeverityScore)
	severity := fmt.Sprintf("round(coalesce(c.score, %s) * %g, 1)", sev.String(), risk.SeverityWeight)
	exploit := fmt.Sprintf(`CASE WHEN k.cve_id IS NOT NULL THEN %g + CASE WHEN k.ransomware = 'Known' THEN %g ELSE 0 END
		ELSE round(coalesce(e.score, 0) * %g, 1) END`, risk.KEVPoints, risk.RansomwarePoints, risk.EPSSWeight)
	criticality := fmt.Sprintf("(p.criticality - 1) * %g", risk.CriticalityWeight)
	return fmt.Sprintf(`(SELECT min(100, max(%s + %s) + %s) FROM matches m LEFT JOIN cves c ON c.id = m.cve_id
		LEFT JOIN kev k ON k.cve_id = m.cve_id LEFT JOIN epss e ON e.cve_id = m.cve_id WHERE m.product_id = p.id AND `+notSuppressed+`)`,
		severity, exploit, criticality)
}()

func (q *queries) CriticalityRules(ctx context.Context, orgID int64) ([]appliance.CriticalityRule, bool, error) {
	var doc string
	err := q.queryRow(ctx, `SELECT rules FROM criticality_rules WHERE organization_id = ?`, orgID).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var rules []appliance.CriticalityRule
	if err := json.Unmarshal([]byte(doc), &rules); err != nil {
		return nil, false, fmt.Errorf("decode criticality rules: %w", err)
	}
	return rules, true, nil
}

func (q *queries) SaveCriticalityRules(ctx context.Context, orgID int64, rules []appliance.CriticalityRule, at time.Time) error {
	doc, err := json.Marshal(nonNil(rules))
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `INSERT INTO criticality_rules (organization_id, rules, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (organization_id) DO UPDATE SET rules = excluded.rules, updated_at = excluded.updated_at`,
		orgID, string(doc), fmtTime(at))
	return translate(err)
}

// ProductsByRule lists the organization's live products whose criticality no person chose.
func (q *queries) ProductsByRule(ctx context.Context, orgID int64) ([]appliance.Product, error) {
	return q.products(ctx, `SELECT `+leanProductColumns+` FROM products p
		WHERE p.organization_id = ? AND p.deleted_at IS NULL AND p.criticality_set = 0 ORDER BY p.id`, orgID)
}

func (q *queries) SetRuleCriticality(ctx context.Context, orgID, productID int64, criticality int) (bool, error) {
	res, err := q.exec(ctx, `UPDATE products SET criticality = ? WHERE id = ? AND organization_id = ?
		AND criticality_set = 0 AND criticality <> ?`, criticality, productID, orgID, criticality)
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

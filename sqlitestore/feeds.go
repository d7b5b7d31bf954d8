package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const feedStateColumns = `source, last_success, last_attempt, records, last_error, cursor`

func scanFeedState(row interface{ Scan(...any) error }) (appliance.FeedState, error) {
	var s appliance.FeedState
	var success, attempt sql.NullString
	err := row.Scan(&s.Source, &success, &attempt, &s.Records, &s.LastError, &s.Cursor)
	s.LastSuccess, s.LastAttempt = nullTime(success), nullTime(attempt)
	return s, err
}

func (q *queries) FeedStates(ctx context.Context) ([]appliance.FeedState, error) {
	rows, err := q.query(ctx, `SELECT `+feedStateColumns+` FROM feed_state ORDER BY source`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []appliance.FeedState{}
	for rows.Next() {
		s, err := scanFeedState(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (q *queries) FeedState(ctx context.Context, source string) (appliance.FeedState, error) {
	s, err := scanFeedState(q.queryRow(ctx, `SELECT `+feedStateColumns+` FROM feed_state WHERE source = ?`, source))
	if errors.Is(err, sql.ErrNoRows) {
		return appliance.FeedState{Source: source}, nil
	}
	if err != nil {
		return appliance.FeedState{}, translate(err)
	}
	return s, nil
}

func (q *queries) SaveFeedState(ctx context.Context, s appliance.FeedState) error {
	_, err := q.exec(ctx, `INSERT INTO feed_state (`+feedStateColumns+`) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (source) DO UPDATE SET last_success = excluded.last_success, last_attempt = excluded.last_attempt,
		records = excluded.records, last_error = excluded.last_error, cursor = excluded.cursor`,
		s.Source, timeOrNull(s.LastSuccess), timeOrNull(s.LastAttempt), s.Records, s.LastError, s.Cursor)
	return translate(err)
}

func (q *queries) UpsertEPSS(ctx context.Context, s appliance.EPSSScore) error {
	_, err := q.exec(ctx, `INSERT INTO epss (cve_id, score, percentile, score_date, imported_at)
		VALUES (?, ?, ?, ?, `+nowText+`)
		ON CONFLICT (cve_id) DO UPDATE SET score = excluded.score, percentile = excluded.percentile,
		score_date = excluded.score_date, imported_at = excluded.imported_at WHERE excluded.score_date >= epss.score_date`,
		s.CVEID, s.Score, s.Percentile, s.Date.UTC().Format(dateLayout))
	return translate(err)
}

// epssColumns are selected beside a finding from "LEFT JOIN epss e ON e.cve_id = …".
const epssColumns = `e.score, e.percentile, e.score_date`

type nullEPSS struct {
	score, percentile sql.NullFloat64
	date              sql.NullString
}

func (n *nullEPSS) dest() []any { return []any{&n.score, &n.percentile, &n.date} }

// value is the joined score, nil when EPSS has none for the CVE.
func (n *nullEPSS) value(cveID string) *appliance.EPSSScore {
	if !n.score.Valid {
		return nil
	}
	return &appliance.EPSSScore{CVEID: cveID, Score: n.score.Float64, Percentile: n.percentile.Float64, Date: parseDate(n.date)}
}

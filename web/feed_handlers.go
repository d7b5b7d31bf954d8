package web

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
)

type feedJSON struct {
	Source      string     `json:"source"`
	LastSuccess *time.Time `json:"last_success"`
	LastAttempt *time.Time `json:"last_attempt"`
	Records     int        `json:"records"`
	LastError   *string    `json:"last_error"`
	AgeSeconds  *float64   `json:"age_seconds"` // null when it never succeeded
	Stale       bool       `json:"stale"`
}

func toFeedJSON(st feeds.Status) feedJSON {
	j := feedJSON{Source: st.Source, Records: st.Records, Stale: st.Stale,
		LastSuccess: timeOrNil(st.LastSuccess), LastAttempt: timeOrNil(st.LastAttempt)}
	if st.LastError != "" {
		e := st.LastError
		j.LastError = &e
	}
	if st.Age != feeds.Never {
		age := st.Age.Seconds()
		j.AgeSeconds = &age
	}
	return j
}

// feedStatus lists the synced sources; none without a syncer.
func (s *Server) feedStatus(ctx context.Context) ([]feeds.Status, error) {
	if s.feeds == nil {
		return nil, nil
	}
	return s.feeds.Status(ctx)
}

func (s *Server) listFeeds(w http.ResponseWriter, r *http.Request) {
	sts, err := s.feedStatus(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := struct {
		Items []feedJSON `json:"items"`
	}{Items: []feedJSON{}}
	for _, st := range sts {
		out.Items = append(out.Items, toFeedJSON(st))
	}
	writeJSON(w, http.StatusOK, out)
}

// healthBody is {"status":"ok"}, or "stale" with the sources older than feeds.stale_after
// (the answer stays 200: the server works, its data is old).
func (s *Server) healthBody(ctx context.Context) any {
	sts, err := s.feedStatus(ctx)
	if err != nil {
		s.log.Warn("health: reading the feed state failed", slog.Any("error", err))
	}
	stale := []string{}
	for _, st := range sts {
		if st.Stale {
			stale = append(stale, st.Source)
		}
	}
	if len(stale) == 0 {
		return map[string]string{"status": "ok"}
	}
	return map[string]any{"status": "stale", "stale": stale}
}

var feedAgeDesc = prometheus.NewDesc("vulnkeeper_feed_age_seconds",
	"Seconds since the source's last successful sync (+Inf: never succeeded).", []string{"source"}, nil)

// feedAgeCollector reads the feed state at each scrape.
type feedAgeCollector struct{ s *Server }

func (c feedAgeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- feedAgeDesc }

func (c feedAgeCollector) Collect(ch chan<- prometheus.Metric) {
	sts, err := c.s.feedStatus(context.Background())
	if err != nil {
		c.s.log.Warn("metrics: reading the feed state failed", slog.Any("error", err))
		return
	}
	for _, st := range sts {
		age := math.Inf(1)
		if st.Age != feeds.Never {
			age = st.Age.Seconds()
		}
		ch <- prometheus.MustNewConstMetric(feedAgeDesc, prometheus.GaugeValue, age, st.Source)
	}
}

package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// metrics are the server's Prometheus series, on a registry of its own (no globals).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vulnkeeper_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "vulnkeeper_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"route", "method"}),
	}
	m.registry.MustRegister(m.requests, m.duration, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// instrument counts and times the requests of one route, labelled by its pattern.
func (m *metrics) instrument(method, route string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		next.ServeHTTP(w, r)
		status := http.StatusOK
		if rec, ok := w.(*statusRecorder); ok && rec.status != 0 {
			status = rec.status
		}
		m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
		m.duration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
	})
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// metricsAuth admits scrapers with an agent key of the metrics scope, sent as
// Authorization: Bearer (what Prometheus sends) or as X-API-Key / X-Agent-Key.
func (s *Server) metricsAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			key = r.Header.Get("X-API-Key")
		}
		if key == "" {
			key = r.Header.Get("X-Agent-Key")
		}
		if _, err := s.accounts.AuthenticateAgent(r.Context(), strings.TrimSpace(key), appliance.ScopeMetrics); err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithoutCancel(r.Context())))
	})
}

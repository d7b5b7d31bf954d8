package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	userKey
	agentKey
	clientIPKey
)

func requestID(r *http.Request) string {
	id, _ := r.Context().Value(requestIDKey).(string)
	return id
}

// statusRecorder remembers the status for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// common wraps every request: an ID, security headers, an access log line, and panic
// recovery as the last line of defence (a recovered panic is still a bug, so it is logged).
// Until the server is ready (and while it stops) everything but /healthz answers 503.
func (s *Server) common(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := newRequestID()
		ip := s.proxies.clientAddr(r)
		ctx := context.WithValue(r.Context(), requestIDKey, id)
		r = r.WithContext(context.WithValue(ctx, clientIPKey, ip))
		h := w.Header()
		h.Set("X-Request-ID", id)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic serving request", slog.String("request_id", id), slog.Any("panic", p),
					slog.String("stack", string(debug.Stack())))
				if rec.status == 0 {
					writeErrorBody(rec, http.StatusInternalServerError, "internal_error",
						"internal error (request "+id+"); see the server log", errorDetails{})
				}
			}
			s.log.Debug("request", slog.String("request_id", id), slog.String("method", r.Method),
				slog.String("path", r.URL.Path), slog.String("client_ip", ip), slog.Int("status", rec.status), slog.Duration("took", time.Since(start)))
		}()
		if !s.ready.Load() && r.URL.Path != "/healthz" {
			rec.Header().Set("Retry-After", "5")
			writeErrorBody(rec, http.StatusServiceUnavailable, "unavailable",
				"the server is starting or stopping; retry shortly", errorDetails{})
			return
		}
		next.ServeHTTP(rec, r)
	})
}

func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// limited refuses a request with 429 when limiter has no room for the key keyOf returns.
func (s *Server) limited(l *keyedLimiter, keyOf func(*http.Request) string, next http.Handler) http.Handler {
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := l.allow(keyOf(r)); !ok {
			s.writeError(w, r, &appliance.RateLimitedError{RetryAfter: wait})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func byIP(r *http.Request) string { return "ip:" + clientIP(r) }

func byUser(r *http.Request) string {
	if u, ok := r.Context().Value(userKey).(appliance.User); ok {
		return fmt.Sprintf("user:%d", u.ID)
	}
	return byIP(r)
}

func byAgentKey(r *http.Request) string {
	if p, ok := r.Context().Value(agentKey).(accounts.AgentPrincipal); ok {
		return fmt.Sprintf("key:%d", p.KeyID)
	}
	return byIP(r)
}

// limiters holds one keyed limiter per route class.
type limiters struct {
	global, login, password, inventory, heartbeat, config, containerScan, containers, kbPush, kbPull, kbPage *keyedLimiter
	// accounts slows login guesses per account, across client addresses.
	accounts *accountBackoff
}

func newLimiters(o LimitOptions, now func() time.Time) limiters {
	if !o.Enabled {
		return limiters{}
	}
	k := func(ls ...limit) *keyedLimiter { return newKeyedLimiter(o.MaxKeys, now, ls...) }
	return limiters{
		global:        k(quota(o.GlobalPerDay, 24*time.Hour), quota(o.GlobalPerHour, time.Hour)),
		login:         k(perMinute(o.LoginPerMinute)),
		password:      k(perMinute(o.PasswordPerMinute)),
		inventory:     k(perMinute(o.InventoryPerMinute)),
		heartbeat:     k(perMinute(o.HeartbeatPerMinute)),
		config:        k(perMinute(o.ConfigPerMinute)),
		containerScan: k(perMinute(o.ContainerScanPerMinute)),
		containers:    k(perMinute(o.ContainersPerMinute)),
		kbPush:        k(perHourBucket(o.KBPushPerHour)),
		kbPull:        k(perHourBucket(o.KBPullPerHour)),
		kbPage:        k(perHourBucket(o.KBPagesPerHour)),
		accounts:      newAccountBackoff(o.MaxKeys, now),
	}
}

// Package web is the HTTP face of vulnkeeper: routes, handlers, wire types, authentication
// middleware, limits and error bodies. It decodes and authenticates, calls one appliance
// service, and encodes; it holds no SQL and no domain decisions.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/appliance/report"
	"github.com/vulnkeeper/vulnkeeper/appliance/triage"

	"github.com/alexedwards/scs/v2"
	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/appliance/exposure"
	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/appliance/kb"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
)

// Options configure the listener and the HTTP server.
type Options struct {
	Listen            string        `mapstructure:"listen"`
	TLSCert           string        `mapstructure:"tls_cert"`
	TLSKey            string        `mapstructure:"tls_key"`
	ReadHeaderTimeout time.Duration `mapstructure:"read_header_timeout"`
	ReadTimeout       time.Duration `mapstructure:"read_timeout"`
	WriteTimeout      time.Duration `mapstructure:"write_timeout"`
	IdleTimeout       time.Duration `mapstructure:"idle_timeout"`
	ShutdownTimeout   time.Duration `mapstructure:"shutdown_timeout"`
	// MaxBodyBytes bounds the largest request body (agent submissions); other routes use less.
	MaxBodyBytes    int64         `mapstructure:"max_body_bytes"`
	SessionLifetime time.Duration `mapstructure:"session_lifetime"`
	// MemoryLimitMB is a soft limit for the Go heap (GC works harder near it); 0 leaves
	// Go's default. The GOMEMLIMIT variable, when set, wins.
	MemoryLimitMB      int           `mapstructure:"memory_limit_mb"`
	SessionIdleTimeout time.Duration `mapstructure:"session_idle_timeout"`
	// TrustedProxies are the CIDRs (or addresses) of reverse proxies: only from them is
	// X-Forwarded-For believed for the client address. Empty: the peer is the client.
	TrustedProxies []string `mapstructure:"trusted_proxies"`
}

// DefaultOptions are used when the configuration names none.
func DefaultOptions() Options {
	return Options{Listen: "127.0.0.1:8080", ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 120 * time.Second, IdleTimeout: 120 * time.Second, ShutdownTimeout: 30 * time.Second,
		MaxBodyBytes: 32 << 20, MemoryLimitMB: 256, SessionLifetime: 12 * time.Hour, SessionIdleTimeout: 2 * time.Hour,
		TrustedProxies: []string{}}
}

// Deps are the services and settings a server is built from.
type Deps struct {
	Options       Options
	Limits        LimitOptions
	Accounts      *accounts.Accounts
	AgentConfig   appliance.AgentConfig
	Inventory     *inventory.Service
	Exposure      *exposure.Service // hosts, CVEs and the dashboard (issue 11)
	Containers    *containers.Containers
	Remediation   *remediation.Remediation
	Triage        *triage.Service
	Licensing     *licensing.Server
	KBHub         *kb.Hub // the licence server's KB: push, pull, sources
	KBSync        *kb.Client
	Feeds         *feeds.Syncer // nil: no sync (licence server, tests without it)
	Notify        *notify.Service
	Reports       *report.Reports
	Sessions      scs.Store
	OpenAPI       []byte // data/openapi.yaml
	LicenseServer bool
	Log           *slog.Logger
	Now           func() time.Time
}

// Server routes requests to the services.
type Server struct {
	opts        Options
	accounts    *accounts.Accounts
	agentCfg    appliance.AgentConfig
	inventory   *inventory.Service
	exposure    *exposure.Service
	containers  *containers.Containers
	remediation *remediation.Remediation
	triage      *triage.Service
	licensing   *licensing.Server
	kbHub       *kb.Hub
	kbsync      *kb.Client
	feeds       *feeds.Syncer
	notify      *notify.Service
	reports     *report.Reports
	sessions    *scs.SessionManager
	log         *slog.Logger
	openapi     []byte // JSON
	license     bool
	ready       atomic.Bool
	lim         limiters
	handler     http.Handler
	metrics     *metrics
	proxies     trustedProxies
	ui          *uiAssets // pages and static files of the web UI
}

// NewServer builds the route table for an installation or, with LicenseServer, a licence server.
func NewServer(d Deps) (*Server, error) {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	doc, err := openAPIJSON(d.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	proxies, err := parseTrustedProxies(d.Options.TrustedProxies)
	if err != nil {
		return nil, err
	}
	s := &Server{proxies: proxies, opts: d.Options, accounts: d.Accounts, agentCfg: d.AgentConfig, inventory: d.Inventory, exposure: d.Exposure, containers: d.Containers, remediation: d.Remediation, triage: d.Triage, licensing: d.Licensing, kbHub: d.KBHub, kbsync: d.KBSync, feeds: d.Feeds, notify: d.Notify, reports: d.Reports, log: d.Log, openapi: doc, license: d.LicenseServer,
		lim: newLimiters(d.Limits, d.Now), metrics: newMetrics()}
	s.sessions = newSessionManager(d.Sessions, d.Options)
	if s.ui, err = loadUIAssets(); err != nil {
		return nil, fmt.Errorf("web UI: %w", err)
	}
	if d.Feeds != nil {
		s.metrics.registry.MustRegister(feedAgeCollector{s})
	}
	router := httprouter.New()
	router.HandleMethodNotAllowed = true
	router.NotFound = http.HandlerFunc(s.notFound)
	router.MethodNotAllowed = http.HandlerFunc(s.methodNotAllowed)
	router.PanicHandler = nil // recovery is a middleware, so it also covers the chains
	for _, rt := range s.routeTable() {
		router.Handler(rt.method, rt.path, s.metrics.instrument(rt.method, rt.path, rt.chain(rt.handler)))
	}
	s.handler = s.common(router)
	return s, nil
}

func newSessionManager(store scs.Store, o Options) *scs.SessionManager {
	sm := scs.New()
	sm.Store = store
	sm.Lifetime = o.SessionLifetime
	sm.IdleTimeout = o.SessionIdleTimeout
	sm.Cookie.Name = "session"
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = o.TLSCert != ""
	sm.Cookie.Path = "/"
	return sm
}

// Handler is the whole server as an http.Handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.handler }

// SetReady makes /healthz answer 200; until then it answers 503.
func (s *Server) SetReady(ready bool) { s.ready.Store(ready) }

// Serve answers on ln until ctx ends, then stops accepting, lets in-flight requests finish
// within the shutdown timeout, and returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() {
		if s.opts.TLSCert != "" {
			errc <- srv.ServeTLS(ln, s.opts.TLSCert, s.opts.TLSKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.SetReady(false)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if !s.ready.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "starting"})
		return
	}
	writeJSON(w, http.StatusOK, s.healthBody(r.Context()))
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	writeErrorBody(w, http.StatusNotFound, "not_found", "no route "+r.Method+" "+r.URL.Path, errorDetails{})
}

func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	writeErrorBody(w, http.StatusMethodNotAllowed, "method_not_allowed",
		"method "+r.Method+" is not allowed on "+r.URL.Path, errorDetails{})
}

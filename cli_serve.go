package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/appliance/report"
	"github.com/vulnkeeper/vulnkeeper/appliance/triage"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/appliance/exposure"
	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/appliance/kb"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
	"github.com/vulnkeeper/vulnkeeper/data"
	"github.com/vulnkeeper/vulnkeeper/kbindex"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
	"github.com/vulnkeeper/vulnkeeper/web"
)

func (c *cli) serveCommand() *cobra.Command {
	var licenseServer bool
	cmd := &cobra.Command{
		Use:   "serve [--listen ADDR] [--license-server]",
		Short: "Serve the installation API (or, with --license-server, the licence and KB API)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := c.settings(cmd)
			if err != nil {
				return err
			}
			return serve(cmd.Context(), cfg, serveOptions{licenseServer: licenseServer, out: c.out})
		},
	}
	addServeFlags(cmd)
	cmd.Flags().BoolVar(&licenseServer, "license-server", false, "serve the licence server API under /api/v1 instead")
	return cmd
}

func addServeFlags(cmd *cobra.Command) {
	cmd.Flags().String("listen", "", "address to listen on (default 127.0.0.1:8080)")
	cmd.Flags().String("tls-cert", "", "TLS certificate file (serves HTTPS; cookies become Secure)")
	cmd.Flags().String("tls-key", "", "TLS private key file")
}

// serveOptions are what serve and quickstart differ in.
type serveOptions struct {
	licenseServer bool
	listener      net.Listener      // already bound (quickstart binds before creating anything); nil: bind cfg.Server.Listen
	demoData      bool              // load the demo CVE feed into an empty database (quickstart only)
	onReady       func(addr string) // learns the bound address once serving (quickstart prints it)
	out           io.Writer         // where next steps are printed for an installation without organizations
}

// serve starts in order — store, services, listener (answering 503 while the indexes load),
// then readiness — and stops in reverse when ctx ends.
func serve(ctx context.Context, cfg Config, o serveOptions) error {
	started := time.Now()
	log := newLogger(cfg.Log)
	if cfg.Server.MemoryLimitMB > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(cfg.Server.MemoryLimitMB) << 20)
	}
	st, err := sqlitestore.Open(ctx, dbPath(cfg), cfg.storeOptions(), log)
	if err != nil {
		return err
	}
	defer st.Close()
	a, err := newApp(cfg, st, o.licenseServer, log)
	if err != nil {
		return err
	}
	a.demoData = o.demoData
	defer a.close()
	srv, err := web.NewServer(a.deps)
	if err != nil {
		return err
	}
	ln := o.listener
	if ln == nil {
		if ln, err = listen(cfg); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	if err := a.start(ctx); err != nil {
		cancel()
		<-served
		return err
	}
	srv.SetReady(true)
	log.Info("vulnkeeper ready", slog.String("mode", a.mode()), slog.String("listen", ln.Addr().String()),
		slog.String("data_dir", cfg.Storage.DataDir), slog.Duration("startup", time.Since(started)))
	if o.onReady != nil {
		o.onReady(ln.Addr().String())
	}
	if !o.licenseServer && o.out != nil {
		printNextSteps(ctx, o.out, st, cfg)
	}
	err = <-served
	log.Info("vulnkeeper stopped")
	return err
}

// listen binds the configured address.
func listen(cfg Config) (net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.Server.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Server.Listen, err)
	}
	return ln, nil
}

// printNextSteps tells the operator of a new installation how to get to a first inventory.
func printNextSteps(ctx context.Context, out io.Writer, st *sqlitestore.Store, cfg Config) {
	orgs, err := st.Organizations(ctx)
	if err != nil || len(orgs) > 0 {
		return
	}
	dir := cfg.Storage.DataDir
	fmt.Fprintf(out, `
This installation has no organization yet. Next steps (in another shell):
  vulnkeeper org create ACME --data-dir %[1]s
  vulnkeeper user create --org ACME --username admin --role org_admin --password-stdin --data-dir %[1]s
  vulnkeeper agent-key create --org ACME --name servers --data-dir %[1]s
  vulnkeeper feed import nvdcve-2.0-*.json.gz known_exploited_vulnerabilities.json --data-dir %[1]s
Then point agents at this server with the key (see "Monitoring a host" in the README).
`, dir)
}

// app is the set of services one serving process runs.
type app struct {
	cfg      Config
	st       *sqlitestore.Store
	log      *slog.Logger
	deps     web.Deps
	index    *kbindex.Live
	demoData bool
}

func newApp(cfg Config, st *sqlitestore.Store, licenseServer bool, log *slog.Logger) (*app, error) {
	a := &app{cfg: cfg, st: st, log: log, deps: web.Deps{Options: cfg.Server, Limits: cfg.Limits,
		Accounts: accounts.NewAccounts(st, cfg.Auth), AgentConfig: cfg.Agent, Sessions: st.SessionStore(),
		OpenAPI: data.OpenAPI, LicenseServer: licenseServer, Log: log}}
	if licenseServer {
		key, created, err := licensing.LoadOrCreateKey(cfg.Storage.DataDir)
		if err != nil {
			return nil, err
		}
		if created {
			log.Info("created the licence signing key", slog.String("public_key", licensing.EncodePublicKey(key.Public().(ed25519.PublicKey))))
		}
		a.deps.Licensing = licensing.NewServer(st, key, cfg.License)
		a.deps.KBHub = kb.NewHub(st, key)
		return a, nil
	}
	a.index = kbindex.NewLive(filepath.Join(cfg.Storage.DataDir, "kbindex"))
	a.deps.Inventory = inventory.NewService(st, inventory.NewEngine(st, a.index, log), cfg.Agent, log)
	a.deps.Containers, a.deps.Remediation = containers.NewContainers(st, log), remediation.NewRemediation(st, log)
	a.deps.Reports = report.New(st, a.deps.Remediation.Policy)
	a.deps.KBSync = kb.NewClient(st, web.NewKBClient(), cfg.License, log)
	a.deps.Feeds = feeds.NewSyncer(st, web.NewFeedClient(web.FeedClientOptions{AllowHTTP: cfg.Feeds.AllowHTTP}), cfg.Feeds, log)
	a.deps.Triage = triage.NewService(st, nil)
	a.deps.Remediation.OnStatusChange(a.deps.Triage.ForAssignment)
	a.deps.Inventory.OnFindingsChanged(a.findingsChanged)
	a.deps.Containers.OnFindingsChanged(a.applyTriage)
	a.deps.Exposure = exposure.NewService(st, cfg.Agent)
	a.deps.Exposure.OnFindingsChanged(a.findingsChanged)
	a.deps.Notify = newNotifier(st, cfg, log)
	a.deps.Inventory.SetNotifier(a.deps.Notify)
	return a, nil
}

func (a *app) mode() string {
	if a.deps.LicenseServer {
		return "licence server"
	}
	return "installation"
}

// start loads what the services need and starts the background work.
func (a *app) start(ctx context.Context) error {
	go maintain(ctx, a.st, a.log)
	inv := a.deps.Inventory
	if inv == nil {
		return nil
	}
	if err := loadInventory(ctx, a.st, inv, a.demoData, a.log); err != nil {
		return err
	}
	go watchImports(ctx, a.st, inv, a.log, defaultImportWatch)
	go sweepTriage(ctx, a.deps.Triage, a.log)
	go a.deps.KBSync.Run(ctx, func(ctx context.Context) {
		if err := inv.Refresh(ctx); err != nil {
			a.log.Error("refresh after a KB sync failed", slog.Any("error", err))
		}
	})
	go a.deps.Notify.Run(ctx)
	go a.deps.Feeds.Run(ctx, func(ctx context.Context) {
		if err := inv.Refresh(ctx); err != nil {
			a.log.Error("refresh after a feed sync failed", slog.Any("error", err))
		}
	})
	return nil
}

// findingsChanged re-applies the triage rules to the new findings, then closes the
// assignments whose finding disappeared.
func (a *app) findingsChanged(ctx context.Context) {
	a.applyTriage(ctx)
	a.autoResolve(ctx)
}

// applyTriage re-applies the triage rules to changed findings.
func (a *app) applyTriage(ctx context.Context) {
	if err := a.deps.Triage.Refresh(ctx); err != nil {
		a.log.Error("applying triage rules to changed findings failed", slog.Any("error", err))
	}
}

// newNotifier builds the notifications service: webhooks always, mail when an SMTP server
// is configured; feed.stale follows feeds.stale_after.
func newNotifier(st *sqlitestore.Store, cfg Config, log *slog.Logger) *notify.Service {
	opts := cfg.Notify
	opts.StaleAfter = cfg.Feeds.StaleAfter
	var mailer notify.Mailer
	if opts.MailEnabled() {
		mailer = web.NewSMTPMailer(opts, nil)
	}
	return notify.NewService(st, opts, web.NewWebhookClient(opts), mailer, log)
}

// autoResolve closes the assignments whose finding disappeared.
func (a *app) autoResolve(ctx context.Context) {
	n, err := a.deps.Remediation.AutoResolve(ctx)
	if err != nil {
		a.log.Error("closing assignments whose finding disappeared failed", slog.Any("error", err))
	} else if n > 0 {
		a.log.Info("assignments resolved because their finding disappeared", slog.Int("assignments", n))
	}
}

func (a *app) close() {
	if a.index != nil {
		a.index.Close()
	}
}

// sweepTriage lets lapsed triage decisions go every minute (and once at start), so a finding
// whose accepted risk expired counts again.
func sweepTriage(ctx context.Context, svc *triage.Service, log *slog.Logger) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		if _, err := svc.Sweep(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Warn("letting lapsed triage decisions go failed", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// maintain runs the store's housekeeping every hour until ctx ends.
func maintain(ctx context.Context, st *sqlitestore.Store, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := st.Maintain(ctx); err != nil && !errors.Is(err, context.Canceled) {
				log.Warn("database maintenance failed", slog.Any("error", err))
			}
		}
	}
}

func (c *cli) quickstartCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "quickstart",
		Short: "First run on a fresh machine: create an organization, an admin and an agent key if none exist, then serve",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := c.settings(cmd)
			if err != nil {
				return err
			}
			// Bind first: credentials are created (and shown once) only when they can be used.
			ln, err := listen(cfg)
			if err != nil {
				return err
			}
			creds, err := c.bootstrap(cmd.Context(), cfg)
			if err != nil {
				ln.Close()
				return err
			}
			return serve(cmd.Context(), cfg, serveOptions{listener: ln, demoData: true,
				onReady: func(addr string) { c.printWelcome(addr, creds) }})
		},
	}
	addServeFlags(cmd)
	return cmd
}

type quickstartCreds struct {
	fresh    bool
	password string
	agentKey string
}

const (
	quickOrg   = "demo"
	quickAdmin = "admin"
)

// bootstrap creates the demo organization, its admin and an agent key on an empty database.
func (c *cli) bootstrap(ctx context.Context, cfg Config) (quickstartCreds, error) {
	st, err := sqlitestore.Open(ctx, dbPath(cfg), cfg.storeOptions(), newLogger(cfg.Log))
	if err != nil {
		return quickstartCreds{}, err
	}
	defer st.Close()
	orgs, err := st.Organizations(ctx)
	if err != nil || len(orgs) > 0 {
		return quickstartCreds{}, err
	}
	a := accounts.NewAccounts(st, cfg.Auth)
	if _, err := a.CreateOrganization(ctx, quickOrg); err != nil {
		return quickstartCreds{}, err
	}
	pw := randomPassword()
	if _, err := a.CreateUser(ctx, quickOrg, quickAdmin, appliance.RoleOrgAdmin, pw); err != nil {
		return quickstartCreds{}, err
	}
	key, _, err := a.CreateAgentKey(ctx, quickOrg, "quickstart", nil)
	if err != nil {
		return quickstartCreds{}, err
	}
	return quickstartCreds{fresh: true, password: pw, agentKey: key}, nil
}

func randomPassword() string {
	b := make([]byte, 15)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (c *cli) printWelcome(addr string, cr quickstartCreds) {
	base := "http://" + addr
	if !cr.fresh {
		fmt.Fprintf(c.out, "\nvulnkeeper is serving %s with the existing data in this data directory.\n"+
			"Open it in a browser and sign in as the admin created at the first run (reset with: vulnkeeper user passwd --username %s --password-stdin).\n\n", base, quickAdmin)
		return
	}
	fmt.Fprintf(c.out, `
vulnkeeper is serving %[1]s
Created organization %[2]q, admin %[3]q and an agent key. They are shown only now:

  admin password: %[4]s
  agent key:      %[5]s

Web UI: open %[1]s/ in a browser and sign in as %[3]q with the password above.

Log in from a script (the session lives in cookies.txt) and fetch a CSRF token for later writes:
  curl -c cookies.txt -H 'Content-Type: application/json' -d '{"username":"%[3]s","password":"%[4]s"}' %[1]s/api/auth/login
  curl -b cookies.txt -c cookies.txt %[1]s/api/auth/csrf

Post an inventory as an agent:
  curl -H 'X-Agent-Key: %[5]s' -H 'Content-Type: application/json' -d '{"hostname":"pc-01","products":[{"vendor":"OpenSSL","product":"OpenSSL","version":"1.1.1k"}]}' %[1]s/api/agent/inventory

API documentation: %[1]s/api/docs/
`, base, quickOrg, quickAdmin, cr.password, cr.agentKey)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// loadInventory loads the embedded starter catalogue (and, for quickstart, the demo CVE feed)
// into an empty database, builds the resolver and match index, and brings stored matches up to
// date.
func loadInventory(ctx context.Context, st *sqlitestore.Store, inv *inventory.Service, demo bool, log *slog.Logger) error {
	loaded, err := inventory.NewImporter(st).LoadDefaults(ctx, data.Defaults(), demo)
	if err != nil {
		return fmt.Errorf("load default data: %w", err)
	}
	switch {
	case loaded && demo:
		log.Info("empty database: loaded the starter catalogue and the demo CVE feed")
	case loaded:
		log.Info("empty database: loaded the starter catalogue; import CVE data with vulnkeeper feed import")
	}
	if err := inv.Refresh(ctx); err != nil {
		return err
	}
	debug.FreeOSMemory() // the index builds leave much garbage; give it back before serving
	return nil
}

// importWatch says how often watchImports looks and how long the data must stay unchanged
// before it refreshes: an import of several files (or one long one) is one refresh after the
// last write, not one per file.
type importWatch struct {
	poll, settle time.Duration
}

var defaultImportWatch = importWatch{poll: 2 * time.Second, settle: 3 * time.Second}

// dataVersioner and refresher are what watchImports reads and drives.
type dataVersioner interface {
	DataVersion(ctx context.Context) (int64, error)
}

type refresher interface {
	Refresh(ctx context.Context) error
}

// watchImports notices writes by other processes (feed or catalogue imports from the CLI)
// through SQLite's data_version and, once they have settled, refreshes the resolver, the match
// index and the matches once.
func watchImports(ctx context.Context, st dataVersioner, inv refresher, log *slog.Logger, w importWatch) {
	last, _ := st.DataVersion(ctx)
	var changedAt time.Time // zero: no change waiting
	t := time.NewTicker(w.poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		v, err := st.DataVersion(ctx)
		switch {
		case err != nil:
			continue
		case v != last:
			last, changedAt = v, time.Now()
			continue
		case changedAt.IsZero() || time.Since(changedAt) < w.settle:
			continue
		}
		changedAt = time.Time{}
		if err := inv.Refresh(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Error("refresh after an import failed", slog.Any("error", err))
		}
		debug.FreeOSMemory()
	}
}

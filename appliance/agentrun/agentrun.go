// Package agentrun decides what the agent does each cycle: collect, compare with the last
// acknowledged inventory, send it or a heartbeat, keep an unsent inventory on disk and retry
// it with back-off. The HTTP client behind Client lives in package web.
package agentrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"golang.org/x/mod/semver"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/collect"
)

// Client talks to the server.
type Client interface {
	Config(ctx context.Context) (ServerConfig, error)
	Heartbeat(ctx context.Context, hostname, agentVersion string) (ServerConfig, error)
	Inventory(ctx context.Context, body []byte) error
	Encode(inv collect.Inventory) ([]byte, error)
	ContainerScan(ctx context.Context, hostname string, images []ScannedImage) error
}

// ServerConfig is what the server tells agents (GET /api/agent/config, heartbeat answers).
type ServerConfig struct {
	ScanInterval        time.Duration
	ForceFullScan       bool
	MinimumAgentVersion string
}

// ServerError is an HTTP answer other than success. 4xx other than 429 are final.
type ServerError struct {
	Status     int
	RetryAfter time.Duration
	Message    string
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("server answered %d: %s", e.Status, e.Message)
}

// Retryable: network errors, 5xx and 429 are worth another try; other 4xx are not.
func Retryable(err error) bool {
	var se *ServerError
	if errors.As(err, &se) {
		return se.Status == 429 || se.Status >= 500
	}
	return !errors.Is(err, context.Canceled)
}

// Outcome of one cycle.
type Outcome string

const (
	Sent      Outcome = "sent"
	Heartbeat Outcome = "heartbeat"
	Spooled   Outcome = "spooled"
)

// Options of a runner.
type Options struct {
	StateDir string
	Version  string
	Interval time.Duration // 0: the server's scan_interval
	Attempts int           // deliveries tried per cycle (default 4)
	Backoff  time.Duration // first back-off (default 2s), doubled per attempt, with jitter
	MaxWait  time.Duration // longest single wait (default 5 min)
	Collect  func() (collect.Inventory, error)
	// Containers, when set, scans the images of running containers after each inventory.
	Containers *Containers
	Log        *slog.Logger
	// Sleep waits d or until ctx ends (tests replace it).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Runner is one agent with its state directory.
type Runner struct {
	opts  Options
	cli   Client
	state *State
	cfg   ServerConfig
	// hostname of the last collection, for heartbeats between inventories
	hostname string
}

// New opens (or creates) the state directory and its agent id.
func New(cli Client, o Options) (*Runner, error) {
	if o.Attempts <= 0 {
		o.Attempts = 4
	}
	if o.Backoff <= 0 {
		o.Backoff = 2 * time.Second
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 5 * time.Minute
	}
	if o.Sleep == nil {
		o.Sleep = appliance.Sleep
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	st, err := OpenState(o.StateDir)
	if err != nil {
		return nil, err
	}
	return &Runner{opts: o, cli: cli, state: st, cfg: ServerConfig{ScanInterval: 24 * time.Hour}}, nil
}

// AgentID is the stable id kept in the state directory.
func (r *Runner) AgentID() string { return r.state.AgentID }

// Cycle collects and sends the inventory, or a heartbeat when it equals the last one the
// server acknowledged. An inventory that cannot be delivered stays spooled.
func (r *Runner) Cycle(ctx context.Context) (Outcome, error) {
	if cfg, err := r.cli.Config(ctx); err == nil {
		r.cfg = cfg
		if old, min := OlderThan(r.opts.Version, cfg.MinimumAgentVersion); old {
			r.opts.Log.Warn("this agent is older than the server's minimum_agent_version: upgrade it (it keeps reporting meanwhile)",
				slog.String("version", r.opts.Version), slog.String("minimum", min))
		}
	} else {
		r.opts.Log.Warn("agent config not fetched; keeping the last one", slog.Any("error", err))
	}
	inv, err := r.opts.Collect()
	if err != nil {
		return r.flushAfter(ctx, fmt.Errorf("collect: %w", err))
	}
	inv.Agent = collect.Agent{ID: r.state.AgentID, Version: r.opts.Version}
	r.hostname = inv.Hostname
	body, err := r.cli.Encode(inv)
	if err != nil {
		return "", fmt.Errorf("encode inventory: %w", err)
	}
	if digest(body) == r.state.Acked && !r.cfg.ForceFullScan && !r.state.HasSpool() {
		cfg, err := r.cli.Heartbeat(ctx, inv.Hostname, r.opts.Version)
		if err != nil {
			return "", fmt.Errorf("heartbeat: %w", err)
		}
		if cfg.ScanInterval > 0 {
			r.cfg.ScanInterval = cfg.ScanInterval
		}
		if r.opts.Containers != nil {
			r.containers(ctx, inv.Hostname)
		}
		return Heartbeat, nil
	}
	if err := r.state.Spool(body); err != nil {
		return "", err
	}
	out, err := r.Deliver(ctx)
	if err == nil && r.opts.Containers != nil {
		r.containers(ctx, inv.Hostname)
	}
	return out, err
}

// containers posts the container scans; a failure is logged, never fatal to the cycle.
func (r *Runner) containers(ctx context.Context, hostname string) {
	n, err := r.scanContainers(ctx, hostname)
	if err != nil {
		r.opts.Log.Warn("container scan not posted", slog.Any("error", err))
		return
	}
	r.opts.Log.Info("container images scanned", slog.Int("images", n))
}

// flushAfter still delivers a spooled inventory when this cycle's collection failed.
func (r *Runner) flushAfter(ctx context.Context, cause error) (Outcome, error) {
	if !r.state.HasSpool() {
		return "", cause
	}
	r.opts.Log.Warn("collection failed; sending the spooled inventory", slog.Any("error", cause))
	return r.Deliver(ctx)
}

// Deliver sends the spooled inventory, retrying with exponential back-off and jitter (or the
// server's Retry-After); 4xx other than 429 are not retried.
func (r *Runner) Deliver(ctx context.Context) (Outcome, error) {
	body, err := r.state.Spooled()
	if err != nil {
		return "", err
	}
	for attempt := 0; ; attempt++ {
		err = r.cli.Inventory(ctx, body)
		if err == nil {
			return Sent, r.state.Ack(digest(body))
		}
		if !Retryable(err) || attempt+1 >= r.opts.Attempts {
			return Spooled, fmt.Errorf("send inventory (kept in %s): %w", r.opts.StateDir, err)
		}
		wait := r.backoff(attempt, err)
		r.opts.Log.Warn("inventory not delivered; retrying", slog.Duration("in", wait), slog.Any("error", err))
		if err := r.opts.Sleep(ctx, wait); err != nil {
			return Spooled, err
		}
	}
}

// backoff: the server's Retry-After when it gave one, else base·2^attempt with ±50% jitter.
func (r *Runner) backoff(attempt int, err error) time.Duration {
	var se *ServerError
	if errors.As(err, &se) && se.RetryAfter > 0 {
		return min(se.RetryAfter, r.opts.MaxWait)
	}
	d := r.opts.Backoff << min(attempt, 20)
	d = d/2 + time.Duration(rand.Int64N(int64(d)))
	return min(d, r.opts.MaxWait)
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// OlderThan reports whether version is a release older than minimum (both semantic versions,
// with or without a leading v); a development build or an unset minimum is never older.
func OlderThan(version, minimum string) (bool, string) {
	v, m := canonical(version), canonical(minimum)
	if v == "" || m == "" {
		return false, minimum
	}
	return semver.Compare(v, m) < 0, minimum
}

func canonical(v string) string {
	v = strings.TrimSpace(v)
	if v != "" && v[0] != 'v' {
		v = "v" + v
	}
	return semver.Canonical(v)
}

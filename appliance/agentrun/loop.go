package agentrun

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"
)

// heartbeatEvery is the longest silence between two requests of a running agent.
const heartbeatEvery = time.Hour

// Run cycles until ctx ends: an inventory every interval (the server's scan_interval unless
// Options.Interval says otherwise), heartbeats in between, and an undelivered inventory
// retried sooner, with back-off.
func (r *Runner) Run(ctx context.Context) error {
	failures := 0
	for {
		out, err := r.Cycle(ctx)
		wait := r.interval()
		if err != nil {
			r.opts.Log.Error("agent cycle failed", slog.String("outcome", string(out)), slog.Any("error", err))
			if r.state.HasSpool() && Retryable(err) {
				wait = min(r.backoff(failures+r.opts.Attempts, err), wait)
				failures++
			}
		} else {
			failures = 0
			r.opts.Log.Info("agent cycle", slog.String("outcome", string(out)))
		}
		debug.FreeOSMemory() // what the collection needed goes back to the system while idle
		if err := r.idle(ctx, wait); err != nil {
			return nil // stopped
		}
	}
}

// idle waits d, sending a heartbeat every heartbeatEvery meanwhile.
func (r *Runner) idle(ctx context.Context, d time.Duration) error {
	for d > heartbeatEvery {
		if err := r.opts.Sleep(ctx, heartbeatEvery); err != nil {
			return err
		}
		d -= heartbeatEvery
		if r.hostname == "" {
			continue
		}
		if cfg, err := r.cli.Heartbeat(ctx, r.hostname, r.opts.Version); err != nil {
			r.opts.Log.Warn("heartbeat failed", slog.Any("error", err))
		} else if cfg.ScanInterval > 0 {
			r.cfg.ScanInterval = cfg.ScanInterval
		}
	}
	return r.opts.Sleep(ctx, d)
}

func (r *Runner) interval() time.Duration {
	if r.opts.Interval > 0 {
		return r.opts.Interval
	}
	return max(r.cfg.ScanInterval, time.Minute)
}

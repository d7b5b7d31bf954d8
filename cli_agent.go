package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance/agentrun"
	"github.com/vulnkeeper/vulnkeeper/appliance/collect"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
	"github.com/vulnkeeper/vulnkeeper/web"
)

// agentFlags are the flags of `vulnkeeper agent` (and of `agent install`, which writes them
// into the service definition).
type agentFlags struct {
	server, keyFile, stateDir, caFile, pin, root string
	interval                                     time.Duration
	once, dryRun, containers                     bool
	attempts                                     int
}

func (f *agentFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.server, "server", "", "server base URL, e.g. https://vulnkeeper.example.com")
	fl.StringVar(&f.keyFile, "key-file", "", "file holding the agent key (must not be readable by other users)")
	fl.StringVar(&f.stateDir, "state-dir", defaultStateDir(), "directory for the agent id and the unsent inventory")
	fl.StringVar(&f.caFile, "ca-file", "", "PEM file of extra CA certificates to trust")
	fl.StringVar(&f.pin, "pin-sha256", "", "SHA-256 (hex) of the server certificate to accept")
	fl.DurationVar(&f.interval, "interval", 0, "time between inventories (default: the server's scan_interval)")
}

func (c *cli) agentCommand() *cobra.Command {
	var f agentFlags
	cmd := &cobra.Command{
		Use:   "agent --server URL --key-file FILE [--once] [--interval D] [--dry-run]",
		Short: "Collect this host's software and OS and report them to the server",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.runAgent(cmd.Context(), f) },
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&f.once, "once", false, "send one inventory (or heartbeat) and exit; for timers and scheduled tasks")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the inventory JSON that would be sent, send nothing")
	cmd.Flags().BoolVar(&f.containers, "containers", false, "also scan running containers' images with trivy or grype, when installed")
	cmd.Flags().StringVar(&f.root, "root", "/", "root of the filesystem to collect from")
	cmd.Flags().IntVar(&f.attempts, "attempts", 4, "deliveries tried per cycle before the inventory stays spooled")
	_ = cmd.Flags().MarkHidden("root")
	_ = cmd.Flags().MarkHidden("attempts")
	cmd.AddCommand(c.agentInstallCommand(), c.agentUninstallCommand())
	return cmd
}

func (c *cli) runAgent(ctx context.Context, f agentFlags) error {
	collectHost := func() (collect.Inventory, error) {
		return agentrun.LocalHost(f.root, collect.LocalRegistry(), sqlitestore.EachRPMHeader)
	}
	if f.dryRun {
		return c.printInventory(collectHost)
	}
	if f.server == "" || f.keyFile == "" {
		return errors.New("--server and --key-file are required (or --dry-run)")
	}
	key, err := agentrun.ReadKeyFile(f.keyFile)
	if err != nil {
		return err
	}
	client, err := web.NewAgentClient(web.AgentClientOptions{Server: f.server, Key: key, CAFile: f.caFile,
		PinSHA256: f.pin, UserAgent: "vulnkeeper-agent/" + version})
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(c.errw, nil))
	r, err := agentrun.New(client, agentrun.Options{StateDir: f.stateDir, Version: version, Interval: f.interval,
		Attempts: f.attempts, Collect: collectHost, Log: log, Containers: containerScanning(f.containers, log)})
	if err != nil {
		return err
	}
	if !f.once {
		// An agent idles between runs: keep its heap small and give freed memory back at once,
		// so a host pays a few MB for it, not what one collection briefly needed.
		debug.SetGCPercent(25)
		debug.SetMemoryLimit(24 << 20)
		return r.Run(ctx)
	}
	out, err := r.Cycle(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "%s (agent %s)\n", out, r.AgentID())
	return nil
}

func (c *cli) printInventory(collectHost func() (collect.Inventory, error)) error {
	inv, err := collectHost()
	if err != nil {
		return err
	}
	inv.Agent = collect.Agent{Version: version}
	b, err := web.EncodeInventory(inv)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.out, "%s\n", b)
	return err
}

func defaultStateDir() string {
	switch runtime.GOOS {
	case "windows":
		return filepath.Join(os.Getenv("ProgramData"), "vulnkeeper-agent")
	case "darwin":
		return "/Library/Application Support/vulnkeeper-agent"
	}
	return "/var/lib/vulnkeeper-agent"
}

// containerScanning is set up when asked for and both a scanner and an engine are present;
// otherwise the agent skips containers quietly (a log line at debug level).
func containerScanning(wanted bool, log *slog.Logger) *agentrun.Containers {
	if !wanted {
		return nil
	}
	sc, ok := agentrun.FindScanner()
	eng, found := web.FindContainerEngine(web.EngineSockets())
	if !ok || !found {
		log.Debug("container scanning skipped", slog.Bool("scanner", ok), slog.Bool("engine", found))
		return nil
	}
	return &agentrun.Containers{Engine: eng, Scanner: sc}
}

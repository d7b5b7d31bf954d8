package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance/agentrun"
	"github.com/vulnkeeper/vulnkeeper/packaging"
)

// servicePlan is what installing the agent as a service means on one platform: files to
// write, commands that enable them, commands that disable them before removal and after it.
type servicePlan struct {
	files          []plannedFile
	enable         [][]string
	disable, after [][]string
}

type plannedFile struct {
	path string
	data []byte
	mode fs.FileMode
}

// installFlags: the agent's flags plus where to write (tests) and whether to enable.
type installFlags struct {
	agentFlags
	dest     string
	noEnable bool
}

func (c *cli) agentInstallCommand() *cobra.Command {
	var f installFlags
	cmd := &cobra.Command{
		Use:   "install --server URL --key-file FILE",
		Short: "Run the agent hourly: a systemd timer (Linux), a launchd daemon (macOS) or a scheduled task (Windows)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.installAgent(cmd.Context(), f) },
	}
	f.register(cmd)
	addInstallFlags(cmd, &f)
	return cmd
}

func (c *cli) agentUninstallCommand() *cobra.Command {
	var f installFlags
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the agent's service definition (its state directory is kept)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.uninstallAgent(cmd.Context(), f) },
	}
	cmd.Flags().StringVar(&f.stateDir, "state-dir", defaultStateDir(), "state directory given at install")
	addInstallFlags(cmd, &f)
	return cmd
}

func addInstallFlags(cmd *cobra.Command, f *installFlags) {
	cmd.Flags().StringVar(&f.dest, "dest", "", "write under this directory instead of / (packaging, tests)")
	cmd.Flags().BoolVar(&f.noEnable, "no-enable", false, "write the files only")
	_ = cmd.Flags().MarkHidden("dest")
}

func (c *cli) installAgent(ctx context.Context, f installFlags) error {
	if f.server == "" || f.keyFile == "" {
		return errors.New("--server and --key-file are required")
	}
	key, err := filepath.Abs(f.keyFile)
	if err != nil {
		return err
	}
	if _, err := agentrun.ReadKeyFile(key); err != nil {
		return err
	}
	f.keyFile = key
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("locate this program: %w", err)
	}
	p, err := servicePlanFor(runtime.GOOS, f.agentFlags, exe)
	if err != nil {
		return err
	}
	for _, pf := range p.files {
		path := filepath.Join(f.dest, pf.path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, pf.data, pf.mode); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		fmt.Fprintf(c.out, "wrote %s\n", path)
	}
	if f.noEnable {
		return nil
	}
	return c.runAll(ctx, p.enable, true)
}

func (c *cli) uninstallAgent(ctx context.Context, f installFlags) error {
	p, err := servicePlanFor(runtime.GOOS, f.agentFlags, "")
	if err != nil {
		return err
	}
	if !f.noEnable {
		_ = c.runAll(ctx, p.disable, false) // not installed or already stopped: go on removing
	}
	for _, pf := range p.files {
		path := filepath.Join(f.dest, pf.path)
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		fmt.Fprintf(c.out, "removed %s\n", path)
	}
	if f.noEnable {
		return nil
	}
	return c.runAll(ctx, p.after, true)
}

// runAll runs commands in order; with stopOnError the first failure ends it.
func (c *cli) runAll(ctx context.Context, cmds [][]string, stopOnError bool) error {
	for _, args := range cmds {
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Stdout, cmd.Stderr = c.out, c.errw
		if err := cmd.Run(); err != nil && stopOnError {
			return fmt.Errorf("%v: %w", args, err)
		}
	}
	return nil
}

// servicePlanFor builds the plan of goos; exe is this program (empty when uninstalling).
func servicePlanFor(goos string, f agentFlags, exe string) (servicePlan, error) {
	var extra []string
	if f.caFile != "" {
		extra = append(extra, "--ca-file", f.caFile)
	}
	if f.pin != "" {
		extra = append(extra, "--pin-sha256", f.pin)
	}
	run := packaging.Command{Exe: exe, Args: append([]string{"agent", "--once", "--server", f.server,
		"--key-file", f.keyFile, "--state-dir", f.stateDir}, extra...)}
	switch goos {
	case "linux":
		service, timer := packaging.SystemdUnits(exe)
		env, err := packaging.SystemdEnv(f.server, f.keyFile, extra)
		if err != nil {
			return servicePlan{}, err
		}
		return servicePlan{
			files: []plannedFile{{"/etc/systemd/system/" + packaging.SystemdService, service, 0o644},
				{"/etc/systemd/system/" + packaging.SystemdTimer, timer, 0o644}, {"/etc/vulnkeeper/agent.env", env, 0o600}},
			enable:  [][]string{{"systemctl", "daemon-reload"}, {"systemctl", "enable", "--now", packaging.SystemdTimer}},
			disable: [][]string{{"systemctl", "disable", "--now", packaging.SystemdTimer}},
			after:   [][]string{{"systemctl", "daemon-reload"}},
		}, nil
	case "darwin":
		plist, err := packaging.LaunchdPlist(run)
		path := "/Library/LaunchDaemons/" + packaging.LaunchdLabel + ".plist"
		return servicePlan{files: []plannedFile{{path, plist, 0o644}},
			enable:  [][]string{{"launchctl", "bootstrap", "system", path}},
			disable: [][]string{{"launchctl", "bootout", "system/" + packaging.LaunchdLabel}}}, err
	case "windows":
		task, err := packaging.WindowsTaskXML(run)
		path := filepath.Join(f.stateDir, packaging.WindowsTask+".xml")
		return servicePlan{files: []plannedFile{{path, task, 0o600}},
			enable:  [][]string{{"schtasks", "/Create", "/TN", packaging.WindowsTask, "/XML", path, "/F"}},
			disable: [][]string{{"schtasks", "/Delete", "/TN", packaging.WindowsTask, "/F"}}}, err
	}
	return servicePlan{}, fmt.Errorf("agent install does not know %s", goos)
}

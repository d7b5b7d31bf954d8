package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// cli carries the streams and global flags every command shares.
type cli struct {
	in         io.Reader
	out, errw  io.Writer
	configFile string
}

func execute(ctx context.Context, args []string, in io.Reader, out, errw io.Writer) int {
	c := &cli{in: in, out: out, errw: errw}
	root := c.rootCommand()
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errw)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(errw, "error:", describe(err))
		return 1
	}
	return 0
}

// describe turns domain errors into a sentence for an operator: a domain error reads as its
// kind and public message, without the store error behind it.
func describe(err error) string {
	var ve *appliance.ValidationError
	if errors.As(err, &ve) {
		return ve.Error()
	}
	var ae *appliance.Error
	if errors.As(err, &ae) && ae.Public != "" {
		return ae.Kind.Error() + ": " + ae.Public
	}
	return err.Error()
}

func (c *cli) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "vulnkeeper",
		Short:         "Software inventory, CPE resolution and vulnerability matching in one binary",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("data-dir", "", "data directory (database, index, keys); default ./var")
	root.PersistentFlags().StringVar(&c.configFile, "config", "", "configuration file (YAML)")
	root.AddCommand(c.serveCommand(), c.quickstartCommand(), c.orgCommand(), c.userCommand(), c.agentKeyCommand(),
		c.feedCommand(), c.catalogCommand(), c.licenseCommand(), c.kbCommand(), c.configCommand(), c.backupCommand(), c.versionCommand(),
		c.agentCommand(), c.sbomCommand(), c.vexCommand())
	return root
}

// settings loads the configuration with the flags of cmd applied on top.
func (c *cli) settings(cmd *cobra.Command) (Config, error) {
	v, err := newViper(c.configFile)
	if err != nil {
		return Config{}, err
	}
	binds := map[string]string{"data-dir": "storage.data_dir", "listen": "server.listen",
		"tls-cert": "server.tls_cert", "tls-key": "server.tls_key"}
	for flag, key := range binds {
		if f := cmd.Flags().Lookup(flag); f != nil && f.Changed {
			v.Set(key, f.Value.String())
		}
	}
	return loadConfig(v)
}

func dbPath(cfg Config) string { return filepath.Join(cfg.Storage.DataDir, "vulnkeeper.db") }

// errNoInstallation says a command that works on an installation found no database.
var errNoInstallation = errors.New("no vulnkeeper database")

// withStore opens the database of an existing installation for one command; a data directory
// without one is refused (a typo in --data-dir must not create, and then back up or import
// into, a new empty installation). Only serve, quickstart and org create make a database.
func (c *cli) withStore(cmd *cobra.Command, fn func(Config, *sqlitestore.Store) error) error {
	return c.openStore(cmd, false, fn)
}

// withNewStore is withStore for the commands that may create the installation.
func (c *cli) withNewStore(cmd *cobra.Command, fn func(Config, *sqlitestore.Store) error) error {
	return c.openStore(cmd, true, fn)
}

func (c *cli) openStore(cmd *cobra.Command, create bool, fn func(Config, *sqlitestore.Store) error) error {
	cfg, err := c.settings(cmd)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dbPath(cfg)); !create && errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w in %s: create the installation first (vulnkeeper serve, quickstart or org create), or pass the right --data-dir", errNoInstallation, cfg.Storage.DataDir)
	}
	st, err := sqlitestore.Open(cmd.Context(), dbPath(cfg), cfg.storeOptions(), newLogger(cfg.Log))
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(cfg, st)
}

func (c *cli) withAccounts(cmd *cobra.Command, fn func(*accounts.Accounts) error) error {
	return c.withStore(cmd, func(cfg Config, st *sqlitestore.Store) error {
		return fn(accounts.NewAccounts(st, cfg.Auth))
	})
}

// readSecret reads one line (a password) from standard input.
func (c *cli) readSecret() (string, error) {
	line, err := bufio.NewReader(c.in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("no password on standard input")
	}
	return line, nil
}

func (c *cli) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the database schema version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(c.out, "vulnkeeper %s (schema %d)\n", version, sqlitestore.SchemaVersion())
			return nil
		},
	}
}

func (c *cli) backupCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the database to FILE (safe while serving)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withStore(cmd, func(_ Config, st *sqlitestore.Store) error {
				if err := st.Backup(cmd.Context(), args[0]); err != nil {
					return err
				}
				fmt.Fprintf(c.out, "backup written to %s\n", args[0])
				return nil
			})
		},
	}
}

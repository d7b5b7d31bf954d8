package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance/kb"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
	"github.com/vulnkeeper/vulnkeeper/web"
)

// withKBClient opens the installation's store and its KB client for one command.
func (c *cli) withKBClient(cmd *cobra.Command, fn func(*kb.Client) error) error {
	return c.withStore(cmd, func(cfg Config, st *sqlitestore.Store) error {
		return fn(kb.NewClient(st, web.NewKBClient(), cfg.License, newLogger(cfg.Log)))
	})
}

func (c *cli) licenseClientCommands() []*cobra.Command {
	var server, code, publicKey string
	activate := &cobra.Command{
		Use:   "activate --server URL --code CODE [--public-key KEY]",
		Short: "Activate this installation's licence at the licence server and store it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withKBClient(cmd, func(k *kb.Client) error {
				p, err := k.Activate(cmd.Context(), server, code, publicKey)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.out, "licence activated: %s edition for installation %s, valid until %s\n",
					p.Edition, p.InstallationID, p.ExpiresAt.Format(time.RFC3339))
				if publicKey == "" {
					fmt.Fprintln(c.out, "note: no --public-key given; pin the server key (license.public_key) to verify licences and snapshots")
				}
				return nil
			})
		},
	}
	activate.Flags().StringVar(&server, "server", "", "licence server base URL (required)")
	activate.Flags().StringVar(&code, "code", "", "activation code (required)")
	activate.Flags().StringVar(&publicKey, "public-key", "", "the licence server's public key to pin")
	_ = activate.MarkFlagRequired("server")
	_ = activate.MarkFlagRequired("code")
	status := &cobra.Command{
		Use:   "status",
		Short: "Show this installation's licence: edition, expiry, server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withKBClient(cmd, func(k *kb.Client) error {
				st, err := k.Status(cmd.Context())
				if err != nil {
					return err
				}
				if !st.Licensed {
					fmt.Fprintf(c.out, "no licence (installation %s); activate with: vulnkeeper license activate --server URL --code CODE\n", st.InstallationID)
					return nil
				}
				state := "active"
				if !time.Now().Before(st.ExpiresAt) {
					state = "EXPIRED"
				}
				fmt.Fprintf(c.out, "edition: %s\nexpires: %s (%s)\nserver: %s\ninstallation: %s\n",
					st.Edition, st.ExpiresAt.Format(time.RFC3339), state, st.ServerURL, st.InstallationID)
				return nil
			})
		},
	}
	return []*cobra.Command{activate, status}
}

func (c *cli) kbClientCommands() []*cobra.Command {
	var publicKey string
	imp := &cobra.Command{
		Use:   "import FILE [--public-key KEY]",
		Short: "Apply a signed KB snapshot (air-gapped installations); a tampered file changes nothing",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withKBClient(cmd, func(k *kb.Client) error {
				n, err := withFile(args[0], func(f *os.File) (int, error) { return k.ImportSnapshot(cmd.Context(), f, publicKey) })
				if err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				fmt.Fprintf(c.out, "%s: %d mappings verified and applied\n", args[0], n)
				return nil
			})
		},
	}
	imp.Flags().StringVar(&publicKey, "public-key", "", "licence server public key (default: the pinned one)")
	sync := &cobra.Command{
		Use:   "sync",
		Short: "Pull (and push, professional edition) KB mappings now",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withKBClient(cmd, func(k *kb.Client) error {
				if err := k.Sync(cmd.Context()); err != nil {
					return err
				}
				st, err := k.Status(cmd.Context())
				if err != nil {
					return err
				}
				fmt.Fprintf(c.out, "pulled %d mappings, pushed %d\n", st.Pulled, st.Pushed)
				return nil
			})
		},
	}
	return []*cobra.Command{imp, sync}
}

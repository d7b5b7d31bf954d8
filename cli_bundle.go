package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

func (c *cli) feedBundleCommand() *cobra.Command {
	var since int64
	cmd := &cobra.Command{
		Use:   "bundle FILE [--since SERIAL]",
		Short: "Write a signed bundle of the vulnerability data synced or imported here (since bundle SERIAL) for an air-gapped installation",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withStore(cmd, func(cfg Config, st *sqlitestore.Store) error {
				return c.writeBundle(cmd.Context(), cfg, st, args[0], since)
			})
		},
	}
	cmd.Flags().Int64Var(&since, "since", 0, "carry only what changed since this bundle serial (default: everything)")
	return cmd
}

func (c *cli) feedBundleKeyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "bundle-key",
		Short: "Print the public key feed bundles written here are signed with (configure it as feeds.bundle_public_key on the air-gapped side)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withStore(cmd, func(cfg Config, _ *sqlitestore.Store) error {
				key, _, err := bundleKey(cfg)
				if err != nil {
					return err
				}
				fmt.Fprintln(c.out, licensing.EncodePublicKey(key.Public().(ed25519.PublicKey)))
				return nil
			})
		},
	}
}

func bundleKey(cfg Config) (ed25519.PrivateKey, bool, error) {
	return licensing.LoadOrCreateKeyFiles(cfg.Storage.DataDir, licensing.BundlePrivateKeyFile, licensing.BundlePublicKeyFile)
}

// writeBundle writes the bundle to a temporary file beside name and renames it into place, so
// an interrupted run leaves no partial bundle.
func (c *cli) writeBundle(ctx context.Context, cfg Config, st *sqlitestore.Store, name string, since int64) error {
	key, _, err := bundleKey(cfg)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".bundle-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	sum, err := feeds.NewBundler(st).Write(ctx, tmp, key, since)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return err
	}
	fmt.Fprintf(c.out, "%s: bundle %d (since %d): %s\n", name, sum.Serial, sum.Since, bundleCounts(sum))
	return nil
}

func bundleCounts(s feeds.BundleSummary) string {
	return fmt.Sprintf("%d CVEs, %d removed, %d KEV entries, %d EPSS scores, %d advisory entries, %d catalogue identities",
		s.CVEs, s.Removed, s.KEV, s.EPSS, s.Advs, s.Catalog)
}

// isBundle says whether the file starts like a feed bundle.
func isBundle(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(licensing.BundleFile.Magic)+1)
	n, _ := io.ReadFull(f, head)
	return licensing.HasSignedHeader(head[:n], licensing.BundleFile)
}

// importBundle verifies a bundle against feeds.bundle_public_key and applies it.
func (c *cli) importBundle(ctx context.Context, cfg Config, st *sqlitestore.Store, name string) error {
	if cfg.Feeds.BundlePublicKey == "" {
		return errors.New("feed bundles are verified against feeds.bundle_public_key: set it to the key `vulnkeeper feed bundle-key` prints on the connected installation")
	}
	pub, err := licensing.ParsePublicKey(cfg.Feeds.BundlePublicKey)
	if err != nil {
		return fmt.Errorf("feeds.bundle_public_key: %w", err)
	}
	sum, err := withFile(name, func(f *os.File) (feeds.BundleSummary, error) { return feeds.NewBundler(st).Import(ctx, f, pub) })
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(c.out, "%s: bundle %d (since %d) imported: %s\n", name, sum.Serial, sum.Since, bundleCounts(sum))
	return nil
}

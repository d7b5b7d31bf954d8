package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

func (c *cli) feedCommand() *cobra.Command {
	feed := &cobra.Command{Use: "feed", Short: "Import or sync vulnerability data"}
	feed.AddCommand(c.feedSyncCommand(), c.feedBundleCommand(), c.feedBundleKeyCommand())
	feed.AddCommand(&cobra.Command{
		Use:   "import FILE...",
		Short: "Import NVD CVE API 2.0 feeds, CVE JSON 5 records (file, cvelistV5 directory, cves.zip or delta zip), the CISA KEV catalogue, FIRST EPSS CSV, OSV records (file, directory, all.zip), the Debian tracker JSON and DSA/DLA lists, Alpine secdb, feed bundles (verified against feeds.bundle_public_key); .gz too; safe while serving",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withStore(cmd, func(cfg Config, st *sqlitestore.Store) error {
				return c.importFeeds(cmd.Context(), cfg, st, args)
			})
		},
	})
	return feed
}

func (c *cli) importFeeds(ctx context.Context, cfg Config, st *sqlitestore.Store, files []string) error {
	im := inventory.NewImporter(st)
	im.Progress = c.progress
	for _, name := range files {
		if isBundle(name) {
			if err := c.importBundle(ctx, cfg, st, name); err != nil {
				return err
			}
			continue
		}
		start := time.Now()
		stats, err := importInput(ctx, im, name)
		if err != nil {
			return err
		}
		took := time.Since(start)
		if stats.Format == "epss" {
			fmt.Fprintf(c.out, "%s: %d EPSS scores in %s\n", name, stats.EPSS, took.Round(time.Millisecond))
			continue
		}
		if stats.Format != "nvd" && stats.Format != "cve5" {
			fmt.Fprintf(c.out, "%s: %s, %d advisory entries, %d new or changed in %s (%.0f entries/s)\n",
				name, stats.Format, stats.Advisories, stats.Changed, took.Round(time.Millisecond),
				float64(stats.Advisories)/took.Seconds())
			continue
		}
		fmt.Fprintf(c.out, "%s: %d CVEs, %d rejected removed, %d KEV entries, %d catalogue identities in %s (%.0f records/s)\n",
			name, stats.CVEs, stats.Rejected, stats.KEV, stats.Identities, took.Round(time.Millisecond),
			float64(stats.CVEs+stats.KEV)/took.Seconds())
	}
	return nil
}

// importInput imports a file (recognised by its content) or a directory (CVE JSON 5 records in
// the cvelistV5 layout, or OSV records).
func importInput(ctx context.Context, im *inventory.Importer, name string) (inventory.ImportStats, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return inventory.ImportStats{}, err
	}
	if fi.IsDir() {
		return im.ImportDir(ctx, name, os.DirFS(name))
	}
	return withFile(name, func(f *os.File) (inventory.ImportStats, error) { return im.Import(ctx, name, f, fi.Size()) })
}

func (c *cli) progress(file string, records int, elapsed time.Duration) {
	fmt.Fprintf(c.errw, "%s: %d records (%.0f/s)\n", file, records, float64(records)/elapsed.Seconds())
}

func (c *cli) catalogCommand() *cobra.Command {
	cat := &cobra.Command{Use: "catalog", Short: "Import software identities"}
	cat.AddCommand(&cobra.Command{
		Use:   "import FILE...",
		Short: "Import a catalogue: TSV (part, vendor, product, title), NVD CPE API 2.0 JSON, CPE dictionary XML 2.3 or Syft's cpe-index.json; .gz too",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withStore(cmd, func(_ Config, st *sqlitestore.Store) error {
				im := inventory.NewImporter(st)
				for _, name := range args {
					start := time.Now()
					n, err := withFile(name, func(f *os.File) (int, error) { return im.ImportCatalog(cmd.Context(), name, f, "nvd") })
					if err != nil {
						return err
					}
					fmt.Fprintf(c.out, "%s: %d identities in %s\n", name, n, time.Since(start).Round(time.Millisecond))
				}
				return nil
			})
		},
	})
	return cat
}

func withFile[T any](name string, fn func(*os.File) (T, error)) (T, error) {
	f, err := os.Open(name)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return fn(f)
}

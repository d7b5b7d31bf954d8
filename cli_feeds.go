package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
	"github.com/vulnkeeper/vulnkeeper/web"
)

func (c *cli) feedSyncCommand() *cobra.Command {
	var sources []string
	var since string
	cmd := &cobra.Command{
		Use:   "sync [--source nvd|kev|epss|osv]... [--since DATE]",
		Short: "Fetch NVD (incrementally, resuming where the last sync stopped), CISA KEV, FIRST EPSS and the enabled OSV ecosystems now; safe while serving",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := syncOptions(sources, since)
			if err != nil {
				return err
			}
			return c.withStore(cmd, func(cfg Config, st *sqlitestore.Store) error {
				return c.syncFeeds(cmd.Context(), newSyncer(cfg, st), o)
			})
		},
	}
	cmd.Flags().StringSliceVar(&sources, "source", nil, "source to sync: nvd, kev, epss or osv (repeatable; default all, osv when feeds.osv_ecosystems is set)")
	cmd.Flags().StringVar(&since, "since", "", "first NVD sync only: start at this lastModified date (YYYY-MM-DD), e.g. the date of the feed files imported")
	return cmd
}

func syncOptions(sources []string, since string) (feeds.SyncOptions, error) {
	o := feeds.SyncOptions{Sources: sources}
	if since != "" {
		t, err := time.Parse(time.DateOnly, since)
		if err != nil {
			return o, fmt.Errorf("--since %q: want YYYY-MM-DD", since)
		}
		o.Since = t
	}
	return o, nil
}

func newSyncer(cfg Config, st *sqlitestore.Store) *feeds.Syncer {
	client := web.NewFeedClient(web.FeedClientOptions{AllowHTTP: cfg.Feeds.AllowHTTP})
	return feeds.NewSyncer(st, client, cfg.Feeds, newLogger(cfg.Log))
}

func (c *cli) syncFeeds(ctx context.Context, s *feeds.Syncer, o feeds.SyncOptions) error {
	results, err := s.Sync(ctx, o)
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(c.out, "%s: failed after %d records in %s: %v\n", r.Source, r.Records, r.Took.Round(time.Millisecond), r.Err)
			continue
		}
		fmt.Fprintf(c.out, "%s: %d records in %s\n", r.Source, r.Records, r.Took.Round(time.Millisecond))
	}
	return err
}

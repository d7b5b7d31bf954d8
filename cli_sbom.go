package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/appliance/sbom"
	"github.com/vulnkeeper/vulnkeeper/kbindex"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

func (c *cli) sbomCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "sbom", Short: "Software bills of materials as inventories"}
	var host, org, kind string
	imp := &cobra.Command{
		Use:   "import FILE",
		Short: "Take a CycloneDX (JSON/XML), SPDX 2.x (JSON/tag-value) or Syft JSON document as the full inventory of an asset; safe while serving",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withStore(cmd, func(cfg Config, st *sqlitestore.Store) error {
				return c.importSBOM(cmd, cfg, st, args[0], host, org, appliance.AssetKind(kind))
			})
		},
	}
	imp.Flags().StringVar(&host, "host", "", "the asset the document is the inventory of (default: the application it describes, name@version)")
	imp.Flags().StringVar(&org, "org", "", "organization (required)")
	imp.Flags().StringVar(&kind, "kind", "application", "the asset is an application or a host")
	_ = imp.MarkFlagRequired("org")
	cmd.AddCommand(imp)
	return cmd
}

// importSBOM reconciles the document as the asset's inventory with the same service the
// agent API uses; the running server, if any, sees the change as it sees imports.
func (c *cli) importSBOM(cmd *cobra.Command, cfg Config, st *sqlitestore.Store, file, host, orgName string, kind appliance.AssetKind) error {
	ctx := cmd.Context()
	o, err := accounts.NewAccounts(st, cfg.Auth).Organization(ctx, orgName)
	if err != nil {
		return fmt.Errorf("organization %q: %w", orgName, err)
	}
	doc, err := withFile(file, func(f *os.File) (sbom.Document, error) { return sbom.Read(f) })
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if host == "" && doc.Name != "" {
		host = doc.Name
		if doc.Version != "" {
			host += "@" + doc.Version
		}
	}
	rep, err := doc.Report(host, kind)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	// The name index lives beside the server's, so a running server's is left alone.
	dir, err := os.MkdirTemp(cfg.Storage.DataDir, "sbom-index-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	idx := kbindex.NewLive(dir)
	defer idx.Close()
	log := newLogger(cfg.Log)
	svc := inventory.NewService(st, inventory.NewEngine(st, idx, log), cfg.Agent, log)
	if err := svc.Refresh(ctx); err != nil {
		return err
	}
	res, err := svc.Submit(ctx, o.ID, rep)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	s := res.Summary
	fmt.Fprintf(c.out, "%s: %s, %d components → asset %q (id %d): %d products, %d installations created, %d removed\n",
		file, doc.Format, len(doc.Items), res.Hostname, res.AssetID, s.TotalProducts, s.InstallationsCreated, s.InstallationsRemoved)
	return nil
}

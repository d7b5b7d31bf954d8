package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/kb"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// withKBHub opens the licence server's knowledge base (store and snapshot signing key).
func (c *cli) withKBHub(cmd *cobra.Command, fn func(*kb.Hub) error) error {
	return c.withStore(cmd, func(cfg Config, st *sqlitestore.Store) error {
		key, _, err := licensing.LoadOrCreateKey(cfg.Storage.DataDir)
		if err != nil {
			return err
		}
		return fn(kb.NewHub(st, key))
	})
}

// withLicenseServer opens the licence server's store and signing key for one command.
func (c *cli) withLicenseServer(cmd *cobra.Command, fn func(*licensing.Server) error) error {
	return c.withStore(cmd, func(cfg Config, st *sqlitestore.Store) error {
		key, _, err := licensing.LoadOrCreateKey(cfg.Storage.DataDir)
		if err != nil {
			return err
		}
		return fn(licensing.NewServer(st, key, cfg.License))
	})
}

func (c *cli) licenseCommand() *cobra.Command {
	lic := &cobra.Command{Use: "license", Short: "Licences: issue codes (licence server), activate and inspect (installation)"}
	var edition, validFor, customer string
	create := &cobra.Command{
		Use:   "create-code --edition professional|standard --valid-for DURATION [--customer C]",
		Short: "Issue a one-time activation code on the licence server (printed as the last line)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := parseTerm(validFor)
			if err != nil {
				return err
			}
			return c.withLicenseServer(cmd, func(s *licensing.Server) error {
				code, err := s.CreateCode(cmd.Context(), edition, d, customer)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.out, "activation code for a %s licence of %s (term counts from activation):\n%s\n", edition, d, code)
				return nil
			})
		},
	}
	create.Flags().StringVar(&edition, "edition", "", "professional or standard (required)")
	create.Flags().StringVar(&validFor, "valid-for", "", "term, e.g. 8760h, 365d or 30m (required)")
	create.Flags().StringVar(&customer, "customer", "", "customer name")
	_ = create.MarkFlagRequired("edition")
	_ = create.MarkFlagRequired("valid-for")
	pub := &cobra.Command{
		Use:   "public-key",
		Short: "Print the licence server's public key, for installations to pin (license.public_key)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withLicenseServer(cmd, func(s *licensing.Server) error {
				fmt.Fprintln(c.out, licensing.EncodePublicKey(s.PublicKey()))
				return nil
			})
		},
	}
	lic.AddCommand(create, pub)
	lic.AddCommand(c.licenseClientCommands()...)
	return lic
}

// parseTerm reads a Go duration, or a whole number of days ("365d").
func parseTerm(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err == nil && n > 0 && fmt.Sprint(n) == days {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--valid-for must be a positive duration such as 8760h or 365d, not %q", s)
	}
	return d, nil
}

func (c *cli) kbCommand() *cobra.Command {
	kbCmd := &cobra.Command{Use: "kb", Short: "The shared knowledge base of vendor/product → CPE mappings"}
	var m mappingFlags
	curate := &cobra.Command{Use: "curate", Short: "Manage operator-verified (curated) mappings on the licence server"}
	add := &cobra.Command{
		Use:   "add --vendor-pattern V --product-pattern P --cpe-vendor CV --cpe-product CP [--confidence C]",
		Short: "Add or update a curated mapping (published at once)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withKBHub(cmd, func(s *kb.Hub) error {
				if err := s.Curate(cmd.Context(), m.mapping(cmd)); err != nil {
					return err
				}
				fmt.Fprintln(c.out, "curated mapping saved")
				return nil
			})
		},
	}
	remove := &cobra.Command{
		Use:   "remove --vendor-pattern V --product-pattern P --cpe-vendor CV --cpe-product CP",
		Short: "Withdraw a curated mapping (installations delete it at their next pull)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withKBHub(cmd, func(s *kb.Hub) error {
				if err := s.Withdraw(cmd.Context(), "curated", m.mapping(cmd)); err != nil {
					return err
				}
				fmt.Fprintln(c.out, "curated mapping withdrawn")
				return nil
			})
		},
	}
	retract := &cobra.Command{
		Use:   "retract --vendor-pattern V --product-pattern P --cpe-vendor CV --cpe-product CP",
		Short: "Retract a community mapping everywhere (pull returns it with retracted: true)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withKBHub(cmd, func(s *kb.Hub) error {
				if err := s.Withdraw(cmd.Context(), "community", m.mapping(cmd)); err != nil {
					return err
				}
				fmt.Fprintln(c.out, "community mapping retracted")
				return nil
			})
		},
	}
	for _, cm := range []*cobra.Command{add, remove, retract} {
		m.register(cm)
	}
	add.Flags().Float64Var(&m.confidence, "confidence", 1, "confidence in [0, 1]")
	curate.AddCommand(add, remove)
	export := &cobra.Command{
		Use:   "export FILE",
		Short: "Write a signed snapshot of the published KB (licence server) for air-gapped installations",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withKBHub(cmd, func(s *kb.Hub) error {
				f, err := os.OpenFile(args[0], os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
				if err != nil {
					return err
				}
				n, err := s.Export(cmd.Context(), f)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					os.Remove(args[0])
					return err
				}
				fmt.Fprintf(c.out, "%d mappings written to %s\n", n, args[0])
				return nil
			})
		},
	}
	kbCmd.AddCommand(curate, retract, export)
	kbCmd.AddCommand(c.kbClientCommands()...)
	return kbCmd
}

type mappingFlags struct {
	vendorPattern, productPattern, cpeVendor, cpeProduct string
	confidence                                           float64
}

func (m *mappingFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&m.vendorPattern, "vendor-pattern", "", "reported vendor (required)")
	cmd.Flags().StringVar(&m.productPattern, "product-pattern", "", "reported product name (required)")
	cmd.Flags().StringVar(&m.cpeVendor, "cpe-vendor", "", "CPE vendor (required)")
	cmd.Flags().StringVar(&m.cpeProduct, "cpe-product", "", "CPE product (required)")
	for _, f := range []string{"vendor-pattern", "product-pattern", "cpe-vendor", "cpe-product"} {
		_ = cmd.MarkFlagRequired(f)
	}
}

func (m *mappingFlags) mapping(cmd *cobra.Command) kb.Mapping {
	out := kb.Mapping{VendorPattern: m.vendorPattern, ProductPattern: m.productPattern, CPEVendor: m.cpeVendor, CPEProduct: m.cpeProduct}
	if cmd.Flags().Changed("confidence") {
		c := m.confidence
		out.Confidence = &c
	}
	return out
}

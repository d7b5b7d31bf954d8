package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

func (c *cli) configCommand() *cobra.Command {
	cfg := &cobra.Command{Use: "config", Short: "Inspect the configuration"}
	cfg.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration (defaults, file, environment, flags) with secrets redacted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			settings, err := c.settings(cmd)
			if err != nil {
				return err
			}
			out, err := yaml.Marshal(settings.redacted())
			if err != nil {
				return err
			}
			fmt.Fprint(c.out, string(out))
			return nil
		},
	})
	return cfg
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/triage"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

func (c *cli) vexCommand() *cobra.Command {
	vex := &cobra.Command{Use: "vex", Short: "Exchange triage decisions as VEX documents"}
	var orgName string
	imp := &cobra.Command{
		Use:   "import FILE --org ORG",
		Short: "Import an OpenVEX document: its not_affected statements become the organization's triage rules (safe while serving)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withStore(cmd, func(_ Config, st *sqlitestore.Store) error {
				return c.importVEX(cmd.Context(), st, orgName, args[0])
			})
		},
	}
	imp.Flags().StringVar(&orgName, "org", "", "organization name (required)")
	_ = imp.MarkFlagRequired("org")
	vex.AddCommand(imp)
	return vex
}

// importVEX imports file into the organization as its administration would, with the
// document's author as the rules' author.
func (c *cli) importVEX(ctx context.Context, st *sqlitestore.Store, orgName, file string) error {
	org, err := st.OrganizationByName(ctx, orgName)
	if errors.Is(err, appliance.ErrNotFound) {
		return fmt.Errorf("organization %q does not exist", orgName)
	} else if err != nil {
		return err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	actor := appliance.User{OrganizationID: org.ID, Role: appliance.RoleOrgAdmin}
	res, err := triage.NewService(st, nil).ImportVEX(ctx, actor, data)
	if err != nil {
		return fmt.Errorf("import %s: %w", file, err)
	}
	fmt.Fprintf(c.out, "%s: %d rules created, %d already in force, %d statements skipped (not not_affected with a justification)\n",
		file, res.Created, res.Existing, res.Skipped)
	return nil
}

package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

func (c *cli) orgCommand() *cobra.Command {
	org := &cobra.Command{Use: "org", Short: "Manage organizations"}
	org.AddCommand(&cobra.Command{
		Use:   "create NAME",
		Short: "Create an organization",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withNewStore(cmd, func(cfg Config, st *sqlitestore.Store) error {
				o, err := accounts.NewAccounts(st, cfg.Auth).CreateOrganization(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(c.out, "organization %q created (id %d)\n", o.Name, o.ID)
				return nil
			})
		},
	})
	return org
}

func (c *cli) userCommand() *cobra.Command {
	user := &cobra.Command{Use: "user", Short: "Manage people"}
	var orgName, username, role string
	var fromStdin, mustChange bool
	create := &cobra.Command{
		Use:   "create --org NAME --username U --role org_admin|member --password-stdin",
		Short: "Create a user; the password is read from standard input",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !fromStdin {
				return fmt.Errorf("--password-stdin is required: passwords are never taken from the command line")
			}
			pw, err := c.readSecret()
			if err != nil {
				return err
			}
			return c.withAccounts(cmd, func(a *accounts.Accounts) error {
				u, err := a.CreateUser(cmd.Context(), orgName, username, appliance.Role(role), pw)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.out, "user %q created in %q as %s (id %d)\n", u.Username, orgName, u.Role, u.ID)
				return nil
			})
		},
	}
	create.Flags().StringVar(&orgName, "org", "", "organization name (required)")
	create.Flags().StringVar(&username, "username", "", "login name (required)")
	create.Flags().StringVar(&role, "role", string(appliance.RoleMember), "org_admin or member")
	create.Flags().BoolVar(&fromStdin, "password-stdin", false, "read the password from standard input")
	_ = create.MarkFlagRequired("org")
	_ = create.MarkFlagRequired("username")

	passwd := &cobra.Command{
		Use:   "passwd --username U --password-stdin [--must-change]",
		Short: "Set a user's password (ending all of their sessions); the password is read from standard input",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !fromStdin {
				return fmt.Errorf("--password-stdin is required: passwords are never taken from the command line")
			}
			pw, err := c.readSecret()
			if err != nil {
				return err
			}
			return c.withAccounts(cmd, func(a *accounts.Accounts) error {
				if err := a.ResetPassword(cmd.Context(), username, pw, mustChange); err != nil {
					return err
				}
				fmt.Fprintf(c.out, "password of %q changed\n", username)
				return nil
			})
		},
	}
	passwd.Flags().StringVar(&username, "username", "", "login name (required)")
	passwd.Flags().BoolVar(&fromStdin, "password-stdin", false, "read the password from standard input")
	passwd.Flags().BoolVar(&mustChange, "must-change", false, "force a change at the next login")
	_ = passwd.MarkFlagRequired("username")
	reset2FA := &cobra.Command{
		Use:   "reset-2fa --org NAME --username U",
		Short: "Turn off a user's two-factor authentication (a lost authenticator); they can enrol again",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withAccounts(cmd, func(a *accounts.Accounts) error {
				if err := a.ResetTOTPByName(cmd.Context(), orgName, username); err != nil {
					return err
				}
				fmt.Fprintf(c.out, "two-factor authentication of %q in %q turned off\n", username, orgName)
				return nil
			})
		},
	}
	reset2FA.Flags().StringVar(&orgName, "org", "", "organization name (required)")
	reset2FA.Flags().StringVar(&username, "username", "", "login name (required)")
	_ = reset2FA.MarkFlagRequired("org")
	_ = reset2FA.MarkFlagRequired("username")
	user.AddCommand(create, passwd, reset2FA)
	return user
}

func (c *cli) agentKeyCommand() *cobra.Command {
	keys := &cobra.Command{Use: "agent-key", Short: "Manage agent keys"}
	var orgName, name string
	var scopes []string
	create := &cobra.Command{
		Use:   "create --org NAME [--name LABEL] [--scope agent]",
		Short: "Create an agent key; it is printed once, as the last line",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withAccounts(cmd, func(a *accounts.Accounts) error {
				plain, k, err := a.CreateAgentKey(cmd.Context(), orgName, name, scopes)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.out, "agent key %d %q created for %q with scopes %s; it is shown only now:\n",
					k.ID, k.Name, orgName, strings.Join(k.Scopes, ","))
				fmt.Fprintln(c.out, plain)
				return nil
			})
		},
	}
	create.Flags().StringVar(&orgName, "org", "", "organization name (required)")
	create.Flags().StringVar(&name, "name", "", "label of the key")
	create.Flags().StringSliceVar(&scopes, "scope", nil, "scopes of the key (default agent)")
	_ = create.MarkFlagRequired("org")

	list := &cobra.Command{
		Use:   "list --org NAME",
		Short: "List the agent keys of an organization",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withAccounts(cmd, func(a *accounts.Accounts) error {
				ks, err := a.AgentKeys(cmd.Context(), orgName)
				if err != nil {
					return err
				}
				return printKeys(c, ks)
			})
		},
	}
	list.Flags().StringVar(&orgName, "org", "", "organization name (required)")
	_ = list.MarkFlagRequired("org")

	revoke := &cobra.Command{
		Use:   "revoke --org NAME ID",
		Short: "Revoke an agent key at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("key id must be a number, not %q", args[0])
			}
			return c.withAccounts(cmd, func(a *accounts.Accounts) error {
				if err := a.RevokeAgentKey(cmd.Context(), orgName, id); err != nil {
					return err
				}
				fmt.Fprintf(c.out, "agent key %d revoked\n", id)
				return nil
			})
		},
	}
	revoke.Flags().StringVar(&orgName, "org", "", "organization name (required)")
	_ = revoke.MarkFlagRequired("org")
	keys.AddCommand(create, list, revoke)
	return keys
}

func printKeys(c *cli, ks []appliance.AgentKey) error {
	tw := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tSCOPES\tCREATED\tLAST USED\tREVOKED")
	for _, k := range ks {
		fmt.Fprintf(tw, "%d\t%s\t%s…\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Prefix, strings.Join(k.Scopes, ","),
			stamp(k.CreatedAt), stamp(k.LastUsedAt), stamp(k.RevokedAt))
	}
	return tw.Flush()
}

package accounts

import (
	"context"
	"errors"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// OrganizationByID loads the organization of a signed-in person.
func (a *Accounts) OrganizationByID(ctx context.Context, id int64) (appliance.Organization, error) {
	return a.store.OrganizationByID(ctx, id)
}

// Users lists the people of organization orgID.
func (a *Accounts) Users(ctx context.Context, orgID int64) ([]appliance.User, error) {
	return a.store.UsersOfOrganization(ctx, orgID)
}

// member loads user id of organization orgID; a user of another organization does not exist.
func (a *Accounts) member(ctx context.Context, orgID, id int64) (appliance.User, error) {
	u, err := a.store.UserByID(ctx, id)
	if err == nil && u.OrganizationID != orgID {
		err = appliance.ErrNotFound
	}
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.User{}, appliance.NotFound("user %d does not exist", id)
	}
	return u, err
}

// SetRole changes the role of user id of the actor's organization. An admin cannot change
// their own role, so an organization always keeps the admin who acts.
func (a *Accounts) SetRole(ctx context.Context, actor appliance.User, id int64, role appliance.Role) (appliance.User, error) {
	if role != appliance.RoleOrgAdmin && role != appliance.RoleMember {
		return appliance.User{}, appliance.Invalid("role", "enum", "role must be org_admin or member")
	}
	if actor.ID == id {
		return appliance.User{}, appliance.Conflict("you cannot change your own role")
	}
	u, err := a.member(ctx, actor.OrganizationID, id)
	if err != nil {
		return appliance.User{}, err
	}
	u.Role = role
	return u, a.store.InTx(ctx, func(tx appliance.Tx) error { return tx.SetRole(ctx, id, role) })
}

// ForcePasswordChange makes user id of organization orgID change the password before
// anything else, from the next request on.
func (a *Accounts) ForcePasswordChange(ctx context.Context, orgID, id int64) (appliance.User, error) {
	u, err := a.member(ctx, orgID, id)
	if err != nil {
		return appliance.User{}, err
	}
	u.MustChangePassword = true
	return u, a.store.InTx(ctx, func(tx appliance.Tx) error { return tx.SetMustChangePassword(ctx, id, true) })
}

package appliance

import (
	"context"
	"strings"
)

// NormalizeHostname is the one spelling of a host's name that is stored and compared: without
// surrounding space, lowercase (DNS names are case-insensitive), and without the one trailing
// dot of a fully qualified name, so "PC-01.", "pc-01" and " Pc-01 " are the same host.
func NormalizeHostname(name string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
}

// AssetsByHostname is the read an ownership check needs.
type AssetsByHostname interface {
	AssetByHostname(ctx context.Context, hostname string) (Asset, error)
}

// OwnedAsset finds the host of a normalized hostname; one that belongs to another organization
// is a conflict, so a key of one organization can never write to another's host.
func OwnedAsset(ctx context.Context, r AssetsByHostname, orgID int64, hostname string) (Asset, error) {
	a, err := r.AssetByHostname(ctx, hostname)
	if err != nil {
		return Asset{}, err
	}
	if a.OrganizationID != orgID {
		return Asset{}, Conflict("hostname %q belongs to another organization", hostname)
	}
	return a, nil
}

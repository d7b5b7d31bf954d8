package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const assetColumns = `id, organization_id, hostname, fqdn, ip_address, os_name, os_version, os_kernel,
	agent_id, agent_version, created_at, last_seen_at, last_inventory_at, inventory_hash,
	os_id, os_version_id, os_codename, os_build, os_arch, os_inferred, kind`

func (q *queries) AssetByHostname(ctx context.Context, hostname string) (appliance.Asset, error) {
	var a appliance.Asset
	var created, seen string
	var inv sql.NullString
	err := q.queryRow(ctx, `SELECT `+assetColumns+` FROM assets WHERE hostname = ?`, hostname).Scan(
		&a.ID, &a.OrganizationID, &a.Hostname, &a.FQDN, &a.IPAddress, &a.OSName, &a.OSVersion, &a.OSKernel,
		&a.AgentID, &a.AgentVersion, &created, &seen, &inv, &a.InventoryHash,
		&a.OS.ID, &a.OS.VersionID, &a.OS.Codename, &a.OS.Build, &a.OS.Arch, &a.OS.Inferred, &a.Kind)
	if err != nil {
		return appliance.Asset{}, translate(err)
	}
	a.CreatedAt, a.LastSeenAt, a.LastInventoryAt = parseTime(created), parseTime(seen), nullTime(inv)
	return a, nil
}

func (q *queries) CreateAsset(ctx context.Context, a appliance.Asset) (int64, error) {
	return q.insert(ctx, `INSERT INTO assets (organization_id, hostname, fqdn, ip_address, os_name, os_version, os_kernel,
		agent_id, agent_version, created_at, last_seen_at, last_inventory_at, inventory_hash,
		os_id, os_version_id, os_codename, os_build, os_arch, os_inferred, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.OrganizationID, a.Hostname, a.FQDN, a.IPAddress, a.OSName, a.OSVersion, a.OSKernel, a.AgentID, a.AgentVersion,
		fmtTime(a.CreatedAt), fmtTime(a.LastSeenAt), timeOrNull(a.LastInventoryAt), a.InventoryHash,
		a.OS.ID, a.OS.VersionID, a.OS.Codename, a.OS.Build, a.OS.Arch, a.OS.Inferred, a.Kind.Or())
}

func (q *queries) UpdateAsset(ctx context.Context, a appliance.Asset) error {
	return q.execOne(ctx, `UPDATE assets SET fqdn = ?, ip_address = ?, os_name = ?, os_version = ?, os_kernel = ?,
		agent_id = ?, agent_version = ?, last_seen_at = ?, last_inventory_at = ?, inventory_hash = ?,
		os_id = ?, os_version_id = ?, os_codename = ?, os_build = ?, os_arch = ?, os_inferred = ?, kind = ?
		WHERE id = ? AND organization_id = ?`,
		a.FQDN, a.IPAddress, a.OSName, a.OSVersion, a.OSKernel, a.AgentID, a.AgentVersion, fmtTime(a.LastSeenAt),
		timeOrNull(a.LastInventoryAt), a.InventoryHash, a.OS.ID, a.OS.VersionID, a.OS.Codename, a.OS.Build, a.OS.Arch,
		a.OS.Inferred, a.Kind.Or(), a.ID, a.OrganizationID)
}

func (q *queries) LiveInstallations(ctx context.Context, assetID int64) ([]appliance.Installation, error) {
	rows, err := q.query(ctx, `SELECT id, asset_id, product_id, path, created_at, updated_at
		FROM installations WHERE asset_id = ? AND removed_at IS NULL`, assetID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []appliance.Installation
	for rows.Next() {
		var in appliance.Installation
		var created, updated string
		if err := rows.Scan(&in.ID, &in.AssetID, &in.ProductID, &in.Path, &created, &updated); err != nil {
			return nil, err
		}
		in.CreatedAt, in.UpdatedAt = parseTime(created), parseTime(updated)
		out = append(out, in)
	}
	return out, rows.Err()
}

func (q *queries) CreateInstallation(ctx context.Context, in appliance.Installation) (int64, error) {
	id, err := q.insert(ctx, `INSERT INTO installations (asset_id, product_id, path, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
		in.AssetID, in.ProductID, in.Path, fmtTime(in.CreatedAt), fmtTime(in.CreatedAt))
	if err != nil {
		return 0, err
	}
	return id, q.installationsChanged(ctx, [][2]int64{{in.AssetID, in.ProductID}}, 1)
}

// installationsPerInsert bounds the rows of one INSERT (5 parameters each).
const installationsPerInsert = 64

// insertInstallations is the INSERT of n installations; the statement cache keeps each size.
func insertInstallations(n int) string {
	return "INSERT INTO installations (asset_id, product_id, path, created_at, updated_at) VALUES (?,?,?,?,?)" +
		strings.Repeat(",(?,?,?,?,?)", n-1)
}

// CreateInstallations inserts many installations, installationsPerInsert a statement, and
// counts them.
func (q *queries) CreateInstallations(ctx context.Context, ins []appliance.Installation) error {
	if len(ins) == 0 {
		return nil
	}
	// Rows go in as parameters, installationsPerInsert a statement: a host's 300 installations
	// are five prepared statements, with no JSON to build or for SQLite to parse.
	args := make([]any, 0, 5*min(len(ins), installationsPerInsert))
	var first, last int64
	for start := 0; start < len(ins); start += installationsPerInsert {
		chunk := ins[start:min(start+installationsPerInsert, len(ins))]
		args = args[:0]
		for _, in := range chunk {
			at := fmtTime(in.CreatedAt)
			args = append(args, in.AssetID, in.ProductID, in.Path, at, at)
		}
		res, err := q.exec(ctx, insertInstallations(len(chunk)), args...)
		if err != nil {
			return translate(err)
		}
		if last, err = res.LastInsertId(); err != nil {
			return err
		}
		if start == 0 {
			first = last - int64(len(chunk)) + 1
		}
	}
	// The writer inserts alone, so the new rows' ids run unbroken from first to last and the
	// counts can read them back instead of a list; should they not, the list is used.
	if last-first+1 == int64(len(ins)) {
		return q.pairsChanged(ctx, insertedPairs(first, last), 1)
	}
	pairs := make([][2]int64, len(ins))
	for i, in := range ins {
		pairs[i] = [2]int64{in.AssetID, in.ProductID}
	}
	return q.installationsChanged(ctx, pairs, 1)
}

func (q *queries) UpdateInstallationPath(ctx context.Context, id int64, path string, at time.Time) error {
	return q.execOne(ctx, `UPDATE installations SET path = ?, updated_at = ? WHERE id = ?`, path, fmtTime(at), id)
}

func (q *queries) RemoveInstallation(ctx context.Context, id int64, at time.Time) error {
	var pair [2]int64
	err := q.queryRow(ctx, `UPDATE installations SET removed_at = ?, updated_at = ? WHERE id = ? AND removed_at IS NULL
		RETURNING asset_id, product_id`, fmtTime(at), fmtTime(at), id).Scan(&pair[0], &pair[1])
	if err != nil {
		return fmt.Errorf("remove installation %d: %w", id, translate(err))
	}
	return q.installationsChanged(ctx, [][2]int64{pair}, -1)
}

// LiveInstalledProducts returns the host's live installations with their products (counts
// not filled), in one query: on an unchanged resubmission this is all reconciliation reads.
func (q *queries) LiveInstalledProducts(ctx context.Context, assetID int64) ([]appliance.InstalledProduct, error) {
	return queryAll(ctx, q, func(s scanner) (appliance.InstalledProduct, error) {
		var ip appliance.InstalledProduct
		var created, updated string
		var err error
		ip.Product, err = scanDecisionProduct(s, &ip.ID, &ip.AssetID, &ip.ProductID, &ip.Path, &created, &updated)
		ip.CreatedAt, ip.UpdatedAt = parseTime(created), parseTime(updated)
		return ip, err
	}, `SELECT i.id, i.asset_id, i.product_id, i.path, i.created_at, i.updated_at, `+decisionProductColumns+`
		FROM installations i JOIN products p ON p.id = i.product_id WHERE i.asset_id = ? AND i.removed_at IS NULL`, assetID)
}

// ForgetInventoriesWith clears the fingerprint of every host with a live installation of the
// product, so its next inventory is reconciled in full (it undeletes or re-resolves the product).
func (q *queries) ForgetInventoriesWith(ctx context.Context, productID int64) error {
	_, err := q.exec(ctx, `UPDATE assets SET inventory_hash = '' WHERE id IN
		(SELECT asset_id FROM installations WHERE product_id = ? AND removed_at IS NULL)`, productID)
	return err
}

package sqlitestore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// UpsertAdvisoryEntry stores one advisory entry; an entry whose content is unchanged is not
// written again.
func (q *queries) UpsertAdvisoryEntry(ctx context.Context, e appliance.AdvisoryEntry, at time.Time) (bool, error) {
	bins, err := json.Marshal(orEmpty(e.Binaries))
	if err != nil {
		return false, err
	}
	cves, err := json.Marshal(append([]string{}, e.CVEs...))
	if err != nil {
		return false, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%t\x1f%t\x1f%s\x1f%s\x1f%s\x1f%s\x1e", e.Distro, e.Release, e.Fixed,
		e.FixState, e.Ecosystem, e.ProOnly, e.Withdrawn, bins, cves, e.Source, e.ID)
	h.Write(e.Detail)
	digest := hex.EncodeToString(h.Sum(nil))
	res, err := q.exec(ctx, `INSERT INTO advisories (source, id, ecosystem, package, distro, release, fixed, fix_state,
		pro_only, withdrawn, binaries, cves, detail, digest, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (source, id, ecosystem, package) DO UPDATE SET distro = excluded.distro, release = excluded.release,
		fixed = excluded.fixed, fix_state = excluded.fix_state, pro_only = excluded.pro_only, withdrawn = excluded.withdrawn,
		binaries = excluded.binaries, cves = excluded.cves, detail = excluded.detail, digest = excluded.digest,
		imported_at = excluded.imported_at
		WHERE advisories.digest <> excluded.digest`,
		e.Source, e.ID, e.Ecosystem, e.Package, e.Distro, e.Release, e.Fixed, e.FixState, e.ProOnly, e.Withdrawn,
		string(bins), string(cves), e.Detail, digest, fmtTime(at))
	if err != nil {
		return false, fmt.Errorf("store advisory %s %s: %w", e.ID, e.Package, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// EachAdvisoryEntry hands fn every stored advisory entry.
func (q *queries) EachAdvisoryEntry(ctx context.Context, fn func(appliance.AdvisoryEntry) error) error {
	return q.EachChangedAdvisory(ctx, time.Time{}, fn)
}

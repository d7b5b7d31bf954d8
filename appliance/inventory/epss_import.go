package inventory

import (
	"context"
	"fmt"
	"io"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/epss"
)

// ImportEPSS reads FIRST's daily EPSS CSV (plain; Import also takes it gzip'ed) in one
// transaction: each CVE keeps its newest score, percentile and date. Matches do not depend on
// EPSS, so no generation changes.
func (im *Importer) ImportEPSS(ctx context.Context, name string, r io.Reader) (int, error) {
	var n int
	err := im.store.InTx(ctx, func(tx appliance.Tx) error {
		var err error
		n, err = epss.Parse(ctx, r, func(s appliance.EPSSScore) error { return tx.UpsertEPSS(ctx, s) })
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
	return n, err
}

package kb

import (
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// snapshotFromRows turns real identities into KB mappings of every source, some retracted.
func snapshotFromRows(rows []storetest.CPERow) Snapshot {
	base := time.Date(2026, 3, 15, 8, 0, 0, 0, time.UTC)
	snap := Snapshot{CreatedAt: base.Add(time.Hour), Mappings: make([]Mapping, len(rows))}
	for i, r := range rows {
		m := Mapping{
			VendorPattern: humanName(r.Vendor), ProductPattern: humanName(r.Product),
			CPEVendor: r.Vendor, CPEProduct: r.Product,
			Source: appliance.SourceNVD, Confidence: Conf(1), UpdatedAt: base.Add(time.Duration(i) * time.Millisecond),
		}
		if r.Title != "" {
			m.ProductPattern = r.Title
		}
		if i%7 == 3 {
			m.Source, m.Confidence = appliance.SourceCommunity, Conf(float64(i%10)/10*CommunityConfidenceCap)
		}
		if i%11 == 5 {
			m.Source, m.Confidence = appliance.SourceCurated, Conf(0.75)
		}
		m.Retracted = i%13 == 0
		snap.Mappings[i] = m
	}
	return snap
}

func humanName(cpeValue string) string {
	return strings.ReplaceAll(strings.ReplaceAll(cpeValue, `\`, ""), "_", " ")
}

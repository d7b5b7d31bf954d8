package inventory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/catalog"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
	"github.com/vulnkeeper/vulnkeeper/appliance/nvd"
)

// Importer writes CVE data and catalogue files into the store, one transaction per file;
// a running server notices the new generation and re-matches.
type Importer struct {
	store appliance.Store
	now   func() time.Time
	// Progress, when set, is called every few seconds with the records imported so far.
	Progress func(file string, records int, elapsed time.Duration)
}

// NewImporter builds an importer over the store.
func NewImporter(store appliance.Store) *Importer {
	return &Importer{store: store, now: time.Now}
}

// FeedStats counts what a feed file held.
type FeedStats struct {
	CVEs, Rejected, KEV, Identities int
	// TotalResults is an NVD API page's totalResults (the whole query's records).
	TotalResults int
}

// ImportFeed reads an NVD CVE 2.0 feed, a CVE JSON 5 record or the CISA KEV catalogue (JSON,
// gzip or not).
func (im *Importer) ImportFeed(ctx context.Context, name string, r io.Reader) (FeedStats, error) {
	return im.feedTx(ctx, name, func(h *feedHandler) (nvd.Stats, error) { return nvd.Import(ctx, r, h) })
}

// feedTx runs one import of CVE data in one transaction and bumps the generations it changed.
func (im *Importer) feedTx(ctx context.Context, name string, run func(h *feedHandler) (nvd.Stats, error)) (FeedStats, error) {
	var st FeedStats
	start := im.now()
	last := start
	err := im.store.InTx(ctx, func(tx appliance.Tx) error {
		st = FeedStats{}
		h := &feedHandler{tx: tx, at: im.now().UTC(), seen: map[appliance.Identity]string{}, stats: &st}
		h.tick = func() {
			if im.Progress != nil && time.Since(last) > 2*time.Second {
				last = time.Now()
				im.Progress(name, st.CVEs+st.KEV, time.Since(start))
			}
		}
		ns, err := run(h)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		st.TotalResults = ns.TotalResults
		if st.CVEs+st.KEV+st.Rejected == 0 {
			return nil
		}
		if _, err := tx.BumpGeneration(ctx, appliance.GenerationCVE); err != nil {
			return err
		}
		if st.Identities > 0 {
			_, err := tx.BumpGeneration(ctx, appliance.GenerationCatalog)
			return err
		}
		return nil
	})
	return st, err
}

type feedHandler struct {
	tx    appliance.Tx
	at    time.Time
	seen  map[appliance.Identity]string // identities stored, with the platform stored for them
	stats *FeedStats
	tick  func()
}

func (h *feedHandler) CVE(ctx context.Context, c nvd.CVE) error {
	defer h.tick()
	if c.Rejected() {
		h.stats.Rejected++
		return h.tx.DeleteCVE(ctx, c.ID)
	}
	rec := appliance.CVERecord{ID: c.ID, Description: c.Description, Status: c.Status, Published: c.Published,
		Modified: c.Modified, Score: c.Score, HasScore: c.ScoreVersion != "", Vector: c.Vector, Severity: c.Severity,
		ScoreVersion: c.ScoreVersion, ScoreSource: c.ScoreSource, Configurations: nvd.EncodeConfigurations(c.Configurations),
		References: c.References, Origin: c.Origin}
	if err := h.tx.UpsertCVE(ctx, rec, h.at); err != nil {
		return fmt.Errorf("store %s: %w", c.ID, err)
	}
	h.stats.CVEs++
	return h.catalogue(ctx, c.Configurations)
}

// catalogue adds every vendor:product named by the CVE's criteria (source nvd), with the
// platform (target_sw) each criterion names it for.
func (h *feedHandler) catalogue(ctx context.Context, cfgs []nvd.Configuration) error {
	for _, cfg := range cfgs {
		for _, node := range cfg.Nodes {
			for _, m := range node.Matches {
				n, err := cpe.Parse(m.Criteria)
				if err != nil || !cpe.ValidComponent(n.Vendor) || !cpe.ValidComponent(n.Product) {
					continue
				}
				e := appliance.CatalogEntry{Identity: appliance.Identity{Part: n.Part, Vendor: strings.ToLower(n.Vendor), Product: strings.ToLower(n.Product)},
					Source: "nvd", CVEUsed: true, Platform: appliance.PlatformOf(n.TargetSW)}
				known, stored := h.seen[e.Identity]
				merged := appliance.MergePlatform(known, e.Platform)
				if stored && merged == known {
					continue
				}
				h.seen[e.Identity] = merged
				if err := h.tx.UpsertCatalogEntry(ctx, e, h.at); err != nil {
					return err
				}
				if !stored {
					h.stats.Identities++
				}
			}
		}
	}
	return nil
}

func (h *feedHandler) KEV(ctx context.Context, e nvd.KEVEntry) error {
	defer h.tick()
	h.stats.KEV++
	return h.tx.UpsertKEV(ctx, appliance.KEVRecord{CVEID: e.CVEID, Name: e.Name, DateAdded: e.DateAdded,
		DueDate: e.DueDate, Ransomware: e.Ransomware})
}

// ImportCatalog reads a catalogue file (TSV, NVD CPE 2.0 JSON, CPE dictionary XML or a
// package-to-CPE index).
func (im *Importer) ImportCatalog(ctx context.Context, name string, r io.Reader, source string) (int, error) {
	var n int
	err := im.store.InTx(ctx, func(tx appliance.Tx) error {
		at := im.now().UTC()
		var err error
		n, err = catalog.Parse(ctx, r, func(id appliance.CatalogEntry) error {
			id.Source = source
			return tx.UpsertCatalogEntry(ctx, id, at)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if n == 0 { // a header alone, or a file of another kind: say so instead of "0 identities"
			return appliance.Invalid("file", "empty", "%s holds no identities: a catalogue is TSV (part, vendor, product[, title]), NVD CPE 2.0 JSON, CPE dictionary XML or a package-to-CPE index (Syft's cpe-index.json)", name)
		}
		_, err = tx.BumpGeneration(ctx, appliance.GenerationCatalog)
		return err
	})
	return n, err
}

// LoadDefaults imports the embedded starter catalogue into an empty store and, with demo, the
// demo CVE feed and its KEV entries (quickstart: a first inventory shows matches); a store
// with any data is left alone. Real installations import real feeds.
func (im *Importer) LoadDefaults(ctx context.Context, files fs.FS, demo bool) (bool, error) {
	empty := true
	if err := im.store.EachCatalogEntry(ctx, func(appliance.CatalogEntry) error { empty = false; return errStop }); err != nil && !errors.Is(err, errStop) {
		return false, err
	}
	if !empty {
		return false, nil
	}
	if err := im.store.EachCVEConfiguration(ctx, func(string, []byte) error { empty = false; return errStop }); err != nil && !errors.Is(err, errStop) {
		return false, err
	}
	if !empty {
		return false, nil
	}
	for _, f := range []struct {
		name    string
		catalog bool
	}{{"catalog.tsv", true}, {"demo-feed.json", false}, {"kev.json", false}} {
		if !f.catalog && !demo {
			continue
		}
		if err := im.importEmbedded(ctx, files, f.name, f.catalog); err != nil {
			return false, err
		}
	}
	return true, nil
}

func (im *Importer) importEmbedded(ctx context.Context, files fs.FS, name string, isCatalog bool) error {
	fh, err := files.Open(name)
	if err != nil {
		return err
	}
	defer fh.Close()
	if isCatalog {
		_, err = im.ImportCatalog(ctx, name, fh, "default")
		return err
	}
	_, err = im.ImportFeed(ctx, name, fh)
	return err
}

var errStop = errors.New("stop")

// Package kbindex keeps the Bleve index of the software-identity catalogue and proposes
// fuzzy candidates for a reported (vendor, product). It is derived data: a scorch index on
// disk, rebuilt from the catalogue when missing or stale. Exact lookups never come here.
package kbindex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	"github.com/blevesearch/bleve/v2"
)

// fingerprintFile sits inside the index directory; it is written last, so an index without
// it was never finished.
const fingerprintFile = "vulnkeeper-fingerprint"

const batchSize = 5000

// Index is an open candidate index. Its methods are safe for concurrent use.
type Index struct {
	bleve bleve.Index
}

// Open opens the index built in dir.
func Open(ctx context.Context, dir string) (*Index, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, fingerprintFile)); err != nil {
		return nil, fmt.Errorf("open kbindex %s: unfinished or missing: %w", dir, err)
	}
	ix, err := bleve.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open kbindex %s: %w", dir, err)
	}
	return &Index{bleve: ix}, nil
}

// Close releases the index files.
func (ix *Index) Close() error {
	return ix.bleve.Close()
}

// Fingerprint identifies a catalogue's content in the order given.
func Fingerprint(identities []appliance.CatalogEntry) string {
	h := sha256.New()
	for _, id := range identities {
		fmt.Fprintf(h, "%s\x1f%s\x1f%s\x1f%s\x1e", id.Part, id.Vendor, id.Product, id.Title)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Current reports whether dir holds a finished index of exactly these identities.
func Current(dir string, identities []appliance.CatalogEntry) bool {
	stored, err := os.ReadFile(filepath.Join(dir, fingerprintFile))
	return err == nil && strings.TrimSpace(string(stored)) == Fingerprint(identities)
}

// Build (re)creates the index in dir unless it is already current. It builds beside dir
// and renames, so a crash never leaves a half-written index where Open would find it.
func Build(ctx context.Context, dir string, identities []appliance.CatalogEntry) error {
	if Current(dir, identities) {
		return nil
	}
	tmp := dir + ".building"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("build kbindex: %w", err)
	}
	if err := buildInto(ctx, tmp, identities); err != nil {
		return errors.Join(fmt.Errorf("build kbindex: %w", err), os.RemoveAll(tmp))
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("build kbindex: replace %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("build kbindex: %w", err)
	}
	return nil
}

// buildInto uses Bleve's offline builder: segments are written once and merged, about ten
// times faster than online batches, which persist and merge as they go.
func buildInto(ctx context.Context, dir string, identities []appliance.CatalogEntry) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	scratch := dir + ".scratch"
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	if len(identities) == 0 { // the offline builder cannot close an index without segments
		idx, err := bleve.New(dir, newMapping())
		if err != nil {
			return err
		}
		if err := idx.Close(); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, fingerprintFile), []byte(Fingerprint(identities)+"\n"), 0o644)
	}
	b, err := bleve.NewBuilder(dir, newMapping(), map[string]any{"batchSize": batchSize, "buildPathPrefix": scratch})
	if err != nil {
		return err
	}
	if err := indexAll(ctx, b, identities); err != nil {
		return errors.Join(err, b.Close())
	}
	if err := b.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fingerprintFile), []byte(Fingerprint(identities)+"\n"), 0o644)
}

func indexAll(ctx context.Context, b bleve.Builder, identities []appliance.CatalogEntry) error {
	for i, id := range identities {
		if i%batchSize == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := b.Index(docID(id), newDocument(id)); err != nil {
			return err
		}
	}
	return nil
}

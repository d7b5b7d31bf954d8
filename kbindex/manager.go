package kbindex

import (
	"context"
	"errors"
	"sync"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Live is the index the serving process holds open: it answers candidate searches while a
// rebuild after a catalogue change swaps in a fresh index underneath.
type Live struct {
	dir string
	mu  sync.RWMutex
	ix  *Index
}

// NewLive manages the index in dir; nothing is opened until Rebuild.
func NewLive(dir string) *Live { return &Live{dir: dir} }

// Rebuild makes the index match identities (a no-op when it already does) and opens it.
func (l *Live) Rebuild(ctx context.Context, identities []appliance.CatalogEntry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ix != nil && Current(l.dir, identities) {
		return nil
	}
	if err := Build(ctx, l.dir, identities); err != nil {
		return err
	}
	fresh, err := Open(ctx, l.dir)
	if err != nil {
		return err
	}
	old := l.ix
	l.ix = fresh
	if old != nil {
		return old.Close()
	}
	return nil
}

// Candidates searches the current index; before the first Rebuild it finds nothing.
func (l *Live) Candidates(ctx context.Context, vendor, product string, n int) ([]Candidate, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.ix == nil {
		return nil, nil
	}
	return l.ix.Candidates(ctx, vendor, product, n)
}

// Close releases the open index.
func (l *Live) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ix == nil {
		return nil
	}
	err := l.ix.Close()
	l.ix = nil
	return errors.Join(err)
}

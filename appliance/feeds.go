package appliance

import (
	"context"
	"time"
)

// FeedState is what one synchronised source (nvd, kev, epss) last did: when it last
// succeeded and tried, how many records it wrote, its last error, and the source's resume
// point (for NVD the end of the last completed lastModified window, RFC 3339).
type FeedState struct {
	Source      string
	LastSuccess time.Time // zero: never
	LastAttempt time.Time
	Records     int // records written by the last successful sync
	LastError   string
	Cursor      string
}

// EPSSScore is FIRST's exploit prediction for one CVE on one day.
type EPSSScore struct {
	CVEID      string
	Score      float64 // probability of exploitation activity in the next 30 days, 0..1
	Percentile float64 // 0..1
	Date       time.Time
}

// FeedReader reads the sync state of the sources.
type FeedReader interface {
	FeedStates(ctx context.Context) ([]FeedState, error)
	// FeedState returns the source's state, the zero state with Source set when it never ran.
	FeedState(ctx context.Context, source string) (FeedState, error)
}

// FeedWriter records sync state and EPSS scores.
type FeedWriter interface {
	SaveFeedState(ctx context.Context, s FeedState) error
	UpsertEPSS(ctx context.Context, s EPSSScore) error
}

// FeedBundle is one bundle this installation wrote: its serial, the serial of the bundle it
// continues (0: everything), and the moment its content was read, from which the next
// bundle continuing it reads.
type FeedBundle struct {
	Serial    int64
	Since     int64
	CreatedAt time.Time
}

// BundleReader reads what a feed bundle carries: the rows written at or after since (every
// row when since is zero), and the bundles written here.
type BundleReader interface {
	FeedBundle(ctx context.Context, serial int64) (FeedBundle, error)
	EachChangedCVE(ctx context.Context, since time.Time, fn func(CVERecord) error) error
	EachCVERemoval(ctx context.Context, since time.Time, fn func(id string) error) error
	EachChangedKEV(ctx context.Context, since time.Time, fn func(KEVRecord) error) error
	EachChangedEPSS(ctx context.Context, since time.Time, fn func(EPSSScore) error) error
	EachChangedAdvisory(ctx context.Context, since time.Time, fn func(AdvisoryEntry) error) error
	EachChangedCatalogEntry(ctx context.Context, since time.Time, fn func(CatalogEntry) error) error
}

// BundleWriter records a bundle written here; the store assigns the next serial.
type BundleWriter interface {
	CreateFeedBundle(ctx context.Context, since int64, at time.Time) (FeedBundle, error)
}

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

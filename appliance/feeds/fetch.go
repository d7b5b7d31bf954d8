package feeds

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Fetcher downloads one document whole (web's feed client). It returns *StatusError for an
// answer other than 200, and any other error for a failed or cut-off transfer.
type Fetcher interface {
	Fetch(ctx context.Context, req Request) ([]byte, error)
}

// Request is one GET: the URL with its query, and extra headers (NVD's apiKey).
type Request struct {
	URL    string
	Header map[string]string
}

// StatusError is an HTTP answer other than 200.
type StatusError struct {
	Status     int
	RetryAfter time.Duration // from Retry-After, 0 when absent
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP status %d", e.Status) }

// retryable says whether a failed fetch is worth another try: rate-limit and overload
// answers, server errors, and transfers that failed or were cut off. Other 4xx are final.
func retryable(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status == 403 || se.Status == 429 || se.Status >= 500
	}
	return true
}

// Pacing bounds the request rate and the back-off. Tests shrink it.
type Pacing struct {
	Window      time.Duration // NVD counts requests in a rolling window of this length (30 s)
	Backoff     time.Duration // first wait after a failed request, doubled each retry
	MaxBackoff  time.Duration
	Retries     int           // tries after the first
	StartDelay  time.Duration // the scheduler's first look after serve starts
	RetryFailed time.Duration // the scheduler retries a failed source after this (capped by the interval)
}

// DefaultPacing follows NVD's guidance: 5 requests in 30 s without a key, 50 with one, and
// a pause of several seconds before retrying.
func DefaultPacing() Pacing {
	return Pacing{Window: 30 * time.Second, Backoff: 6 * time.Second, MaxBackoff: 2 * time.Minute, Retries: 5,
		StartDelay: time.Minute, RetryFailed: 15 * time.Minute}
}

// pacer admits at most limit requests in any window.
type pacer struct {
	limit  int
	window time.Duration
	sent   []time.Time
	now    func() time.Time
}

func (p *pacer) wait(ctx context.Context) error {
	for len(p.sent) >= p.limit {
		d := p.sent[0].Add(p.window).Sub(p.now())
		if d <= 0 {
			p.sent = p.sent[1:]
			continue
		}
		if err := appliance.Sleep(ctx, d); err != nil {
			return err
		}
	}
	p.sent = append(p.sent, p.now())
	return nil
}

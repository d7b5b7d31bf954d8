package appliance

import (
	"context"
	"time"
)

// Sleep waits d, or less when ctx ends (then its error): the pause of every retry and pace.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

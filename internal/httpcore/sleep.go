package httpcore

import (
	"context"
	"time"
)

// Sleep waits for d, or until ctx ends and then returns its error, so that every wait between
// attempts (a resend, a busy service) ends as soon as the caller gives up. A d of zero or
// less only reports whether ctx has ended.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

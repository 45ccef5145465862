package sdktest

import (
	"context"
	"sync"
	"time"
)

// Clock is a fake sdk.Clock for tests: Sleep moves its time forward at once instead of
// waiting, so that a schedule of minutes (a retry's backoff, a payment's expiry, a rolling
// window) runs in microseconds while every timestamp stays consistent. It is safe for
// concurrent use; concurrent sleepers each move the shared time forward by their own wait.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

// NewClock returns a fake clock reading start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep records d and moves the time forward by it, unless ctx has already ended.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.mu.Lock()
		c.now = c.now.Add(d)
		c.waits = append(c.waits, d)
		c.mu.Unlock()
	}
	return nil
}

// Advance moves the time forward by d (backward for a negative d) without recording a wait.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the time to t, forward or backward, as a clock that was wrong and was corrected.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Waits returns a copy of the waits slept so far, in order.
func (c *Clock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

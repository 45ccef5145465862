package polltest

import (
	"context"
	"sync"
	"time"
)

// Fake is a Clock for tests: Sleep moves its time forward at once instead of waiting, so a
// schedule of minutes runs in microseconds while every timestamp stays consistent. It is
// safe for concurrent use; concurrent sleepers each move the shared time forward by their
// own wait.
type Fake struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

// NewFake returns a fake clock reading start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Sleep records d and moves the time forward by it, unless ctx has already ended.
func (f *Fake) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		f.Advance(d)
		f.mu.Lock()
		f.waits = append(f.waits, d)
		f.mu.Unlock()
	}
	return nil
}

// Advance moves the time forward by d without recording a wait.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// Waits returns a copy of the waits slept so far, in order.
func (f *Fake) Waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}

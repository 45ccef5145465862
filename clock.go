package sdk

import (
	"context"
	"time"
)

// Clock tells the time and waits. Everything in the SDK that waits, expires or paces reads
// one: SystemClock by default, and in tests a fake one (sdktest.Clock) that runs a schedule of
// minutes in no time while every timestamp stays consistent.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d, or until ctx ends, and then returns ctx's error. A d of zero or less
	// only reports whether ctx has ended.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock returns the wall clock: time.Now, and a timer for Sleep.
func SystemClock() Clock { return systemClock{} }

// systemClock is the Clock of time.Now and time.Timer.
type systemClock struct{}

// Now returns time.Now().
func (systemClock) Now() time.Time { return time.Now() }

// Sleep waits on a timer, or until ctx ends.
func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
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

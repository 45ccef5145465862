package budgetfile

import (
	"time"

	sdk "github.com/agentapis/sdk"
)

// Option configures Open.
type Option func(*config) error

// config is what the options of Open set.
type config struct {
	wait  time.Duration
	clock sdk.Clock
}

// WithWait makes Open wait up to d for another process (or another Store of this process)
// to close the file, instead of failing at once with a *LockedError: for a program restarted
// while its previous run is still shutting down. Several waiting on one file each get it in
// turn as the one before closes it. The wait is real time, whatever WithClock says.
func WithWait(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return &sdk.ValidationError{Service: "budgetfile", Field: "wait", Reason: "must not be negative"}
		}
		c.wait = d
		return nil
	}
}

// WithClock sets the clock the store decides with (sdk.SystemClock() without it): when a hold
// is reserved, which holds a rolling window counts, whether a refused hold has expired. Tests
// give a fake one.
func WithClock(clock sdk.Clock) Option {
	return func(c *config) error {
		if clock == nil {
			return &sdk.ValidationError{Service: "budgetfile", Field: "clock", Reason: "must not be nil"}
		}
		c.clock = clock
		return nil
	}
}

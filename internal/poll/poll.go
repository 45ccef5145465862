// Package poll is the SDK's one loop for waiting between attempts: the backoff of the HTTP
// retries, the x402 payer's re-sends of a signed payment, waiting for a busy chart analysis,
// and polling asynchronous product-data tasks all take their delays from a Schedule and, where
// they loop themselves, run on Run.
//
// A Schedule grows a delay geometrically from Min to Max and draws part of it at random
// (jitter). Run calls an attempt function until it is done, and between attempts waits as
// the schedule (or the attempt itself, for a server's Retry-After) says, within a total
// timeout and a cap on attempts, reporting progress before every wait. The context ends a
// wait at once. Time comes from an sdk.Clock, so tests can run long schedules on a fake one.
//
// Wait is Run for a client waiting on its service's background work within an
// sdk.WaitPolicy: it gives up with the *sdk.WaitError every such wait of the SDK returns.
package poll

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	sdk "github.com/agentapis/sdk"
	"math"
	"math/rand/v2"
	"time"
)

// Schedule says how long to wait before each new attempt: Min, then Min·Factor, Min·Factor²,
// ..., never more than Max, each drawn at random in [(1-Jitter)·d, d].
type Schedule struct {
	// Min is the wait after the first attempt.
	Min time.Duration
	// Max caps every wait; 0 means no cap.
	Max time.Duration
	// Factor multiplies the wait after each attempt; 0 means 2, and 1 keeps it constant.
	Factor float64
	// Jitter is the share of each wait drawn at random, from 0 (exactly d) to 1 (anywhere in
	// [0, d], "full jitter"); 0.5 draws in [d/2, d].
	Jitter float64
}

// Validate refuses negative delays, a Max below Min, a Factor below 1 (other than 0) and a
// Jitter outside [0, 1].
func (s Schedule) Validate() error {
	switch {
	case s.Min < 0 || s.Max < 0:
		return errors.New("delays must not be negative")
	case s.Max != 0 && s.Max < s.Min:
		return errors.New("the maximum delay must not be below the minimum")
	case s.Factor != 0 && (s.Factor < 1 || math.IsNaN(s.Factor) || math.IsInf(s.Factor, 0)):
		return errors.New("the growth factor must be at least 1")
	case !(s.Jitter >= 0 && s.Jitter <= 1):
		return errors.New("jitter must be between 0 and 1")
	}
	return nil
}

// Ceiling returns the wait before attempt n+2 (n counts from 0: Ceiling(0) follows the first
// attempt) before jitter: min(Max, Min·Factor^n).
func (s Schedule) Ceiling(n int) time.Duration {
	factor := cmp.Or(s.Factor, 2)
	d := float64(s.Min)
	limit := float64(math.MaxInt64)
	if s.Max > 0 {
		limit = float64(s.Max)
	}
	for i := 0; i < n && d < limit && factor > 1; i++ {
		d *= factor
	}
	if d >= limit {
		if s.Max > 0 {
			return s.Max
		}
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(d)
}

// Delay returns the jittered wait after attempt n+1 (Delay(0) follows the first attempt): a
// draw in [(1-Jitter)·c, c] for c = Ceiling(n).
func (s Schedule) Delay(n int) time.Duration {
	c := s.Ceiling(n)
	if c <= 0 || s.Jitter <= 0 {
		return max(c, 0)
	}
	spread := time.Duration(float64(c) * min(s.Jitter, 1))
	return c - spread + time.Duration(rand.Int64N(int64(spread)+1))
}

// Progress is what Options.Progress sees before each wait.
type Progress struct {
	// Attempt is the number of attempts made so far.
	Attempt int
	// Elapsed is the time since Run started.
	Elapsed time.Duration
	// Wait is the wait about to start, before the next attempt.
	Wait time.Duration
	// Err is why the last attempt asked for another (nil when it only reported "not yet").
	Err error
}

// Options bound a Run.
type Options struct {
	// Schedule gives the waits between attempts, unless an attempt names its own.
	Schedule Schedule
	// Timeout bounds the whole loop from the start of Run; a wait that would end after it is
	// not started. 0 means no bound other than the context.
	Timeout time.Duration
	// MaxAttempts caps the number of attempts; 0 means no cap.
	MaxAttempts int
	// Progress, when set, is called before every wait.
	Progress func(Progress)
	// Clock tells the time and waits; nil means sdk.SystemClock().
	Clock sdk.Clock
}

// Reasons a Run stopped before its attempt was done, matched with errors.Is on a
// *StoppedError.
var (
	// ErrTimeout means the next wait would have ended after Options.Timeout.
	ErrTimeout = errors.New("time limit reached")
	// ErrMaxAttempts means Options.MaxAttempts attempts were made.
	ErrMaxAttempts = errors.New("attempt limit reached")
)

// StoppedError reports a Run that ended before its attempt said it was done: the time or
// attempt limit was reached, or the context ended during a wait. errors.Is matches its
// Reason (ErrTimeout, ErrMaxAttempts, context.Canceled, context.DeadlineExceeded) and its
// Last error.
type StoppedError struct {
	// Reason is why the loop stopped.
	Reason error
	// Attempts is the number of attempts made.
	Attempts int
	// Elapsed is the time from the start of Run.
	Elapsed time.Duration
	// Last is why the last attempt asked for another; nil when it only reported "not yet".
	Last error
}

// Error names the reason, the attempts and the last error.
func (e *StoppedError) Error() string {
	msg := fmt.Sprintf("%v after %d attempts in %s", e.Reason, e.Attempts, e.Elapsed.Round(time.Millisecond))
	if e.Last != nil {
		msg += ": " + e.Last.Error()
	}
	return msg
}

// Unwrap returns the reason and the last error.
func (e *StoppedError) Unwrap() []error {
	if e.Last == nil {
		return []error{e.Reason}
	}
	return []error{e.Reason, e.Last}
}

// Attempt is one try of a Run: it is given the context and the attempt number (1 for the
// first) and reports whether to go on. done true ends the loop with err (nil for success).
// done false asks for another attempt after wait, or after the schedule's delay when wait is
// 0 or less; err then says why (nil when the attempt only found "not yet").
type Attempt func(ctx context.Context, attempt int) (done bool, wait time.Duration, err error)

// Run calls try until it reports done, and returns its error. Between attempts it waits as
// try or the schedule says. It stops early with a *StoppedError when MaxAttempts attempts
// were made, when a wait would end after Timeout, or when ctx ends during a wait; the context
// is checked before every attempt.
func Run(ctx context.Context, o Options, try Attempt) error {
	clock := cmp.Or(o.Clock, sdk.SystemClock())
	start := clock.Now()
	stop := func(reason error, n int, last error) error {
		return &StoppedError{Reason: reason, Attempts: n, Elapsed: clock.Now().Sub(start), Last: last}
	}
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return stop(err, n-1, nil)
		}
		done, wait, err := try(ctx, n)
		if done {
			return err
		}
		if o.MaxAttempts > 0 && n >= o.MaxAttempts {
			return stop(ErrMaxAttempts, n, err)
		}
		if wait <= 0 {
			wait = o.Schedule.Delay(n - 1)
		}
		elapsed := clock.Now().Sub(start)
		if o.Timeout > 0 && elapsed+wait > o.Timeout {
			return stop(ErrTimeout, n, err)
		}
		if o.Progress != nil {
			o.Progress(Progress{Attempt: n, Elapsed: elapsed, Wait: wait, Err: err})
		}
		if serr := clock.Sleep(ctx, wait); serr != nil {
			return stop(serr, n, err)
		}
	}
}

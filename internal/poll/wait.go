package poll

import (
	"cmp"
	"context"
	"errors"
	"time"

	sdk "github.com/agentapis/sdk"
)

// Waiting describes one wait of a client for work its service does in the background, the
// loop behind every WithWait option.
type Waiting struct {
	// Service, Operation and Subject name the wait in its progress reports and its
	// *sdk.WaitError, such as "productdata", "CollectReviews" and an ASIN; Subject is never a
	// secret.
	Service, Operation, Subject string
	// Policy bounds the wait, resolved already: Settings.Wait(service.Defaults.Wait). The
	// service's defaults give every field; a zero Timeout and MaxAttempts put no bound but
	// the context, and a zero MinDelay no pause.
	Policy sdk.WaitPolicy
	// Next, when set, is the service's schedule: the wait after attempt (1 for the first),
	// elapsed since the start; it keeps it within Policy's delays itself. Nil waits MinDelay,
	// doubling up to MaxDelay, each wait drawn in its upper half.
	Next func(attempt int, elapsed time.Duration) time.Duration
	// Clock tells the time and waits; nil means sdk.SystemClock().
	Clock sdk.Clock
	// Sentinels are the package's sentinels every *sdk.WaitError of this wait matches, such
	// as productdata.ErrTaskRunning.
	Sentinels []error
}

// Wait calls try until it reports done, and returns its error, as Run does, within w.Policy:
// the first attempt is the request that starts the work, and an attempt's own wait (a
// server's Retry-After) replaces the schedule's. It gives up with an *sdk.WaitError when
// MaxAttempts attempts were made, when a wait would end after the Timeout (or the Timeout
// has passed), or when ctx ends during a wait.
func Wait(ctx context.Context, w Waiting, try Attempt) error {
	clock := cmp.Or(w.Clock, sdk.SystemClock())
	p := w.Policy
	next := w.Next
	if next == nil {
		s := Schedule{Min: p.MinDelay, Max: p.MaxDelay, Jitter: 0.5}
		next = func(attempt int, _ time.Duration) time.Duration { return s.Delay(attempt - 1) }
	}
	o := Options{Timeout: p.Timeout, MaxAttempts: p.MaxAttempts, Clock: clock}
	if p.Progress != nil {
		o.Progress = func(pr Progress) {
			p.Progress(sdk.WaitProgress{Service: w.Service, Operation: w.Operation, Subject: w.Subject,
				Attempt: pr.Attempt, Elapsed: pr.Elapsed, Wait: pr.Wait, Err: pr.Err})
		}
	}
	start := clock.Now()
	finished := false // try reported done: its error, whatever it holds, is the outcome
	err := Run(ctx, o, func(ctx context.Context, attempt int) (bool, time.Duration, error) {
		done, wait, err := try(ctx, attempt)
		if done || wait > 0 {
			finished = done
			return done, wait, err
		}
		elapsed := clock.Now().Sub(start)
		if p.Timeout > 0 && elapsed >= p.Timeout {
			return true, 0, &StoppedError{Reason: ErrTimeout, Attempts: attempt, Elapsed: elapsed, Last: err}
		}
		return false, next(attempt, elapsed), err
	})
	if finished {
		return err
	}
	return AsWaitError(w, err)
}

// AsWaitError returns err as the *sdk.WaitError of w when it is a *StoppedError (a loop of
// Run, such as svm.Node.Confirm's, that gave up), with ErrTimeout and ErrMaxAttempts as
// sdk.ErrWaitTimeout and sdk.ErrWaitAttempts; any other error comes back as it is.
func AsWaitError(w Waiting, err error) error {
	var stopped *StoppedError
	if !errors.As(err, &stopped) {
		return err
	}
	reason := stopped.Reason
	switch {
	case errors.Is(reason, ErrTimeout):
		reason = sdk.ErrWaitTimeout
	case errors.Is(reason, ErrMaxAttempts):
		reason = sdk.ErrWaitAttempts
	}
	return &sdk.WaitError{Service: w.Service, Operation: w.Operation, Subject: w.Subject, Attempts: stopped.Attempts,
		Elapsed: stopped.Elapsed, Reason: reason, Last: stopped.Last, Sentinels: w.Sentinels}
}

package sdk

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// WaitPolicy bounds how long a client waits for work its service does in the background
// (productdata's tasks, chartdiff's analysis slots, gpuprice's payment confirmation) and how
// often it asks meanwhile. Every client of such a service takes one with its WithWait option.
//
// A zero field takes the service's default, which its package documents; a delay given alone
// moves the other default so that MinDelay never exceeds MaxDelay. Waiting ends with a
// *WaitError when Timeout passes, when MaxAttempts requests were made, or when the context
// ends; the work may still finish on the service.
type WaitPolicy struct {
	// Timeout bounds the whole wait, from the request that started the work: a wait that
	// would end after it is not started.
	Timeout time.Duration
	// MinDelay is the shortest wait between two requests.
	MinDelay time.Duration
	// MaxDelay is the longest wait between two requests.
	MaxDelay time.Duration
	// MaxAttempts caps the requests of one wait, the first included: 1 asks once and never
	// waits.
	MaxAttempts int
	// Progress, when set, is called before every wait, on the caller's goroutine.
	Progress func(WaitProgress)
}

// WaitProgress is what WaitPolicy.Progress sees before each wait.
type WaitProgress struct {
	// Service is the name of the service, such as "productdata".
	Service string
	// Operation names the method that waits, such as "CollectReviews".
	Operation string
	// Subject names what is waited for (an ASIN, a chart id); never a secret.
	Subject string
	// Attempt is the number of requests made so far.
	Attempt int
	// Elapsed is the time since the request that started the work.
	Elapsed time.Duration
	// Wait is the wait about to start.
	Wait time.Duration
	// Err is why the last request asked for another (a network failure, a rate limit); nil
	// when it only found the work still running.
	Err error
}

// Reasons a wait ended before the work did, matched with errors.Is on a *WaitError. A wait
// the context ended matches context.Canceled or context.DeadlineExceeded instead.
var (
	// ErrWaitTimeout means WaitPolicy.Timeout passed.
	ErrWaitTimeout = errors.New("wait timed out")
	// ErrWaitAttempts means WaitPolicy.MaxAttempts requests were made.
	ErrWaitAttempts = errors.New("wait attempt limit reached")
)

// WaitError reports a wait for background work that ended before the work did: its
// WaitPolicy's time or attempt limit was reached, or the context ended. The work itself may
// still finish on the service (and be charged); asking again later is safe. errors.Is matches
// Reason (ErrWaitTimeout, ErrWaitAttempts, context.Canceled, context.DeadlineExceeded), Last,
// and every error in Sentinels.
type WaitError struct {
	// Service is the name of the service.
	Service string
	// Operation names the method that waited, such as "Analyze".
	Operation string
	// Subject names what was waited for; never a secret.
	Subject string
	// Attempts is the number of requests made.
	Attempts int
	// Elapsed is the time from the request that started the work.
	Elapsed time.Duration
	// Reason is why the wait ended.
	Reason error
	// Last is why the last request asked for another, such as the service's "busy" answer;
	// nil when it only found the work still running.
	Last error
	// Sentinels are the service package's sentinel errors this error matches, such as
	// productdata.ErrTaskRunning.
	Sentinels []error
}

// Error names the operation, its subject, the reason, the attempts and the last error.
func (e *WaitError) Error() string {
	msg := e.Service + ": " + e.Operation
	if e.Subject != "" {
		msg += " " + e.Subject
	}
	msg += fmt.Sprintf(": %v after %d attempts in %s", e.Reason, e.Attempts, e.Elapsed.Round(time.Millisecond))
	if e.Last != nil {
		msg += ": last attempt: " + e.Last.Error()
	}
	return msg
}

// Is matches every error in Sentinels.
func (e *WaitError) Is(target error) bool { return slices.Contains(e.Sentinels, target) }

// Unwrap returns the reason and the last error.
func (e *WaitError) Unwrap() []error {
	if e.Last == nil {
		return []error{e.Reason}
	}
	return []error{e.Reason, e.Last}
}

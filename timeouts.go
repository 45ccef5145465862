package sdk

import "time"

// Timeouts bound how long a client waits, so that no call waits forever on a server that
// sends nothing, or one byte at a time. Every client takes them with its WithTimeouts option
// (see "Client options" in the package documentation). A zero field takes its default. A
// bound that fires ends the attempt with an error matching context.DeadlineExceeded.
//
// The longest a call can take, with its retries, is about
// MaxAttempts × Attempt + (MaxAttempts − 1) × the longest wait between attempts
// (RetryPolicy.MaxDelay, or MaxRetryAfter when the server asks for more): with the defaults,
// 4 × 60 s + 3 × 30 s = 5.5 minutes. A context deadline bounds it further. A call that waits
// for background work (see WaitPolicy) adds that wait, each of its requests bounded so.
type Timeouts struct {
	// Header bounds the wait for an answer's headers, from the moment an attempt is sent
	// (default 30s).
	Header time.Duration
	// Attempt bounds one attempt whole: sending it, the answer's headers and reading its
	// body (default 60s). A body the caller reads as a stream (such as reportstore's
	// OpenReport) is not bounded as a whole, but by Idle between reads.
	Attempt time.Duration
	// Idle bounds the wait for the next bytes of a streamed body (default 30s).
	Idle time.Duration
}

// Defaults of Timeouts.
const (
	DefaultHeaderTimeout  = 30 * time.Second
	DefaultAttemptTimeout = 60 * time.Second
	DefaultIdleTimeout    = 30 * time.Second
)

package sdk

import "time"

// RetryPolicy says how often and how patiently a client retries a request that is safe to
// repeat: GET, HEAD, PUT and DELETE, and the POSTs a service package knows to be safe. It is
// retried on network errors and on 429, 502, 503 and 504, with full-jitter exponential
// backoff between attempts.
//
// Every client takes one with its WithRetry option (see "Client options" in the package
// documentation). A zero field takes the service's default, which its package documents
// (productdata makes 3 attempts), and otherwise the SDK's below, so RetryPolicy{} is the
// service's default policy and RetryPolicy{MaxAttempts: 1} turns retries off. A service may
// also turn StopOnLongRetryAfter on for good, when waiting out its long Retry-After is never
// useful. A request that is not safe to repeat is sent once, whatever the policy.
type RetryPolicy struct {
	// MaxAttempts is the total number of attempts, the first included (default 4).
	MaxAttempts int
	// BaseDelay is the backoff before the first retry; each retry doubles it (default 500ms).
	// The wait is drawn uniformly between 0 and the doubled delay ("full jitter").
	BaseDelay time.Duration
	// MaxDelay caps the exponential backoff (default 10s).
	MaxDelay time.Duration
	// MaxRetryAfter caps the wait a server may ask for in Retry-After (default 30s).
	MaxRetryAfter time.Duration
	// StopOnLongRetryAfter ends the retries when a server asks in Retry-After for a longer
	// wait than MaxRetryAfter: its error, with RetryAfter set, is returned at once, instead of
	// after a capped wait the server would most likely refuse again (default false: retry
	// after MaxRetryAfter).
	StopOnLongRetryAfter bool
}

// Defaults of RetryPolicy.
const (
	DefaultMaxAttempts   = 4
	DefaultBaseDelay     = 500 * time.Millisecond
	DefaultMaxDelay      = 10 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
)

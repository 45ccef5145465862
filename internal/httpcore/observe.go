package httpcore

import (
	"log/slog"
	"sync/atomic"
)

// The observer is the hook of the test suite's secret scan (internal/secrettest). It is
// nil in every program: only a package of this module can install one, and none but
// secrettest does; a client without an observer pays one atomic load per request.

// Observer sees what every client of the process logs, returns and sends as a credential, so
// that the secret scan can check that no secret reaches a log line or an error.
type Observer struct {
	// Logger receives the records of clients that have no logger of their own.
	Logger *slog.Logger
	// Error sees every error a client returns.
	Error func(error)
	// Secret sees every credential value a client is given or sends.
	Secret func(value string)
}

// observer is the installed Observer, or nil.
var observer atomic.Pointer[Observer]

// Observe installs o for the whole process and returns a function that removes it.
func Observe(o *Observer) (undo func()) {
	observer.Store(o)
	return func() { observer.CompareAndSwap(o, nil) }
}

// loggerOrObserver returns the client's logger, or the observer's when the client has none.
func (c *Client) loggerOrObserver() *slog.Logger {
	if c.logger != nil {
		return c.logger
	}
	if o := observer.Load(); o != nil {
		return o.Logger
	}
	return nil
}

// observeError shows err to the observer, if any, and returns it.
func observeError(err error) error {
	if o := observer.Load(); o != nil && o.Error != nil && err != nil {
		o.Error(err)
	}
	return err
}

// observeSecrets shows credential values to the observer, if any.
func observeSecrets(values ...string) {
	if o := observer.Load(); o != nil && o.Secret != nil {
		for _, v := range values {
			o.Secret(v)
		}
	}
}

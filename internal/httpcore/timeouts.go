package httpcore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agentapis/sdk"
)

// timeoutDefaults fills the zero fields of t.
func timeoutDefaults(t sdk.Timeouts) sdk.Timeouts {
	t.Header = cmp.Or(t.Header, sdk.DefaultHeaderTimeout)
	t.Attempt = cmp.Or(t.Attempt, sdk.DefaultAttemptTimeout)
	t.Idle = cmp.Or(t.Idle, sdk.DefaultIdleTimeout)
	return t
}

// timeoutError is the cause of an attempt the client gave up on. It matches
// context.DeadlineExceeded, and reports Timeout() like a net.Error.
type timeoutError struct {
	what string
	d    time.Duration
}

// Error says what did not come in time.
func (e *timeoutError) Error() string { return fmt.Sprintf("%s within %s", e.what, e.d) }

// Is matches context.DeadlineExceeded.
func (e *timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// Timeout reports true.
func (e *timeoutError) Timeout() bool { return true }

// timedTransport bounds every attempt it passes on by the client's Timeouts: the wait for the
// headers, the whole attempt when the call reads the body itself (a streamed call's failure
// answer included), the wait between reads of a streamed 2xx body. When a bound fires, the attempt's context ends with a *timeoutError as its
// cause, which the attempt's error then carries.
type timedTransport struct {
	next     http.RoundTripper
	timeouts sdk.Timeouts
}

// RoundTrip sends req under the bounds.
func (t *timedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	stream := false
	if rs := requestStateOf(req.Context()); rs != nil {
		stream = rs.stream
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	g := &guardedBody{ctx: ctx, cancel: cancel}
	g.attempt = time.AfterFunc(t.timeouts.Attempt, func() {
		cancel(&timeoutError{what: "the attempt did not end", d: t.timeouts.Attempt})
	})
	header := time.AfterFunc(t.timeouts.Header, func() {
		cancel(&timeoutError{what: "no response headers", d: t.timeouts.Header})
	})
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	header.Stop()
	if err != nil {
		g.stop()
		return nil, withCause(err, context.Cause(ctx))
	}
	if stream && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		// The caller reads a 2xx stream at its own pace: from here only the gap between
		// reads is bounded. A failure answer's body is read by the client within the attempt.
		g.attempt.Stop()
		g.attempt = nil
		g.idle = time.AfterFunc(t.timeouts.Idle, func() {
			cancel(&timeoutError{what: "no data from the stream", d: t.timeouts.Idle})
		})
		g.idleFor = t.timeouts.Idle
	}
	g.rc = resp.Body
	resp.Body = g
	return resp, nil
}

// withCause returns err with the cause of the attempt's end in place of a bare
// "context canceled", when a bound ended it.
func withCause(err, cause error) error {
	var te *timeoutError
	if !errors.As(cause, &te) {
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) && errors.Is(ue.Err, context.Canceled) {
		return &url.Error{Op: ue.Op, URL: ue.URL, Err: cause}
	}
	if errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), cause.Error()) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	return err // a typed error of the layers below (a payment in doubt) stays as it is
}

// guardedBody is a response body whose attempt bounds run until it is closed.
type guardedBody struct {
	rc      io.ReadCloser
	ctx     context.Context
	cancel  context.CancelCauseFunc
	attempt *time.Timer // nil for a stream
	idle    *time.Timer // a stream's, reset by every read
	idleFor time.Duration
	once    sync.Once
}

// Read reads from the body, restarting a stream's idle bound; a read cut short by a bound
// reports the bound.
func (g *guardedBody) Read(p []byte) (int, error) {
	n, err := g.rc.Read(p)
	if g.idle != nil && n > 0 {
		g.idle.Reset(g.idleFor)
	}
	if err != nil && err != io.EOF {
		var te *timeoutError
		if cause := context.Cause(g.ctx); errors.As(cause, &te) && !strings.Contains(err.Error(), cause.Error()) {
			err = fmt.Errorf("%w: %w", cause, err)
		}
	}
	return n, err
}

// Close closes the body and ends the attempt's bounds.
func (g *guardedBody) Close() error {
	err := g.rc.Close()
	g.stop()
	return err
}

// stop ends the bounds and releases the attempt's context.
func (g *guardedBody) stop() {
	g.once.Do(func() {
		if g.attempt != nil {
			g.attempt.Stop()
		}
		if g.idle != nil {
			g.idle.Stop()
		}
		g.cancel(nil)
	})
}

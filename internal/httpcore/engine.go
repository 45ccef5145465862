package httpcore

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"golang.org/x/time/rate"

	"github.com/agentapis/sdk"
)

// DefaultMaxIdleConnsPerHost is how many idle keep-alive connections per host the client's
// default transport keeps: enough for 100 goroutines sharing one client to reuse their
// connections instead of opening new ones (net/http's default keeps 2).
const DefaultMaxIdleConnsPerHost = 100

// MaxResponseHeaderBytes caps the response headers the default transport reads: far more
// than any of the SDK's services sends, and far less than net/http's own 10 MiB, which a
// hostile server could fill on every call.
const MaxResponseHeaderBytes = 1 << 20

// DefaultTransport returns the transport a client uses when the caller gives no
// *http.Client: net/http's default transport with DefaultMaxIdleConnsPerHost idle
// connections per host and headers capped at MaxResponseHeaderBytes.
func DefaultTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(t.MaxIdleConns, DefaultMaxIdleConnsPerHost)
	t.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	t.MaxResponseHeaderBytes = MaxResponseHeaderBytes
	return t
}

// newEngine builds the client's one retry engine around a copy of hc (a client with
// DefaultTransport when nil). The copy's transport paces each attempt, bounds it by the
// client's Timeouts, then passes it to the service's Transport middleware around the
// caller's transport; it hides the idle connection pool from go-retryablehttp, which would
// otherwise empty the caller's pool each time it gives up. Its redirect policy drops the
// credentials when a redirect leaves the service's host.
func (c *Client) newEngine(hc *http.Client) *retryablehttp.Client {
	var own http.Client
	if hc != nil {
		own = *hc
	} else {
		own.Transport = DefaultTransport()
	}
	next := cmp.Or(own.Transport, http.DefaultTransport)
	if c.service.Transport != nil {
		next = c.service.Transport(next)
	}
	next = &timedTransport{next: next, timeouts: c.timeouts}
	if c.perMinute > 0 {
		next = newPacedTransport(next, c.perMinute, c.clock)
	}
	own.Transport = &engineTransport{next: next}
	own.CheckRedirect = c.guardRedirect(own.CheckRedirect)
	return &retryablehttp.Client{
		HTTPClient:   &own,
		RetryWaitMin: c.retry.BaseDelay,
		RetryWaitMax: c.retry.MaxDelay,
		RetryMax:     c.retry.MaxAttempts - 1,
		RequestLogHook: func(_ retryablehttp.Logger, req *http.Request, retry int) {
			if rs := requestStateOf(req.Context()); rs != nil {
				rs.attempt, rs.began = retry+1, c.clock.Now()
			}
		},
		CheckRetry:   c.checkRetry,
		Backoff:      c.backoffFor,
		ErrorHandler: func(resp *http.Response, err error, _ int) (*http.Response, error) { return resp, err },
	}
}

// engineTransport is the transport of the retry engine. It has no CloseIdleConnections
// method on purpose.
type engineTransport struct {
	next http.RoundTripper
}

// RoundTrip sends req. The response's Request is req whenever the transports below left it
// unset or set another request without the request's state, so that the engine's hooks
// always find it.
func (t *engineTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if resp != nil && (resp.Request == nil || requestStateOf(resp.Request.Context()) == nil) {
		resp.Request = req
	}
	return resp, err
}

// pacedTransport spaces the attempts it passes on so that no 60-second window holds more
// than its limit: one token at a time (burst 1), one token every minute/limit plus a
// millisecond, so even a window closed at both ends holds at most limit attempts.
type pacedTransport struct {
	next    http.RoundTripper
	limiter *rate.Limiter
	clock   sdk.Clock
}

// newPacedTransport returns a transport of perMinute attempts in front of next.
func newPacedTransport(next http.RoundTripper, perMinute int, clock sdk.Clock) *pacedTransport {
	every := time.Minute/time.Duration(perMinute) + time.Millisecond
	return &pacedTransport{next: next, limiter: rate.NewLimiter(rate.Every(every), 1), clock: clock}
}

// RoundTrip waits until the next attempt may go, or req's context ends, then sends req.
func (t *pacedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	now := t.clock.Now()
	r := t.limiter.ReserveN(now, 1)
	if err := t.clock.Sleep(req.Context(), r.DelayFrom(now)); err != nil {
		r.CancelAt(t.clock.Now())
		return nil, err
	}
	return t.next.RoundTrip(req)
}

// guardRedirect returns the redirect policy of the engine: when a redirect leaves the
// original host or downgrades from https, every credential header the client or the request
// uses is dropped (Go itself drops only Authorization and Cookie); then next, or a limit of
// 10 redirects, decides.
func (c *Client) guardRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0].URL
		if req.URL.Host != first.Host || (first.Scheme == "https" && req.URL.Scheme != "https") {
			for _, h := range c.auth.Load().headers {
				req.Header.Del(h)
			}
			if rs := requestStateOf(req.Context()); rs != nil {
				for _, cr := range rs.creds {
					req.Header.Del(cr.Header)
				}
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
}

// checkRetry is the engine's retry policy. It is called once when an attempt ends, and once
// more with the response handler's error when a 2xx body reported a Failure or did not
// decode.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	rs := requestStateOf(ctx)
	switch e := err.(type) {
	case *Failure:
		return e.Retry && rs.req.Retry != RetryNever && ctx.Err() == nil, nil
	case *decodeFailure:
		return false, nil
	}
	if rs.logged < rs.attempt {
		rs.logged = rs.attempt
		c.logAttempt(ctx, rs, resp, err)
	}
	repeatable := rs.req.Retry == RetrySafe || rs.req.Retry == RetryByMethod && idempotentMethods[rs.req.Method]
	retry, err := shouldRetry(ctx, repeatable, resp, err)
	return retry && !retryAfterTooLong(c.retry, resp, c.clock.Now()), err
}

// backoffFor returns the wait before retry number retry (0 for the first retry): what the
// server asked for, in its Retry-After header or in a Failure, capped at MaxRetryAfter;
// otherwise the client's full-jitter schedule.
func (c *Client) backoffFor(_, _ time.Duration, retry int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), c.clock.Now()); ok {
			return min(d, c.retry.MaxRetryAfter)
		}
		if resp.Request != nil {
			if rs := requestStateOf(resp.Request.Context()); rs != nil && rs.failure != nil && rs.failure.RetryAfter > 0 {
				return min(rs.failure.RetryAfter, c.retry.MaxRetryAfter)
			}
		}
	}
	return c.backoff.Delay(retry)
}

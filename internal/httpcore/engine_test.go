package httpcore

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
)

// contextWithTimeout returns a child of the test's context ending after d.
func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}

// countingTransport counts CloseIdleConnections calls on the caller's transport.
type countingTransport struct {
	*http.Transport
	closed atomic.Int32
}

func (c *countingTransport) CloseIdleConnections() {
	c.closed.Add(1)
	c.Transport.CloseIdleConnections()
}

func TestCallersIdleConnectionsAreNeverClosed(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			_, _ = io.WriteString(w, `{}`)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	tr := &countingTransport{Transport: DefaultTransport()}
	p := fastRetry
	p.BaseDelay, p.MaxDelay = time.Hour, time.Hour
	slow := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithHTTPClient[*testConfig](&http.Client{Transport: tr}), WithRetry[*testConfig](p))
	fast := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithHTTPClient[*testConfig](&http.Client{Transport: tr}), WithRetry[*testConfig](fastRetry))

	_, err := fast.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/busy"}, nil)
	require.Error(t, err, "the retries give up")
	ctx, cancel := contextWithTimeout(t, 20*time.Millisecond)
	defer cancel()
	_, err = slow.Do(ctx, &Request{Method: http.MethodGet, Path: "/busy"}, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the context ends an hour-long backoff")
	_, err = fast.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/ok"}, nil)
	require.NoError(t, err)
	assert.Zero(t, tr.closed.Load(), "giving up and cancelling leave the caller's pool alone")
}

func TestOneEngineServesEveryRequest(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{}`) })
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL))
	engine := c.engine
	for range 3 {
		_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, nil)
		require.NoError(t, err)
	}
	assert.Same(t, engine, c.engine)
}

func TestDefaultTransportKeepsIdleConnectionsForConcurrentUse(t *testing.T) {
	t.Parallel()
	tr := DefaultTransport()
	assert.Equal(t, DefaultMaxIdleConnsPerHost, tr.MaxIdleConnsPerHost)
	assert.GreaterOrEqual(t, tr.MaxIdleConns, DefaultMaxIdleConnsPerHost)
	assert.NotSame(t, http.DefaultTransport, tr, "each client gets its own pool")
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig]("https://h"))
	base := c.engine.HTTPClient.Transport.(*engineTransport).next.(*timedTransport).next.(*http.Transport)
	assert.Equal(t, DefaultMaxIdleConnsPerHost, base.MaxIdleConnsPerHost)
	assert.Equal(t, int64(MaxResponseHeaderBytes), base.MaxResponseHeaderBytes)
}

func TestRateLimitErrorCarriesTheHeaders(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Limit", "10")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", "3600")
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":"daily quota exceeded"}`)
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](sdk.RetryPolicy{MaxAttempts: 1}))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/v1/gpus"}, nil)
	var rle *sdk.RateLimitError
	require.ErrorAs(t, err, &rle)
	assert.Equal(t, time.Hour, rle.RetryAfter)
	require.NotNil(t, rle.RateLimit)
	assert.Equal(t, 10, *rle.RateLimit.Limit)
	assert.Equal(t, 0, *rle.RateLimit.Remaining)
	assert.Equal(t, time.Hour, *rle.RateLimit.Reset)
	var ae *sdk.APIError
	require.ErrorAs(t, err, &ae, "the *sdk.APIError is found through it")
	assert.Equal(t, "daily quota exceeded", ae.Message)
}

func TestParseRateLimit(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	assert.Nil(t, ParseRateLimit(http.Header{}, now))
	assert.Nil(t, ParseRateLimit(nil, now))
	assert.Nil(t, ParseRateLimit(http.Header{"X-Ratelimit-Limit": {"lots"}}, now), "unparsable values count as absent")
	rl := ParseRateLimit(http.Header{"Ratelimit-Remaining": {"7"}, "X-Ratelimit-Reset": {"1800000090"}}, now)
	require.NotNil(t, rl)
	assert.Nil(t, rl.Limit, "an absent limit is unknown, not 0")
	assert.Equal(t, 7, *rl.Remaining)
	assert.Equal(t, 90*time.Second, *rl.Reset, "a Unix-time reset becomes a duration from now")
	rl = ParseRateLimit(http.Header{"X-Ratelimit-Reset": {"1700000000"}}, now)
	assert.Equal(t, time.Duration(0), *rl.Reset, "a reset in the past is now")
	rl = ParseRateLimit(http.Header{"X-Ratelimit-Remaining": {"0"}}, now)
	assert.Equal(t, 0, *rl.Remaining, "a computed 0 is kept")
}

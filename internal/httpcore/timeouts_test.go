package httpcore

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
)

// stalled starts a server that holds each request until the test ends, after writing the
// headers when withHeaders, and then a byte every 20ms when trickle.
func stalled(t *testing.T, withHeaders, trickle bool) string {
	t.Helper()
	done := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if withHeaders {
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "{")
			http.NewResponseController(w).Flush()
		}
		for trickle {
			select {
			case <-done:
				return
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
				_, _ = io.WriteString(w, " ")
				http.NewResponseController(w).Flush()
			}
		}
		select {
		case <-done:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(done) })
	return srv.URL
}

func TestNoHeadersEndsTheAttemptAndTheCallIsBounded(t *testing.T) {
	t.Parallel()
	url := stalled(t, false, false)
	p := fastRetry
	p.MaxAttempts = 2
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](url), WithRetry[*testConfig](p),
		WithTimeouts[*testConfig](sdk.Timeouts{Header: 50 * time.Millisecond}))
	start := time.Now()
	_, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/x"}, nil)
	var re *sdk.RequestError
	require.ErrorAs(t, err, &re)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "no response headers within 50ms")
	assert.Equal(t, 2, re.Attempts, "a timed-out GET is retried like a network failure")
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestATrickledBodyEndsAtTheAttemptBound(t *testing.T) {
	t.Parallel()
	url := stalled(t, true, true)
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](url), WithRetry[*testConfig](sdk.RetryPolicy{MaxAttempts: 1}),
		WithTimeouts[*testConfig](sdk.Timeouts{Attempt: 150 * time.Millisecond}))
	start := time.Now()
	_, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/x"}, &map[string]any{})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "the attempt did not end within 150ms")
	assert.Equal(t, 1, strings.Count(err.Error(), "the attempt did not end"), "the cause is said once: %v", err)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestAStalledStreamEndsAtTheIdleBoundNotTheAttemptBound(t *testing.T) {
	t.Parallel()
	trickling := stalled(t, true, true)
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](trickling), WithRetry[*testConfig](sdk.RetryPolicy{MaxAttempts: 1}),
		WithTimeouts[*testConfig](sdk.Timeouts{Attempt: 50 * time.Millisecond, Idle: 500 * time.Millisecond}))
	resp, err := c.Stream(context.Background(), &Request{Method: http.MethodGet, Path: "/x"})
	require.NoError(t, err)
	buf := make([]byte, 1)
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		_, err := resp.Body.Read(buf)
		require.NoError(t, err, "a stream that keeps sending outlives the attempt bound")
	}
	resp.Body.Close()

	silent := stalled(t, true, false)
	c = newTestClient(t, Service{}, WithBaseURL[*testConfig](silent), WithRetry[*testConfig](sdk.RetryPolicy{MaxAttempts: 1}),
		WithTimeouts[*testConfig](sdk.Timeouts{Idle: 100 * time.Millisecond}))
	resp, err = c.Stream(context.Background(), &Request{Method: http.MethodGet, Path: "/x"})
	require.NoError(t, err)
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "no data from the stream within 100ms")
}

func TestHugeHeadersAreRefusedEarly(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Huge", strings.Repeat("a", 2<<20))
		w.WriteHeader(http.StatusOK)
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](sdk.RetryPolicy{MaxAttempts: 1}))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/x"}, nil)
	var re *sdk.RequestError
	require.ErrorAs(t, err, &re)
	assert.Contains(t, re.Detail, "1048576")
}

func TestTimeoutsRefuseNegativeValues(t *testing.T) {
	t.Parallel()
	err := Configure("testsvc", &testConfig{}, []testOption{WithTimeouts[*testConfig](sdk.Timeouts{Idle: -time.Second})})
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "timeouts", ve.Field)
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig]("https://h"))
	assert.Equal(t, sdk.Timeouts{Header: 30 * time.Second, Attempt: time.Minute, Idle: 30 * time.Second}, c.timeouts)
}

func TestAStreamedFailureAnswerIsBoundedByTheAttempt(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
				_, _ = io.WriteString(w, " ")
				http.NewResponseController(w).Flush()
			}
		}
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](sdk.RetryPolicy{MaxAttempts: 1}),
		WithTimeouts[*testConfig](sdk.Timeouts{Attempt: 200 * time.Millisecond, Idle: time.Minute}))
	start := time.Now()
	_, err := c.Stream(context.Background(), &Request{Method: http.MethodGet, Path: "/x"})
	var ae *sdk.APIError
	require.ErrorAs(t, err, &ae, "the failure answer is reported with what of its body came")
	assert.Equal(t, http.StatusBadGateway, ae.StatusCode)
	assert.Less(t, time.Since(start), 5*time.Second, "a trickled error body ends at the attempt bound, not the idle bound")
}

// failingTransport fails every request with a typed error once the request's context ends,
// as a payer does with a payment in doubt.
type failingTransport struct{}

type typedError struct{ error }

func (failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, &typedError{errors.New("payment in doubt")}
}

func TestATypedErrorOfTheTransportSurvivesTheContextEnding(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, Service{Transport: func(http.RoundTripper) http.RoundTripper { return failingTransport{} }},
		WithBaseURL[*testConfig]("http://127.0.0.1:1"))
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: "/x"}, nil)
	var typed *typedError
	assert.ErrorAs(t, err, &typed, "the transport's own error, not a bare context error: %v", err)
}

func TestMetaOfAStreamCountsItsAttempts(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("X-Request-Id", "req-7")
		_, _ = io.WriteString(w, "data")
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	resp, err := c.Stream(t.Context(), &Request{Method: http.MethodGet, Path: "/x"})
	require.NoError(t, err)
	defer resp.Body.Close()
	m := Meta(resp)
	assert.Equal(t, 2, m.Attempts)
	assert.Equal(t, "req-7", m.RequestID)
	assert.Equal(t, http.StatusOK, m.StatusCode)
	cfg := &testConfig{}
	require.NoError(t, Configure("t", cfg, []testOption{WithTimeouts[*testConfig](sdk.Timeouts{Idle: time.Second})}))
	assert.Equal(t, sdk.Timeouts{Header: 30 * time.Second, Attempt: time.Minute, Idle: time.Second}, cfg.Timeouts())
}

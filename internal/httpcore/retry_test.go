package httpcore

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/excerpt"
)

func TestGetRetriedAfter503ThenSucceeds(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, http.MethodGet, r.Method)
		assert.Equal(t, "/api/v1/charts/7", r.URL.Path)
		assert.Equal(t, "sk-secret-value", r.Header.Get("x-phm-key"))
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"chart_id":7,"name":"Shadow"}`)
	})
	c := newTestClient(t, Service{PathPrefix: "/api/v1", Credentials: []Credential{{Header: "x-phm-key", Value: "sk-secret-value"}}},
		WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))

	var out struct {
		ChartID int    `json:"chart_id"`
		Name    string `json:"name"`
	}
	resp, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: Path("charts", "7")}, &out)
	require.NoError(t, err)
	assert.Equal(t, int32(2), calls.Load())
	assert.Equal(t, 2, resp.Attempts)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, 7, out.ChartID)
	assert.Equal(t, "Shadow", out.Name)
}

func TestRetriedStatusesAndNotRetried(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status int
		calls  int32
	}{
		{http.StatusTooManyRequests, 4},
		{http.StatusBadGateway, 4},
		{http.StatusServiceUnavailable, 4},
		{http.StatusGatewayTimeout, 4},
		{http.StatusInternalServerError, 1},
		{http.StatusNotImplemented, 1},
		{http.StatusBadRequest, 1},
		{http.StatusNotFound, 1},
	}
	for _, tc := range cases {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.WriteHeader(tc.status)
			})
			c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
			_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/x"}, nil)
			var apiErr *sdk.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, tc.calls, calls.Load())
			assert.Equal(t, int(tc.calls), apiErr.Attempts)
		})
	}
}

func TestPostRetriedOnlyWhenMarkedSafe(t *testing.T) {
	t.Parallel()
	for _, safe := range []bool{false, true} {
		t.Run(map[bool]string{false: "unmarked", true: "safe"}[safe], func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				assert.Equal(t, http.MethodPost, r.Method)
				assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
				body, _ := io.ReadAll(r.Body)
				assert.JSONEq(t, `{"chart_id":42}`, string(body), "every attempt carries the whole body")
				w.WriteHeader(http.StatusServiceUnavailable)
			})
			c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
			_, err := c.Do(t.Context(), &Request{Method: http.MethodPost, Path: "/analyses", Body: JSON(map[string]int{"chart_id": 42}), Retry: map[bool]RetryMode{true: RetrySafe, false: RetryByMethod}[safe]}, nil)
			var apiErr *sdk.APIError
			require.ErrorAs(t, err, &apiErr)
			want := int32(1)
			if safe {
				want = int32(fastRetry.MaxAttempts)
			}
			assert.Equal(t, want, calls.Load())
			assert.Equal(t, int(want), apiErr.Attempts)
		})
	}
}

func TestNetworkErrorsRetriedForGetNotForPost(t *testing.T) {
	t.Parallel()
	// Every POST and the first two GETs fail to connect; the third GET is answered.
	var mu sync.Mutex
	calls := map[string]int{}
	failing := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		calls[r.Method]++
		n := calls[r.Method]
		mu.Unlock()
		if r.Method == http.MethodPost || n < 3 {
			return nil, errors.New("connection refused")
		}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"ok":true}`)), Request: r}, nil
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig]("https://api.test"),
		WithHTTPClient[*testConfig](&http.Client{Transport: failing}), WithRetry[*testConfig](fastRetry))

	var out struct{ OK bool }
	resp, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/flaky"}, &out)
	require.NoError(t, err)
	assert.True(t, out.OK)
	assert.Equal(t, 3, resp.Attempts)

	_, err = c.Do(t.Context(), &Request{Method: http.MethodPost, Path: "/create", Body: JSON(struct{}{})}, nil)
	var reqErr *sdk.RequestError
	require.ErrorAs(t, err, &reqErr)
	assert.Equal(t, 1, reqErr.Attempts)
	assert.Equal(t, map[string]int{http.MethodPost: 1, http.MethodGet: 3}, calls)
}

func TestRetryAfterHonouredAndCapped(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig]("https://h"))
	wait := func(n int, resp *http.Response) time.Duration { return c.backoffFor(0, 0, n, resp) }
	mk := func(v string) *http.Response {
		return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {v}}}
	}
	assert.Equal(t, 2*time.Second, wait(0, mk("2")))
	assert.Equal(t, 2*time.Second, wait(3, mk("2")), "Retry-After wins over the exponential backoff")
	assert.Equal(t, sdk.DefaultMaxRetryAfter, wait(0, mk("3600")))
	assert.Equal(t, sdk.DefaultMaxRetryAfter, wait(0, mk("99999999999999999999")))
	custom := newTestClient(t, Service{}, WithBaseURL[*testConfig]("https://h"), WithRetry[*testConfig](sdk.RetryPolicy{MaxRetryAfter: 5 * time.Second}))
	assert.Equal(t, 5*time.Second, custom.backoffFor(0, 0, 0, mk("3600")))

	date := time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)
	got := wait(0, mk(date))
	assert.Greater(t, got, 8*time.Second)
	assert.LessOrEqual(t, got, 10*time.Second)
	assert.Equal(t, time.Duration(0), wait(0, mk(time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat))))
}

func TestRetryAfterParse(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	d, ok := parseRetryAfter("120", now)
	assert.True(t, ok)
	assert.Equal(t, 2*time.Minute, d)
	d, ok = parseRetryAfter("Sun, 22 Nov 2026 12:00:30 GMT", now)
	assert.True(t, ok)
	assert.Equal(t, 30*time.Second, d)
	for _, bad := range []string{"", "-1", "soon", "1.5"} {
		_, ok := parseRetryAfter(bad, now)
		assert.False(t, ok, bad)
	}
}

func TestFullJitterBackoffBounds(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig]("https://h"),
		WithRetry[*testConfig](sdk.RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}))
	seen := map[bool]bool{}
	for i := 0; i < 2000; i++ {
		d := c.backoffFor(0, 0, 2, nil)
		require.GreaterOrEqual(t, d, time.Duration(0))
		require.LessOrEqual(t, d, 400*time.Millisecond)
		seen[d < 200*time.Millisecond] = true
	}
	assert.Len(t, seen, 2, "waits spread over the whole jitter range")
	for i := 0; i < 200; i++ {
		require.LessOrEqual(t, c.backoffFor(0, 0, 40, nil), time.Second, "MaxDelay caps large attempt numbers")
	}
}

func TestRetryAfterHonouredEndToEnd(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var first, second time.Time
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		second = time.Now()
		_, _ = io.WriteString(w, `{}`)
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/slow"}, nil)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, second.Sub(first), 2*time.Second, "the retry waited the whole Retry-After, not the 5ms backoff")
}

func TestRetryAfterCappedEndToEnd(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = io.WriteString(w, `{}`)
	})
	p := fastRetry
	p.MaxRetryAfter = 20 * time.Millisecond
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](p))
	// Without the cap this would wait an hour; the deadline turns that into a failure.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	resp, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: "/quota"}, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, resp.Attempts)
}

func TestStopOnLongRetryAfterReturnsAtOnce(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path == "/short" && calls.Load() == 1 {
			w.Header().Set("Retry-After", "0")
		} else {
			w.Header().Set("Retry-After", "3600")
		}
		w.WriteHeader(http.StatusTooManyRequests)
	})
	p := fastRetry
	p.StopOnLongRetryAfter = true
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](p))

	start := time.Now()
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/quota"}, nil)
	var apiErr *sdk.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
	assert.Equal(t, time.Hour, apiErr.RetryAfter)
	assert.Equal(t, 1, apiErr.Attempts, "no retry after a Retry-After beyond the cap")
	assert.EqualValues(t, 1, calls.Load())
	assert.Less(t, time.Since(start), sdk.DefaultMaxRetryAfter, "did not wait the capped Retry-After")

	// A wait within the cap is still retried.
	calls.Store(0)
	_, err = c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/short"}, nil)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 2, apiErr.Attempts)
}

func TestCancelledContextEndsBackoffWait(t *testing.T) {
	t.Parallel()
	answered := make(chan struct{}, 1)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.(http.Flusher).Flush()
		answered <- struct{}{}
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	ctx, cancel := context.WithCancel(t.Context())
	var cancelledAt time.Time
	go func() {
		<-answered
		time.Sleep(30 * time.Millisecond) // the client is now in its 30 s wait
		cancelledAt = time.Now()
		cancel()
	}()
	_, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: "/busy"}, nil)
	returned := time.Now()
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, returned.Sub(cancelledAt), 50*time.Millisecond)
	var reqErr *sdk.RequestError
	require.ErrorAs(t, err, &reqErr)
	assert.Equal(t, 1, reqErr.Attempts)
}

func TestLastAPIErrorAfterFinalAttempt(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		w.Header().Set("X-Request-Id", "req-"+string(rune('0'+n)))
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html>upstream fell over, attempt "+string(rune('0'+n))+"</html>")
	})
	p := fastRetry
	p.MaxAttempts = 3
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](p))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/report/a", Query: map[string][]string{"format": {"csv"}}}, nil)
	var apiErr *sdk.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadGateway, apiErr.StatusCode)
	assert.Equal(t, 3, apiErr.Attempts)
	assert.Equal(t, "req-3", apiErr.RequestID, "the error is the last response's")
	assert.Equal(t, "<html>upstream fell over, attempt 3</html>", string(apiErr.Body))
	assert.Equal(t, "/report/a", apiErr.Path)
	msg := err.Error()
	assert.Contains(t, msg, "502")
	assert.Contains(t, msg, "after 3 attempts")
	assert.Contains(t, msg, "upstream fell over, attempt 3", "the message quotes the body when it has no code")
	assert.NotContains(t, msg, "giving up")
	assert.NotContains(t, msg, "format=csv", "the query never reaches an error")
}

func TestOversizedErrorBodyCapped(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, strings.Repeat("x", 3*sdk.MaxErrorBodyBytes))
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/big"}, nil)
	var apiErr *sdk.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Len(t, apiErr.Body, sdk.MaxErrorBodyBytes)
	assert.True(t, apiErr.BodyTruncated)
	assert.Less(t, len(err.Error()), 400, "the message quotes an excerpt, not the body")
}

func TestMalformedSuccessBodyIsDecodeError(t *testing.T) {
	t.Parallel()
	body := `{"charts": [` + strings.Repeat(`{"chart_id": 1},`, 100)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = io.WriteString(w, body)
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL))
	var out map[string]any
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/charts"}, &out)
	var decErr *sdk.DecodeError
	require.ErrorAs(t, err, &decErr)
	assert.Equal(t, http.StatusOK, decErr.StatusCode)
	assert.Equal(t, "application/json", decErr.ContentType)
	assert.Equal(t, body[:200]+"...", decErr.Excerpt)
	assert.Equal(t, "/charts", decErr.Path)
	assert.Contains(t, err.Error(), "unexpected end of JSON input")
}

func TestExcerptCutsOnRuneBoundary(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("a", 199) + "é" + "tail"
	got := excerpt.Of([]byte(s))
	assert.Equal(t, strings.Repeat("a", 199)+"...", got)
	assert.Equal(t, "short", excerpt.Of([]byte("short")))
	assert.Equal(t, "\uFFFDok", excerpt.Of([]byte("\xffok")))
}

func TestContextDeadlineDuringRequest(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: "/hang"}, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var reqErr *sdk.RequestError
	require.ErrorAs(t, err, &reqErr)
	assert.Equal(t, 1, reqErr.Attempts, "a request cut by its context is not retried")
	assert.False(t, errors.Is(err, context.Canceled))
}

// paymentError stands for a transport error such as a rejected payment.
type paymentError struct{ retryable bool }

func (e *paymentError) Error() string        { return "payment rejected" }
func (e *paymentError) RetryableError() bool { return e.retryable }

// roundTripFunc turns a function into an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestTransportErrorThatRefusesRetryEndsRetries(t *testing.T) {
	t.Parallel()
	for _, retryable := range []bool{false, true} {
		var calls atomic.Int32
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			calls.Add(1)
			return nil, &paymentError{retryable: retryable}
		})
		c := newTestClient(t, Service{}, WithBaseURL[*testConfig]("https://store.test"),
			WithHTTPClient[*testConfig](&http.Client{Transport: rt}), WithRetry[*testConfig](fastRetry))
		_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/report/a"}, nil)
		var pe *paymentError
		require.ErrorAs(t, err, &pe, "the transport's error stays reachable")
		want := int32(1)
		if retryable {
			want = int32(fastRetry.MaxAttempts)
		}
		assert.Equal(t, want, calls.Load(), "retryable=%v", retryable)
	}
}

// cancelAfterAnswer is a transport that ends the request's context right after the answer
// arrived, as a caller giving up at that moment would.
type cancelAfterAnswer struct {
	next   http.RoundTripper
	cancel context.CancelFunc
}

func (c cancelAfterAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	c.cancel()
	return resp, err
}

func TestAnswerKeptWhenTheContextEndsAfterItArrived(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Payment-Response", "receipt")
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	ctx, cancel := context.WithCancel(t.Context())
	hc := &http.Client{Transport: cancelAfterAnswer{next: http.DefaultTransport, cancel: cancel}}
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithHTTPClient[*testConfig](hc))
	resp, err := c.Stream(ctx, &Request{Method: http.MethodGet, Path: "/paid"})
	require.NoError(t, err, "the 2xx answer arrived before the context ended: it is not lost")
	defer resp.Body.Close()
	assert.Equal(t, "receipt", resp.Header.Get("Payment-Response"))
	assert.Error(t, ctx.Err())
}

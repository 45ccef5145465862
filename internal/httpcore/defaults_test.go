package httpcore

import (
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/sdktest"
)

func TestServiceRetryDefaultsSitBetweenTheOptionAndTheSDK(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	svc := Service{Defaults: Defaults{Retry: sdk.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond,
		StopOnLongRetryAfter: true}}}
	c := newTestClient(t, svc, WithBaseURL[*testConfig](srv.URL))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, nil)
	require.Error(t, err)
	assert.EqualValues(t, 3, calls.Load(), "the service's attempts, not the SDK's 4")
	assert.Equal(t, sdk.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond,
		MaxRetryAfter: sdk.DefaultMaxRetryAfter, StopOnLongRetryAfter: true}, c.retry, "a zero field of both takes the SDK's")

	calls.Store(0)
	c = newTestClient(t, svc, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](sdk.RetryPolicy{MaxAttempts: 1, BaseDelay: 2 * time.Millisecond}))
	_, err = c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, nil)
	require.Error(t, err)
	assert.EqualValues(t, 1, calls.Load(), "the option's field wins")
	assert.Equal(t, 2*time.Millisecond, c.retry.BaseDelay)
	assert.Equal(t, 2*time.Millisecond, c.retry.MaxDelay, "the option's zero field takes the service's")
	assert.True(t, c.retry.StopOnLongRetryAfter, "a service that stops on a long Retry-After always does")

	c = newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL))
	assert.Equal(t, sdk.RetryPolicy{MaxAttempts: sdk.DefaultMaxAttempts, BaseDelay: sdk.DefaultBaseDelay, MaxDelay: sdk.DefaultMaxDelay,
		MaxRetryAfter: sdk.DefaultMaxRetryAfter}, c.retry, "without defaults: the SDK's")
}

func TestWaitTakesTheServiceDefaultsForZeroFields(t *testing.T) {
	t.Parallel()
	def := sdk.WaitPolicy{Timeout: 90 * time.Second, MinDelay: 2 * time.Second, MaxDelay: 30 * time.Second, MaxAttempts: 13}
	seen := 0
	progress := func(sdk.WaitProgress) { seen++ }
	cases := map[string]struct {
		option, want sdk.WaitPolicy
	}{
		"none":              {sdk.WaitPolicy{}, def},
		"timeout":           {sdk.WaitPolicy{Timeout: time.Minute}, sdk.WaitPolicy{Timeout: time.Minute, MinDelay: 2 * time.Second, MaxDelay: 30 * time.Second, MaxAttempts: 13}},
		"ask once":          {sdk.WaitPolicy{MaxAttempts: 1}, sdk.WaitPolicy{Timeout: 90 * time.Second, MinDelay: 2 * time.Second, MaxDelay: 30 * time.Second, MaxAttempts: 1}},
		"small max alone":   {sdk.WaitPolicy{MaxDelay: time.Second}, sdk.WaitPolicy{Timeout: 90 * time.Second, MinDelay: time.Second, MaxDelay: time.Second, MaxAttempts: 13}},
		"large min alone":   {sdk.WaitPolicy{MinDelay: time.Minute}, sdk.WaitPolicy{Timeout: 90 * time.Second, MinDelay: time.Minute, MaxDelay: time.Minute, MaxAttempts: 13}},
		"both delays given": {sdk.WaitPolicy{MinDelay: time.Second, MaxDelay: 5 * time.Second}, sdk.WaitPolicy{Timeout: 90 * time.Second, MinDelay: time.Second, MaxDelay: 5 * time.Second, MaxAttempts: 13}},
	}
	for name, tc := range cases {
		cfg := &testConfig{}
		require.NoError(t, Configure("testsvc", cfg, []testOption{WithWait[*testConfig](tc.option)}), name)
		assert.Equal(t, tc.want, cfg.Wait(def), name)
	}

	cfg := &testConfig{}
	require.NoError(t, Configure("testsvc", cfg, []testOption{WithWait[*testConfig](sdk.WaitPolicy{Progress: progress})}))
	cfg.Wait(def).Progress(sdk.WaitProgress{})
	assert.Equal(t, 1, seen, "the option's Progress is kept")
	assert.NotNil(t, (&Settings{}).Wait(sdk.WaitPolicy{Progress: progress}).Progress, "the service's Progress fills a nil one")
}

func TestSettingsClockAndLogger(t *testing.T) {
	t.Parallel()
	s := &Settings{}
	assert.Equal(t, sdk.SystemClock(), s.Clock(), "the wall clock by default")
	assert.Nil(t, s.Logger(), "logging is off by default")
	clock := sdktest.NewClock(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	logger := slog.New(slog.DiscardHandler)
	cfg := &testConfig{}
	require.NoError(t, Configure("testsvc", cfg, []testOption{WithClock[*testConfig](clock), WithLogger[*testConfig](logger)}))
	assert.Same(t, clock, cfg.Clock())
	assert.Same(t, logger, cfg.Logger())
}

func TestTheClientReadsTimeFromItsClock(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := sdktest.NewClock(now)
	reset := strconv.FormatInt(now.Add(90*time.Second).Unix(), 10)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Reset", reset)
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		_, _ = io.WriteString(w, "{}")
	})
	var classified time.Time
	svc := Service{ClassifyAt: func(err error, at time.Time) error { classified = at; return err }}
	c := newTestClient(t, svc, WithBaseURL[*testConfig](srv.URL), WithClock[*testConfig](clock))

	resp, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/ok"}, nil)
	require.NoError(t, err)
	require.NotNil(t, resp.Meta().RateLimit)
	assert.Equal(t, 90*time.Second, *resp.Meta().RateLimit.Reset, "a Unix reset counts from the client's clock")

	stream, err := c.Stream(t.Context(), &Request{Method: http.MethodGet, Path: "/ok"})
	require.NoError(t, err)
	defer stream.Body.Close()
	assert.Equal(t, 90*time.Second, *Meta(stream).RateLimit.Reset, "a stream's too")

	_, err = c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/fail"}, nil)
	require.Error(t, err)
	assert.Equal(t, now, classified, "ClassifyAt sees the time on the client's clock")
}

func TestSentinelsMatchTheirCodes(t *testing.T) {
	t.Parallel()
	s := NewSentinels("testsvc").Alias(sdk.ErrNotFound, "not_found", "gone")
	busy := s.Code("busy")
	blocked := s.New("request blocked", "blocked", "firewall")
	plain := s.New("no code")
	assert.EqualError(t, busy, "testsvc: busy")
	assert.EqualError(t, blocked, "testsvc: request blocked")
	assert.EqualError(t, plain, "testsvc: no code")
	assert.Same(t, busy, s.Match("busy"))
	assert.Same(t, blocked, s.Match("firewall"))
	assert.Equal(t, sdk.ErrNotFound, s.Match("gone"))
	assert.Nil(t, s.Match("Busy"), "codes are compared exactly")
	assert.Nil(t, (*Sentinels)(nil).Match("busy"), "a service without sentinels matches none")
	assert.PanicsWithValue(t, "httpcore: testsvc gives the code busy two sentinels", func() { s.New("again", "busy") })

	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"code":"`+r.URL.Path[1:]+`"}}`)
	})
	c := newTestClient(t, Service{Sentinels: s}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](sdk.RetryPolicy{MaxAttempts: 1}))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/busy"}, nil)
	assert.ErrorIs(t, err, busy)
	assert.NotErrorIs(t, err, blocked)
	_, err = c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/gone"}, nil)
	assert.ErrorIs(t, err, sdk.ErrNotFound, "an alias matches the existing sentinel")
}

package chartdiff_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

func TestAnalyzeRunsThenServesFromCache(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	key := srv.IssueKey(srv.AccountToken())
	log := &testkit.HeaderLog{}
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(key), chartdiff.WithHTTPClient(log.Client()))

	before, err := c.Chart(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err)
	require.False(t, before.Analyzed)

	res, err := c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err)
	assert.False(t, res.Cached)
	assert.True(t, res.Chart.Analyzed)
	assert.Equal(t, chartdifftest.ChartNotAnalyzed, res.Chart.ID)
	require.NotNil(t, res.Chart.RefConst)
	require.NotNil(t, res.Chart.Notes)
	assert.Equal(t, 1, res.Response.Attempts)
	assert.NotNil(t, res.Response.RateLimit)

	reqs := srv.Requests()
	post := reqs[len(reqs)-1]
	assert.Equal(t, http.MethodPost, post.Method)
	assert.Equal(t, "/api/v1/analyses", post.Path)
	assert.JSONEq(t, `{"chart_id":4}`, string(post.Body), "the body holds chart_id only")
	assert.Equal(t, "application/json", post.Header.Get("Content-Type"))
	assert.Equal(t, sdktest.Redacted, post.Header.Get("x-phm-key"), "the fake's record redacts the key")
	assert.Equal(t, key, log.Sent()[1].Get("x-phm-key"))

	after, err := c.Chart(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err)
	assert.True(t, after.Analyzed, "the result is in the shared cache")
	assert.Equal(t, *res.Chart.RefConst, *after.RefConst)

	again, err := c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err)
	assert.True(t, again.Cached)
	assert.Equal(t, *res.Chart.RefConst, *again.Chart.RefConst)

	anon := newClient(t, srv.URL)
	seen, err := anon.Chart(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err)
	assert.True(t, seen.Analyzed, "available to all later queries")
}

// fillSlots starts two analyses that hold both slots until release, and waits until they run.
func fillSlots(t *testing.T, srv *chartdifftest.Server, c *chartdiff.Client) (release func(), wait func()) {
	t.Helper()
	release = srv.HoldAnalyses()
	var wg sync.WaitGroup
	for _, id := range []int{12, 16} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Analyze(context.Background(), id)
			assert.NoError(t, err)
		}()
	}
	require.Eventually(t, func() bool { return srv.RunningAnalyses() == 2 }, 5*time.Second, time.Millisecond)
	return release, wg.Wait
}

// stepClock is a fake clock for Analyze's busy loop: each wait moves the fake time on at once,
// after running onWait with the number of the wait (1 for the first).
type stepClock struct {
	*sdktest.Clock
	n      atomic.Int32
	onWait func(n int)
}

// Sleep runs onWait, then waits d on the fake clock.
func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	if c.onWait != nil {
		c.onWait(int(c.n.Add(1)))
	}
	return c.Clock.Sleep(ctx, d)
}

// waitFor is the WithWait option of a test: Analyze waits up to timeout for a free slot, on
// clock.
func waitFor(timeout time.Duration, clock sdk.Clock) []chartdiff.Option {
	return []chartdiff.Option{chartdiff.WithWait(sdk.WaitPolicy{Timeout: timeout}), chartdiff.WithClock(clock)}
}

// analysisPosts counts the analyses srv received.
func analysisPosts(srv *chartdifftest.Server) int {
	return srv.RequestCount(http.MethodPost, "/api/v1/analyses")
}

func TestAnalyzeWaitsWhileBusy(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	release, wait := fillSlots(t, srv, newClient(t, srv.URL))

	clock := &stepClock{Clock: sdktest.NewClock(epoch), onWait: func(n int) {
		if n == 2 { // two busy answers prove the client waits and retries
			release()
			wait() // the held analyses are answered: both slots are free
		}
	}}
	c := newClient(t, srv.URL, waitFor(20*time.Second, clock)...)
	res, err := c.Analyze(t.Context(), 20)
	require.NoError(t, err)
	assert.False(t, res.Cached)
	assert.True(t, res.Chart.Analyzed)
	assert.Equal(t, 3, res.Response.Attempts, "two busy answers, then the analysis")
	assert.Equal(t, 2+3, analysisPosts(srv))
	waits := clock.Waits()
	require.Len(t, waits, 2)
	for i, d := range waits {
		assert.GreaterOrEqual(t, d, 125*time.Millisecond<<i, "wait %d backs off from 250 ms, drawn in its upper half", i)
		assert.LessOrEqual(t, d, 250*time.Millisecond<<i, "wait %d", i)
	}
	assert.True(t, srv.Analyzed(20))
}

func TestAnalyzeBusyBeyondBoundIsTyped(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	release, wait := fillSlots(t, srv, newClient(t, srv.URL))
	defer wait()
	defer release()

	clock := sdktest.NewClock(epoch)
	c := newClient(t, srv.URL, waitFor(300*time.Millisecond, clock)...)
	res, err := c.Analyze(t.Context(), 20)
	assert.Nil(t, res)
	require.ErrorIs(t, err, chartdiff.ErrAnalysisBusy)
	require.ErrorIs(t, err, sdk.ErrWaitTimeout)
	we := testkit.As[*sdk.WaitError](t, err)
	assert.Equal(t, "Analyze", we.Operation)
	assert.Equal(t, "chart 20", we.Subject)
	ae := testkit.APIError(t, err)
	assert.Same(t, we.Last, error(ae), "the last busy answer")
	assert.Equal(t, http.StatusServiceUnavailable, ae.StatusCode)
	assert.GreaterOrEqual(t, ae.Attempts, 2, "the client retried within the bound")
	assert.Equal(t, we.Attempts, ae.Attempts)
	assert.Contains(t, err.Error(), "attempts")
	assert.Equal(t, 2+ae.Attempts, analysisPosts(srv))
	assert.LessOrEqual(t, clock.Now().Sub(epoch), 300*time.Millisecond, "no wait passes the bound")

	once := newClient(t, srv.URL, chartdiff.WithWait(sdk.WaitPolicy{MaxAttempts: 1}))
	n := analysisPosts(srv)
	_, err = once.Analyze(t.Context(), 20)
	require.ErrorIs(t, err, chartdiff.ErrAnalysisBusy)
	require.ErrorIs(t, err, sdk.ErrWaitAttempts)
	assert.Equal(t, 1, testkit.APIError(t, err).Attempts)
	assert.Equal(t, n+1, analysisPosts(srv), "MaxAttempts 1 sends one request")
}

func TestAnalyzeHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithBusyRetryAfter(60)))
	release, wait := fillSlots(t, srv, newClient(t, srv.URL))
	defer wait()
	defer release()

	// A retry-after of 60 s does not fit a 5 s bound: the busy error comes back at once.
	clock := sdktest.NewClock(epoch)
	c := newClient(t, srv.URL, waitFor(5*time.Second, clock)...)
	_, err := c.Analyze(t.Context(), 20)
	require.ErrorIs(t, err, chartdiff.ErrAnalysisBusy)
	require.ErrorIs(t, err, sdk.ErrWaitTimeout)
	ae := testkit.APIError(t, err)
	assert.Equal(t, 1, ae.Attempts)
	assert.Equal(t, time.Minute, ae.RetryAfter)
	assert.Empty(t, clock.Waits(), "no wait was started")
}

func TestAnalyzeWaitsTheRetryAfter(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithBusyRetryAfter(1)))
	release, wait := fillSlots(t, srv, newClient(t, srv.URL))

	clock := &stepClock{Clock: sdktest.NewClock(epoch), onWait: func(int) {
		release()
		wait()
	}}
	c := newClient(t, srv.URL, waitFor(10*time.Second, clock)...)
	res, err := c.Analyze(t.Context(), 20)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Response.Attempts, "one busy answer, one wait of retry-after, one success")
	assert.Equal(t, []time.Duration{time.Second}, clock.Waits(), "the client waited the retry-after")
}

func TestAnalyzeContextEndsWhileWaiting(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	release, wait := fillSlots(t, srv, newClient(t, srv.URL))
	defer wait()
	defer release()

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := newClient(t, srv.URL, waitFor(time.Minute, &stepClock{Clock: sdktest.NewClock(epoch), onWait: func(int) { cancel() }})...)
	_, err := c.Analyze(ctx, 20)
	require.ErrorIs(t, err, context.Canceled)
	testkit.As[*sdk.WaitError](t, err)
	assert.ErrorIs(t, err, chartdiff.ErrAnalysisBusy, "the error keeps the busy answer it was waiting after")
	assert.Equal(t, 2+1, analysisPosts(srv), "no attempt after the context ended")
}

func TestAnalyzeFailures(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	_, err := c.Analyze(t.Context(), chartdifftest.ChartTooLarge)
	require.ErrorIs(t, err, chartdiff.ErrAnalysisFailed)
	assert.Equal(t, http.StatusBadGateway, testkit.APIError(t, err).StatusCode)
	assert.Equal(t, 1, analysisPosts(srv), "analysis_failed is not retried")
	assert.False(t, srv.Analyzed(chartdifftest.ChartTooLarge))

	_, err = c.Analyze(t.Context(), 555555)
	require.ErrorIs(t, err, chartdiff.ErrAnalysisFailed, "a chart the upstream does not have")

	srv.SetCacheDown(true)
	_, err = c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.ErrorIs(t, err, chartdiff.ErrCacheUnavailable)
	assert.Equal(t, http.StatusBadGateway, testkit.APIError(t, err).StatusCode)
}

func TestAnalyzeDailyQuota(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithClock(clock)))
	key := srv.IssueKey(srv.AccountToken())
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(key))

	for i := range 200 {
		res, err := c.Analyze(t.Context(), chartdifftest.ProlificFirstChart+i)
		require.NoError(t, err, "analysis %d", i+1)
		require.False(t, res.Cached)
	}
	_, err := c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.ErrorIs(t, err, chartdiff.ErrRateLimited)
	assert.Equal(t, "rate_limit_exceeded", testkit.APIError(t, err).Code)
	var rl *sdk.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, http.StatusTooManyRequests, rl.StatusCode)
	assert.Greater(t, rl.RetryAfter, time.Duration(0))
	assert.LessOrEqual(t, rl.RetryAfter, 24*time.Hour)
	assert.Equal(t, 1, rl.Attempts, "a quota answer is not retried by Analyze")

	cached, err := c.Analyze(t.Context(), chartdifftest.ProlificFirstChart)
	require.NoError(t, err, "a cached answer runs no engine and needs no quota")
	assert.True(t, cached.Cached)

	clock.Advance(24 * time.Hour)
	res, err := c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err, "a new day")
	assert.False(t, res.Cached)
}

func TestAnalyzeNeedsScope(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(srv.IssueKey(srv.AccountToken(), "charts:read")))

	_, err := c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.ErrorIs(t, err, chartdiff.ErrInsufficientScope)
	assert.Equal(t, http.StatusForbidden, testkit.APIError(t, err).StatusCode)
	assert.False(t, srv.Analyzed(chartdifftest.ChartNotAnalyzed))
}

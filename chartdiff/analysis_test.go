package chartdiff_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
)

func TestAnalyzeRunsThenServesFromCache(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	key := srv.IssueKey(srv.AccountToken())
	c := newClient(t, srv, chartdiff.WithAPIKey(key))

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
	assert.Equal(t, key, post.Header.Get("x-phm-key"))

	after, err := c.Chart(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err)
	assert.True(t, after.Analyzed, "the result is in the shared cache")
	assert.Equal(t, *res.Chart.RefConst, *after.RefConst)

	again, err := c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err)
	assert.True(t, again.Cached)
	assert.Equal(t, *res.Chart.RefConst, *again.Chart.RefConst)

	anon := newClient(t, srv)
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

func TestAnalyzeWaitsWhileBusy(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv, chartdiff.WithAnalyzeWait(20*time.Second))
	release, wait := fillSlots(t, srv, c)

	type result struct {
		res *chartdiff.Analysis
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := c.Analyze(t.Context(), 20)
		done <- result{res, err}
	}()
	// Two busy answers prove the client waits and retries.
	require.Eventually(t, func() bool { return srv.CountRequests(http.MethodPost, "/api/v1/analyses") >= 4 }, 10*time.Second, time.Millisecond)
	release()
	r := <-done
	wait()
	require.NoError(t, r.err)
	assert.False(t, r.res.Cached)
	assert.True(t, r.res.Chart.Analyzed)
	assert.GreaterOrEqual(t, r.res.Response.Attempts, 2)
	assert.True(t, srv.Analyzed(20))
}

func TestAnalyzeBusyBeyondBoundIsTyped(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	holder := newClient(t, srv)
	release, wait := fillSlots(t, srv, holder)
	defer wait()
	defer release()

	c := newClient(t, srv, chartdiff.WithAnalyzeWait(300*time.Millisecond))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a slot must not be taken
	defer cancel()
	res, err := c.Analyze(ctx, 20)
	assert.Nil(t, res)
	require.ErrorIs(t, err, chartdiff.ErrAnalysisBusy)
	ae := apiError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, ae.StatusCode)
	assert.GreaterOrEqual(t, ae.Attempts, 2, "the client retried within the bound")
	assert.Contains(t, err.Error(), "attempts")

	off := newClient(t, srv, chartdiff.WithAnalyzeWait(0))
	n := srv.CountRequests(http.MethodPost, "/api/v1/analyses")
	_, err = off.Analyze(ctx, 20)
	require.ErrorIs(t, err, chartdiff.ErrAnalysisBusy)
	assert.Equal(t, 1, apiError(t, err).Attempts)
	assert.Equal(t, n+1, srv.CountRequests(http.MethodPost, "/api/v1/analyses"), "WithAnalyzeWait(0) sends one request")
}

func TestAnalyzeHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	srv := startFake(t, chartdifftest.WithBusyRetryAfter(60))
	holder := newClient(t, srv)
	release, wait := fillSlots(t, srv, holder)
	defer wait()
	defer release()

	// A retry-after of 60 s does not fit a 5 s bound: the busy error comes back at once.
	c := newClient(t, srv, chartdiff.WithAnalyzeWait(5*time.Second))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a slot must not be taken
	defer cancel()
	_, err := c.Analyze(ctx, 20)
	require.ErrorIs(t, err, chartdiff.ErrAnalysisBusy)
	ae := apiError(t, err)
	assert.Equal(t, 1, ae.Attempts)
	assert.Equal(t, time.Minute, ae.RetryAfter)
}

func TestAnalyzeWaitsTheRetryAfter(t *testing.T) {
	t.Parallel()
	srv := startFake(t, chartdifftest.WithBusyRetryAfter(1))
	holder := newClient(t, srv)
	release, wait := fillSlots(t, srv, holder)

	c := newClient(t, srv, chartdiff.WithAnalyzeWait(10*time.Second))
	done := make(chan error, 1)
	var attempts int
	start := time.Now()
	go func() {
		res, err := c.Analyze(t.Context(), 20)
		if err == nil {
			attempts = res.Response.Attempts
		}
		done <- err
	}()
	require.Eventually(t, func() bool { return srv.CountRequests(http.MethodPost, "/api/v1/analyses") >= 3 }, 5*time.Second, time.Millisecond)
	release()
	require.NoError(t, <-done)
	wait()
	assert.Equal(t, 2, attempts, "one busy answer, one wait of retry-after, one success")
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "the client waited the retry-after")
}

func TestAnalyzeContextEndsWhileWaiting(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	holder := newClient(t, srv)
	release, wait := fillSlots(t, srv, holder)
	defer wait()
	defer release()

	c := newClient(t, srv, chartdiff.WithAnalyzeWait(time.Minute))
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err := c.Analyze(ctx, 20)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestAnalyzeFailures(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)

	_, err := c.Analyze(t.Context(), chartdifftest.ChartTooLarge)
	require.ErrorIs(t, err, chartdiff.ErrAnalysisFailed)
	assert.Equal(t, http.StatusBadGateway, apiError(t, err).StatusCode)
	assert.Equal(t, 1, srv.CountRequests(http.MethodPost, "/api/v1/analyses"), "analysis_failed is not retried")
	assert.False(t, srv.Analyzed(chartdifftest.ChartTooLarge))

	_, err = c.Analyze(t.Context(), 555555)
	require.ErrorIs(t, err, chartdiff.ErrAnalysisFailed, "a chart the upstream does not have")

	srv.SetCacheDown(true)
	_, err = c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.ErrorIs(t, err, chartdiff.ErrCacheUnavailable)
	assert.Equal(t, http.StatusBadGateway, apiError(t, err).StatusCode)
}

func TestAnalyzeDailyQuota(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	key := srv.IssueKey(srv.AccountToken())
	c := newClient(t, srv, chartdiff.WithAPIKey(key))

	for i := range 200 {
		res, err := c.Analyze(t.Context(), chartdifftest.ProlificFirstChart+i)
		require.NoError(t, err, "analysis %d", i+1)
		require.False(t, res.Cached)
	}
	_, err := c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.ErrorIs(t, err, chartdiff.ErrRateLimitExceeded)
	var rl *chartdiff.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, http.StatusTooManyRequests, rl.StatusCode)
	assert.Greater(t, rl.RetryAfter, time.Duration(0))
	assert.LessOrEqual(t, rl.RetryAfter, 24*time.Hour)
	assert.Equal(t, 1, rl.Attempts, "a quota answer is not retried by Analyze")

	cached, err := c.Analyze(t.Context(), chartdifftest.ProlificFirstChart)
	require.NoError(t, err, "a cached answer runs no engine and needs no quota")
	assert.True(t, cached.Cached)

	srv.Advance(24 * time.Hour)
	res, err := c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err, "a new day")
	assert.False(t, res.Cached)
}

func TestAnalyzeNeedsScope(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv, chartdiff.WithAPIKey(srv.IssueKey(srv.AccountToken(), "charts:read")))

	_, err := c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.ErrorIs(t, err, chartdiff.ErrInsufficientScope)
	assert.Equal(t, http.StatusForbidden, apiError(t, err).StatusCode)
	assert.False(t, srv.Analyzed(chartdifftest.ChartNotAnalyzed))
}

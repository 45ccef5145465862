package productdata_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/sdktest"
)

// epoch is the fake clock's start: 23:59:30 UTC, so that a review collection started then
// belongs to the next day in the service's time zone (UTC+8).
var epoch = time.Date(2026, 3, 1, 23, 59, 30, 0, time.UTC)

// asyncService is a test server whose real-time fetch and review collection take a set time
// on a fake clock, answering as the research describes: ProductRealtimeRequest with code 99
// while fetching, status queries with "<ASIN>:<status>:<finish time>" strings.
type asyncService struct {
	*api
	clock    *sdktest.Clock
	duration time.Duration
	// outcome is the status a finished task reports (1 done, 3 failed, 4 no credit, 5 no ASIN).
	outcome int

	mu      sync.Mutex
	started time.Time
	polls   int
	noticed time.Time // when a status query first answered the final status
}

// newAsyncService starts a server whose tasks take duration and end in outcome.
func newAsyncService(t *testing.T, duration time.Duration, outcome int) *asyncService {
	t.Helper()
	s := &asyncService{clock: sdktest.NewClock(epoch), duration: duration, outcome: outcome}
	s.api = newAPI(t, s.clock, func(r received) reply { return s.answer(t, r) })
	return s
}

// answer serves one request.
func (s *asyncService) answer(t *testing.T, r received) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	finished := !s.started.IsZero() && !now.Before(s.started.Add(s.duration))
	state := func(asin string) string {
		if !finished {
			return asin + ":0:--"
		}
		if s.noticed.IsZero() {
			s.noticed = now
		}
		if s.outcome == 1 {
			return fmt.Sprintf("%s:1:%s", asin, s.started.Add(s.duration).In(time.FixedZone("CST", 8*3600)).Format("2006-01-02 15:04:05"))
		}
		return fmt.Sprintf("%s:%d:--", asin, s.outcome)
	}
	switch r.Endpoint {
	case "ProductRealtimeRequest":
		s.started = now
		return fail(99, "collecting, about 5 minutes")
	case "ProductReviewsCollection":
		s.started = now
		return ok(t, "88231", 6400, 0)
	case "ProductRealtimeRequestStatusQuery":
		s.polls++
		asins := r.Body["ASINs"].([]any)
		return ok(t, []string{"B0OTHER000:1:2026-03-01 10:00:00", state(asins[0].(string))}, 6400, 0)
	case "ProductReviewsCollectionStatusQuery":
		s.polls++
		if r.Body["QueryDate"] != "2026-03-02" {
			return ok(t, []string{}, 6400, 0) // tasks are listed under their creation date in UTC+8
		}
		return ok(t, []string{state(r.Body["ASIN"].(string))}, 6400, 0)
	case "ProductRequest":
		return ok(t, product("B0CVM8TXHP", 3999, 9300), 6399, 1)
	}
	return fail(401, "endpoint not open")
}

// figures returns the status queries made and how long after the task finished the client
// noticed, on the fake clock.
func (s *asyncService) figures() (polls int, late time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polls, s.noticed.Sub(s.started.Add(s.duration))
}

// newAsyncClient returns a client of s paced and timed on its fake clock, with the default
// pace of 200 requests a minute and the default retries; opts come after.
func newAsyncClient(t *testing.T, s *asyncService, opts ...productdata.Option) *productdata.Client {
	t.Helper()
	defaults := []productdata.Option{productdata.WithBaseURL(s.URL), productdata.WithAccountKey(testKey), productdata.WithClock(s.clock)}
	return testkit.New(t, productdata.New, append(defaults, opts...)...)
}

// allowedLateness is the bound on noticing a task that took d: half of d, or 2 s,
// whichever is larger.
func allowedLateness(d time.Duration) time.Duration { return max(d/2, 2*time.Second) }

// TestPollingScheduleFindsCompletionWithFewPolls runs the real-time refresh over tasks that
// finish at 1, 5, 20, 45 and 85 s on a fake clock, with the default options: each must be
// noticed within half its duration (or 2 s) with at most 11 status queries.
func TestPollingScheduleFindsCompletionWithFewPolls(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{1 * time.Second, 5 * time.Second, 20 * time.Second, 45 * time.Second, 85 * time.Second} {
		s := newAsyncService(t, d, 1)
		c := newAsyncClient(t, s)
		p, err := c.RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP", Update: 24})
		require.NoError(t, err, "task of %s", d)
		assert.Equal(t, 3999, p.SalesPrice)
		polls, late := s.figures()
		t.Logf("task of %2.0f s: %2d status queries, noticed %5.2f s after it finished (allowed %5.2f s)",
			d.Seconds(), polls, late.Seconds(), allowedLateness(d).Seconds())
		assert.LessOrEqual(t, polls, 11, "task of %s", d)
		assert.GreaterOrEqual(t, late, time.Duration(0))
		assert.LessOrEqual(t, late, allowedLateness(d), "task of %s", d)
		assert.Equal(t, int64(polls+2), c.RequestUnits().Sent, "the start, the polls and the final ProductRequest")
	}
}

// TestPollingScheduleBoundHoldsForEveryDuration sweeps task durations from 0.5 s to 89.5 s:
// the bound is a property of the schedule, not of the five durations above.
func TestPollingScheduleBoundHoldsForEveryDuration(t *testing.T) {
	t.Parallel()
	worst := 0
	for d := 500 * time.Millisecond; d < 90*time.Second; d += 500 * time.Millisecond {
		s := newAsyncService(t, d, 1)
		_, err := newAsyncClient(t, s).RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
		require.NoError(t, err, "task of %s", d)
		polls, late := s.figures()
		worst = max(worst, polls)
		require.LessOrEqual(t, late, allowedLateness(d), "task of %s", d)
		require.LessOrEqual(t, polls, 11, "task of %s", d)
	}
	t.Logf("at most %d status queries for any task under 90 s", worst)
}

func TestRefreshProductSendsTheDocumentedRequests(t *testing.T) {
	t.Parallel()
	s := newAsyncService(t, 3*time.Second, 1)
	var progress []sdk.WaitProgress
	c := newAsyncClient(t, s, productdata.WithWait(sdk.WaitPolicy{Progress: func(p sdk.WaitProgress) { progress = append(progress, p) }}))
	_, err := c.RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP", Update: 48})
	require.NoError(t, err)
	reqs := s.requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, map[string]any{"domain": 1.0, "ASIN": "B0CVM8TXHP", "Update": 48.0}, reqs[0].Body)
	assert.Equal(t, "/api/ProductRealtimeRequestStatusQuery", reqs[1].Path)
	assert.Equal(t, map[string]any{"domain": 1.0, "ASINs": []any{"B0CVM8TXHP"}}, reqs[1].Body)
	assert.Equal(t, "/api/ProductRequest", reqs[3].Path)
	assert.Equal(t, []time.Duration{2 * time.Second, 2 * time.Second}, []time.Duration{progress[0].Wait, progress[1].Wait})
	assert.Equal(t, 1, progress[0].Attempt, "the first wait follows the starting request")
	assert.Equal(t, 2, progress[1].Attempt)
	assert.Equal(t, "productdata", progress[1].Service)
	assert.Equal(t, "RefreshProduct", progress[1].Operation)
	assert.Equal(t, "B0CVM8TXHP", progress[1].Subject)
}

func TestRefreshProductOfAFreshProductIsOneRequest(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, product("B0CVM8TXHP", 3999, 9300), 500, 0) })
	c := newClient(t, srv)
	p, err := c.RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
	require.NoError(t, err)
	assert.Equal(t, 9300, p.ListingSalesVolumeOfMonth)
	assert.Equal(t, 0, *p.Units.Consumed)
	require.Len(t, srv.requests(), 1, "the data came back with the request: no poll and no ProductRequest")
	assert.Equal(t, map[string]any{"domain": 1.0, "ASIN": "B0CVM8TXHP"}, srv.requests()[0].Body, "Update 0 is not sent")

	// Code 0 without the product: it is read with ProductRequest.
	bare := newAPI(t, nil, func(r received) reply {
		if r.Endpoint == "ProductRequest" {
			return ok(t, product("B0CVM8TXHP", 3999, 9300), 500, 1)
		}
		return ok(t, nil, 500, 0)
	})
	p, err = newClient(t, bare).RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
	require.NoError(t, err)
	assert.Equal(t, 1, *p.Units.Consumed)
	assert.Len(t, bare.requests(), 2)
}

func TestRefreshProductReportsAFailedTask(t *testing.T) {
	t.Parallel()
	for outcome, sentinel := range map[int]error{3: productdata.ErrTaskFailed, 4: productdata.ErrQuotaExhausted, 5: productdata.ErrNotFound} {
		s := newAsyncService(t, 5*time.Second, outcome)
		_, err := newAsyncClient(t, s).RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
		require.ErrorIs(t, err, sentinel)
		var te *productdata.TaskError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, productdata.TaskStatus(outcome), te.Status)
		assert.Equal(t, "B0CVM8TXHP", te.ASIN)
		polls, _ := s.figures()
		assert.Equal(t, polls, te.Polls)
		for _, r := range s.requests() {
			assert.NotEqual(t, "ProductRequest", r.Endpoint, "a failed task is not read")
		}
	}
}

func TestRefreshProductWaitEndsAtTheTimeoutAndThePollCap(t *testing.T) {
	t.Parallel()
	s := newAsyncService(t, 10*time.Minute, 1)
	_, err := newAsyncClient(t, s).RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
	require.ErrorIs(t, err, productdata.ErrTaskRunning)
	require.ErrorIs(t, err, sdk.ErrWaitTimeout)
	we := testkit.As[*sdk.WaitError](t, err)
	polls, _ := s.figures()
	assert.Equal(t, polls+1, we.Attempts, "the starting request and the polls")
	assert.LessOrEqual(t, polls, 11)
	assert.LessOrEqual(t, we.Elapsed, 90*time.Second)
	assert.Equal(t, epoch.Add(90*time.Second), s.requests()[len(s.requests())-1].At, "the last poll is at the timeout")

	s = newAsyncService(t, 10*time.Minute, 1)
	_, err = newAsyncClient(t, s, productdata.WithWait(sdk.WaitPolicy{MaxAttempts: 4, Timeout: 10 * time.Minute})).
		RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
	require.ErrorIs(t, err, sdk.ErrWaitAttempts)
	we = testkit.As[*sdk.WaitError](t, err)
	assert.Equal(t, 4, we.Attempts)
	polls, _ = s.figures()
	assert.Equal(t, 3, polls)
}

func TestRefreshProductHonoursTheContext(t *testing.T) {
	t.Parallel()
	s := newAsyncService(t, 10*time.Minute, 1)
	ctx, cancel := context.WithCancel(t.Context())
	c := newAsyncClient(t, s, productdata.WithWait(sdk.WaitPolicy{Progress: func(p sdk.WaitProgress) {
		if p.Attempt == 3 { // the starting request and two polls
			cancel()
		}
	}}))
	_, err := c.RefreshProduct(ctx, productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, productdata.ErrTaskRunning)
	polls, _ := s.figures()
	assert.Equal(t, 2, polls)
}

func TestWaitPolicyAndParamsAreValidated(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, nil, 1, 1) })
	c := newClient(t, srv)
	for _, w := range []sdk.WaitPolicy{
		{MinDelay: -1}, {MaxDelay: -1}, {Timeout: -1}, {MaxAttempts: -1}, {MinDelay: 5 * time.Second, MaxDelay: time.Second},
	} {
		_, err := productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(testKey), productdata.WithWait(w))
		testkit.ValidationError(t, err)
	}
	for _, q := range []*productdata.RefreshProductParams{{ASIN: "B0CVM8TXHP", Update: 121}, {ASIN: "B0CVM8TXHP", Update: -1}, {ASIN: "x"}} {
		_, err := c.RefreshProduct(t.Context(), productdata.AmazonUS, q)
		testkit.ValidationError(t, err)
	}
	assert.Empty(t, srv.requests())
}

func TestPollingWaitsThroughPerMinuteLimitsOfStatusQueries(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	var mu sync.Mutex
	polls := 0
	srv := newAPI(t, clock, func(r received) reply {
		mu.Lock()
		defer mu.Unlock()
		switch r.Endpoint {
		case "ProductRealtimeRequest":
			return fail(99, "collecting")
		case "ProductRealtimeRequestStatusQuery":
			polls++
			switch polls {
			case 1:
				return fail(501, "per-minute limit")
			case 2:
				return fail(11, "no task yet")
			}
			return ok(t, []string{"B0CVM8TXHP:1:2026-03-02 08:00:10"}, 10, 0)
		}
		return ok(t, product("B0CVM8TXHP", 1, 1), 9, 1)
	})
	var seen []error
	c := newClient(t, srv, productdata.WithClock(clock),
		productdata.WithWait(sdk.WaitPolicy{Progress: func(p sdk.WaitProgress) { seen = append(seen, p.Err) }}))
	_, err := c.RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
	require.NoError(t, err)
	require.Len(t, seen, 3)
	assert.Nil(t, seen[0])
	assert.ErrorIs(t, seen[1], productdata.ErrRateLimited, "the progress callback sees why the poll failed")
	assert.Nil(t, seen[2], "code 11, not listed yet, is only 'not yet'")
}

func TestPollingStopsOnAFatalStatusError(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		if r.Endpoint == "ProductRealtimeRequest" {
			return fail(99, "collecting")
		}
		return fail(401, "endpoint not open")
	})
	c := newClient(t, srv, productdata.WithClock(sdktest.NewClock(epoch)))
	_, err := c.RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
	require.ErrorIs(t, err, productdata.ErrUnauthorized)
	assert.Len(t, srv.requests(), 2)
}

func TestCollectReviewsAndReadThem(t *testing.T) {
	t.Parallel()
	s := newAsyncService(t, 40*time.Second, 1)
	c := newAsyncClient(t, s)
	task, err := c.CollectReviews(t.Context(), productdata.AmazonUS, &productdata.CollectReviewsParams{
		ASIN: "B0CVM8TXHP", Pages: 2, MostRecent: true, Stars: []int{1, 2, productdata.StarNegative}})
	require.NoError(t, err)
	assert.Equal(t, "88231", task.TaskID)
	assert.Equal(t, "2026-03-02", task.QueryDate, "the service's date in UTC+8")
	assert.Equal(t, "2026-03-02 08:00:10", task.FinishedAt)
	polls, late := s.figures()
	assert.Equal(t, polls, task.Polls)
	assert.LessOrEqual(t, late, allowedLateness(40*time.Second))
	assert.GreaterOrEqual(t, task.Elapsed, 40*time.Second)
	reqs := s.requests()
	assert.Equal(t, map[string]any{"domain": 1.0, "ASIN": "B0CVM8TXHP", "Page": 2.0, "CollectType": 1.0, "Star": "1,2,10"}, reqs[0].Body)
	assert.Equal(t, map[string]any{"domain": 1.0, "QueryDate": "2026-03-02", "ASIN": "B0CVM8TXHP"}, reqs[1].Body)

	for _, q := range []*productdata.CollectReviewsParams{
		{ASIN: "B0CVM8TXHP", Pages: 11}, {ASIN: "B0CVM8TXHP", Stars: []int{6}}, {ASIN: "B0CVM8TXHP", Stars: []int{5, 5}}, {ASIN: "nope"},
	} {
		_, err := c.CollectReviews(t.Context(), productdata.AmazonUS, q)
		testkit.ValidationError(t, err)
	}
}

func TestCollectReviewsMatchesTaskObjectsByID(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	var mu sync.Mutex
	polls := 0
	srv := newAPI(t, clock, func(r received) reply {
		mu.Lock()
		defer mu.Unlock()
		if r.Endpoint == "ProductReviewsCollection" {
			return ok(t, 5521, 10, 0)
		}
		polls++
		if polls < 3 {
			return ok(t, []any{map[string]any{"taskId": 5520, "status": 0}, map[string]any{"taskId": 5521, "status": 99}}, 10, 0)
		}
		return ok(t, []any{map[string]any{"taskId": 5520, "status": 98}, map[string]any{"taskId": 5521, "status": 0}}, 10, 0)
	})
	task, err := newClient(t, srv, productdata.WithClock(clock)).CollectReviews(t.Context(), productdata.AmazonUS,
		&productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP"})
	require.NoError(t, err, "the other task's states do not count")
	assert.Equal(t, "5521", task.TaskID)
	assert.Equal(t, 3, task.Polls)
}

func TestCollectReviewsRefusedByTheService(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return fail(12, "collected within the last two hours") })
	_, err := newClient(t, srv).CollectReviews(t.Context(), productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP"})
	require.ErrorIs(t, err, productdata.ErrAlreadyExists)
	assert.Len(t, srv.requests(), 1)

	zero := newAPI(t, nil, func(r received) reply { return ok(t, 0, 10, 0) })
	_, err = newClient(t, zero).CollectReviews(t.Context(), productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP"})
	require.ErrorIs(t, err, productdata.ErrTaskFailed, "task id 0: no task was created")
	assert.Len(t, zero.requests(), 1)
}

func TestReviewsPagesAndSpellings(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		switch pageNumber(r, "Page") {
		case 1:
			return ok(t, []any{
				map[string]any{"ReviewId": "R1", "Title": "Great", "Content": "Charges fast", "Star": 5, "IsVerified": true,
					"ReviewDate": "2024-11-01", "HelpfulCount": 3, "ImageUrls": []string{"https://img/1.jpg"}},
				map[string]any{"Id": "R2", "Review": "Broke", "Rating": 1, "Date": "2024-11-02"},
			}, 20, 1)
		case 2:
			return ok(t, map[string]any{"Reviews": []any{map[string]any{"ReviewId": "R3", "Star": "4"}}}, 19, 1)
		}
		return fail(11, "No data available")
	})
	c := newClient(t, srv)
	var got []productdata.Review
	for r, err := range c.AllReviews(t.Context(), productdata.AmazonUS, &productdata.ReviewsParams{ASIN: "B0CVM8TXHP", Star: productdata.StarPositive}) {
		require.NoError(t, err)
		got = append(got, r)
	}
	require.Len(t, got, 3)
	assert.Equal(t, "R1", got[0].ReviewId)
	assert.Equal(t, 5, *got[0].Star)
	assert.True(t, *got[0].IsVerified)
	assert.Equal(t, []string{"https://img/1.jpg"}, got[0].ImageUrls)
	assert.Equal(t, "R2", got[1].ReviewId)
	assert.Equal(t, "Broke", got[1].Content)
	assert.Equal(t, 1, *got[1].Star)
	assert.Equal(t, "2024-11-02", got[1].ReviewDate)
	assert.Nil(t, got[2].Star, "a star sent as text is absent, never 0")
	assert.Contains(t, string(got[2].Raw), `"Star":"4"`)
	assert.Equal(t, map[string]any{"domain": 1.0, "ASIN": "B0CVM8TXHP", "Page": 1.0, "Star": 11.0}, srv.requests()[0].Body)
	assert.Len(t, srv.requests(), 3)

	var errs []error
	for _, err := range c.AllReviews(t.Context(), productdata.AmazonUS, &productdata.ReviewsParams{ASIN: "B0CVM8TXHP", Star: 7}) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.Equal(t, "Star", testkit.ValidationError(t, errs[0]).Field)
}

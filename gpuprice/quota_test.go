package gpuprice_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

// untilMidnight is the time from t0 to the next midnight UTC, when the daily quotas reset.
const untilMidnight = 8*time.Hour + 30*time.Minute

// quotaClient returns a fake and a client of it with the default retry policy, both on one
// fake clock standing at t0.
func quotaClient(t *testing.T, opts ...gpupricetest.Option) (*gpupricetest.Server, *gpuprice.Client) {
	t.Helper()
	clock := sdktest.NewClock(t0)
	srv := startFake(t, append(opts, gpupricetest.WithClock(clock))...)
	return srv, testkit.New(t, gpuprice.New, gpuprice.WithBaseURL(srv.URL), gpuprice.WithClock(clock))
}

func TestQuotaIsARateLimitErrorAndIsNotRetried(t *testing.T) {
	t.Parallel()
	srv, c := quotaClient(t)

	for i := range gpupricetest.DefaultFreeQuota {
		p, err := c.Cheapest(t.Context(), "H100")
		require.NoError(t, err, "request %d", i+1)
		require.NotNil(t, p.Response.RateLimit)
		assert.Equal(t, gpupricetest.DefaultFreeQuota-i-1, *p.Response.RateLimit.Remaining)
	}
	began := time.Now()
	_, err := c.FuturesIndex(t.Context())
	require.ErrorIs(t, err, gpuprice.ErrRateLimited)
	rl := testkit.As[*sdk.RateLimitError](t, err)
	assert.Less(t, time.Since(began), 5*time.Second, "returned at once, not retried")
	assert.Equal(t, 1, rl.Attempts)
	assert.Equal(t, 1, srv.RequestCount(http.MethodGet, "/v1/futures/index"))
	assert.Equal(t, http.StatusTooManyRequests, rl.StatusCode)
	assert.Equal(t, "rate_limit_exceeded", rl.Code)
	require.NotNil(t, rl.RateLimit)
	require.NotNil(t, rl.RateLimit.Reset)
	assert.Equal(t, untilMidnight, *rl.RateLimit.Reset)
	assert.Equal(t, untilMidnight, rl.RetryAfter)
}

func TestQuotaWithoutHeadersResetsAtMidnightUTC(t *testing.T) {
	t.Parallel()
	_, c := quotaClient(t, gpupricetest.WithoutRateLimitHeaders(), gpupricetest.WithFreeQuota(1))

	g, err := c.GPUs(t.Context(), nil)
	require.NoError(t, err)
	assert.Nil(t, g.Response.RateLimit, "no headers, no quota state")
	_, err = c.GPUs(t.Context(), nil)
	rl := testkit.As[*sdk.RateLimitError](t, err)
	assert.Equal(t, 1, rl.Attempts, "not retried before the reset")
	require.NotNil(t, rl.RateLimit)
	require.NotNil(t, rl.RateLimit.Reset)
	assert.Equal(t, untilMidnight, *rl.RateLimit.Reset, "on the client's clock")
}

func TestQuotaResetFromHeadersWins(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(time.Hour).Unix()
	srv := serving(t, http.MethodGet, "/v1/gpus", http.StatusTooManyRequests, http.Header{
		"X-Ratelimit-Limit": {"10"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(reset, 10)},
	}, `{"error":{"code":"rate_limit_exceeded","message":"daily quota"}}`)
	c := testkit.New(t, gpuprice.New, gpuprice.WithBaseURL(srv.URL))

	_, err := c.GPUs(t.Context(), nil)
	rl := testkit.As[*sdk.RateLimitError](t, err)
	require.NotNil(t, rl.RateLimit.Reset)
	assert.InDelta(t, time.Hour.Seconds(), rl.RateLimit.Reset.Seconds(), 5)
	assert.Equal(t, 10, *rl.RateLimit.Limit)
	assert.Equal(t, 0, *rl.RateLimit.Remaining)
	assert.Len(t, srv.Requests(), 1, "a reset an hour away is not waited for")
}

func TestQuotaErrorInAnotherStatusIsARateLimitError(t *testing.T) {
	t.Parallel()
	resetAt := time.Now().Add(3 * time.Hour).UTC().Truncate(time.Second)
	srv := serving(t, http.MethodGet, "/v1/futures/index", http.StatusForbidden, nil,
		`{"error":{"code":"quota_exceeded","message":"10 requests a day","reset_at":"`+resetAt.Format(time.RFC3339)+`"}}`)
	c := testkit.New(t, gpuprice.New, gpuprice.WithBaseURL(srv.URL))

	_, err := c.FuturesIndex(t.Context())
	require.ErrorIs(t, err, gpuprice.ErrRateLimited)
	rl := testkit.As[*sdk.RateLimitError](t, err)
	assert.Equal(t, http.StatusForbidden, rl.StatusCode)
	require.NotNil(t, rl.RateLimit.Reset)
	assert.InDelta(t, (3 * time.Hour).Seconds(), rl.RateLimit.Reset.Seconds(), 5, "the body's reset_at")
}

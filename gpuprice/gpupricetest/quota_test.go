package gpupricetest_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/sdktest"
)

func TestFreeQuotaResetsAtTheNextUTCMidnight(t *testing.T) {
	t.Parallel()
	evening := time.Date(2026, 3, 14, 23, 59, 0, 0, time.UTC)
	clock := sdktest.NewClock(evening)
	srv := start(t, gpupricetest.WithClock(clock))
	midnight := time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)

	for i := 1; i <= 10; i++ {
		a := get(t, srv, "/v1/gpus")
		require.Equal(t, http.StatusOK, a.Status, "request %d", i)
		assert.Equal(t, "10", a.Header.Get("X-RateLimit-Limit"))
		assert.Equal(t, strconv.Itoa(10-i), a.Header.Get("X-RateLimit-Remaining"))
		assert.Equal(t, strconv.FormatInt(midnight.Unix(), 10), a.Header.Get("X-RateLimit-Reset"), "Unix seconds")
		assert.Empty(t, a.Header.Get("Retry-After"))
	}
	a := get(t, srv, "/v1/cheapest?model=H100")
	require.Equal(t, http.StatusTooManyRequests, a.Status, "the 11th request of the day")
	assert.Equal(t, "rate_limit_exceeded", a.ErrorCode())
	assert.Contains(t, a.ErrorMessage(), "10 requests")
	e := a.JSON["error"].(map[string]any)
	assert.EqualValues(t, 10, e["daily_quota"])
	assert.Equal(t, "free", e["plan"])
	assert.Equal(t, "2026-03-15T00:00:00Z", e["reset_at"])
	assert.Equal(t, "0", a.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, "60", a.Header.Get("Retry-After"))

	clock.Advance(59 * time.Second)
	a = get(t, srv, "/v1/gpus")
	assert.Equal(t, http.StatusTooManyRequests, a.Status)
	assert.Equal(t, "1", a.Header.Get("Retry-After"))

	clock.Advance(time.Second)
	a = get(t, srv, "/v1/gpus")
	assert.Equal(t, http.StatusOK, a.Status, "a new UTC day")
	assert.Equal(t, "9", a.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, strconv.FormatInt(midnight.AddDate(0, 0, 1).Unix(), 10), a.Header.Get("X-RateLimit-Reset"))
}

func TestWithoutRateLimitHeaders(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithoutRateLimitHeaders(), gpupricetest.WithFreeQuota(2))
	headers := []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"}
	for range 2 {
		a := get(t, srv, "/v1/platforms")
		require.Equal(t, http.StatusOK, a.Status)
		for _, h := range headers {
			assert.Empty(t, a.Header.Get(h), h)
		}
	}
	a := get(t, srv, "/v1/platforms")
	require.Equal(t, http.StatusTooManyRequests, a.Status)
	assert.Equal(t, "rate_limit_exceeded", a.ErrorCode())
	for _, h := range headers {
		assert.Empty(t, a.Header.Get(h), h)
	}
	e := a.JSON["error"].(map[string]any)
	assert.EqualValues(t, 2, e["daily_quota"], "the body still names the daily quota")
	assert.NotContains(t, e, "reset_at", "nothing tells the reset time")
}

func TestProQuotaIsPerKey(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithProQuota(3), gpupricetest.WithFreeQuota(1))
	a, b := srv.IssueKey(gpupricetest.PlanPro, t0.Add(time.Hour)), srv.IssueKey(gpupricetest.PlanPro, t0.Add(time.Hour))
	for i := range 3 {
		ans := do(t, srv, http.MethodGet, "/v1/history?limit=1", "", a)
		require.Equal(t, http.StatusOK, ans.Status)
		assert.Equal(t, "3", ans.Header.Get("X-RateLimit-Limit"))
		assert.Equal(t, strconv.Itoa(2-i), ans.Header.Get("X-RateLimit-Remaining"))
	}
	ans := do(t, srv, http.MethodGet, "/v1/gpus", "", a)
	require.Equal(t, http.StatusTooManyRequests, ans.Status, "free endpoints count against the key too")
	assert.Equal(t, "pro", ans.JSON["error"].(map[string]any)["plan"])
	assert.Equal(t, http.StatusOK, do(t, srv, http.MethodGet, "/v1/gpus", "", b).Status, "another key has its own quota")
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/gpus").Status, "key-less callers have their own quota")
}

func TestKeylessCallersShareTheirAddressQuota(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithFreeQuota(2))
	free := srv.IssueKey(gpupricetest.PlanFree, t0.Add(time.Hour))
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/gpus").Status)
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/platforms").Status)
	assert.Equal(t, http.StatusTooManyRequests, get(t, srv, "/v1/futures/index").Status, "every endpoint draws on one quota per address")
	ans := do(t, srv, http.MethodGet, "/v1/gpus", "", free)
	assert.Equal(t, http.StatusOK, ans.Status, "a free key is counted apart")
	assert.Equal(t, "1", ans.Header.Get("X-RateLimit-Remaining"))
}

func TestUnlimitedKeysHaveNoQuota(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithFreeQuota(1), gpupricetest.WithProQuota(1))
	key := srv.IssueKey(gpupricetest.PlanUnlimited, t0.Add(time.Hour))
	for range 25 {
		a := do(t, srv, http.MethodGet, "/v1/gpus", "", key)
		require.Equal(t, http.StatusOK, a.Status)
		assert.Empty(t, a.Header.Get("X-RateLimit-Limit"))
	}
}

func TestRefusedRequestsAreNotCounted(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithFreeQuota(1))
	free := srv.IssueKey(gpupricetest.PlanFree, t0.Add(time.Hour))
	for range 3 {
		assert.Equal(t, http.StatusUnauthorized, do(t, srv, http.MethodGet, "/v1/gpus", "", "bad").Status)
		assert.Equal(t, http.StatusForbidden, do(t, srv, http.MethodGet, "/v1/history", "", free).Status)
		assert.Equal(t, http.StatusUnauthorized, get(t, srv, "/v1/history").Status)
	}
	assert.Equal(t, http.StatusBadRequest, get(t, srv, "/v1/gpus?key=k").Status)
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/gpus").Status)
	assert.Equal(t, http.StatusOK, do(t, srv, http.MethodGet, "/v1/gpus", "", free).Status)
}

func TestAnAnswerOfACountedEndpointCountsEvenWhenItIsA404(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithFreeQuota(2))
	a := get(t, srv, "/v1/cheapest?model=H900")
	assert.Equal(t, http.StatusNotFound, a.Status)
	assert.Equal(t, "1", a.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/gpus").Status)
	assert.Equal(t, http.StatusTooManyRequests, get(t, srv, "/v1/gpus").Status)
}

func TestKeysExpireOnTheFakeClock(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(t0)
	srv := start(t, gpupricetest.WithClock(clock), gpupricetest.WithKey("pro-key", gpupricetest.PlanPro, t0.Add(time.Hour)))
	assert.Equal(t, http.StatusOK, do(t, srv, http.MethodGet, "/v1/history?limit=1", "", "pro-key").Status)
	clock.Advance(time.Hour)
	a := do(t, srv, http.MethodGet, "/v1/history?limit=1", "", "pro-key")
	assert.Equal(t, http.StatusUnauthorized, a.Status)
	assert.Equal(t, "api_key_expired", a.ErrorCode())
	plan, expires, ok := srv.KeyPlan("pro-key")
	assert.True(t, ok)
	assert.Equal(t, gpupricetest.PlanPro, plan)
	assert.Equal(t, t0.Add(time.Hour), expires)
}

package chartdiff_test

import (
	"errors"
	"net/http"
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

// errorTable is the API description's table of error codes.
var errorTable = []struct {
	status   int
	code     string
	sentinel error
}{
	{400, "invalid_chart_id", chartdiff.ErrInvalidChartID},
	{400, "invalid_uid", chartdiff.ErrInvalidUID},
	{400, "invalid_sort_field", chartdiff.ErrInvalidSortField},
	{401, "invalid_api_key", chartdiff.ErrInvalidAPIKey},
	{401, "account_token_required", chartdiff.ErrAccountTokenRequired},
	{401, "expired_api_key", chartdiff.ErrExpiredAPIKey},
	{403, "insufficient_scope", chartdiff.ErrInsufficientScope},
	{404, "player_not_found", chartdiff.ErrPlayerNotFound},
	{404, "not_found", chartdiff.ErrNotFound},
	{409, "key_limit_reached", chartdiff.ErrKeyLimitReached},
	{429, "rate_limit_exceeded", chartdiff.ErrRateLimited},
	{502, "analysis_failed", chartdiff.ErrAnalysisFailed},
	{502, "cache_unavailable", chartdiff.ErrCacheUnavailable},
	{502, "upstream_unavailable", chartdiff.ErrUpstreamUnavailable},
	{502, "stats_unavailable", chartdiff.ErrStatsUnavailable},
	{503, "analysis_busy", chartdiff.ErrAnalysisBusy},
	{503, "rate_limit_unavailable", chartdiff.ErrRateLimitUnavailable},
}

// statusSentinels are the sentinels every answer of a status matches, whatever its code.
var statusSentinels = map[int]error{
	401: chartdiff.ErrUnauthorized, 403: chartdiff.ErrForbidden, 404: chartdiff.ErrNotFound, 409: chartdiff.ErrConflict,
	429: chartdiff.ErrRateLimited,
}

func TestEveryErrorCodeInEveryEnvelope(t *testing.T) {
	t.Parallel()
	for _, shape := range []chartdifftest.ErrorShape{chartdifftest.ErrorNested, chartdifftest.ErrorFlat, chartdifftest.ErrorString} {
		srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithErrorShape(shape)))
		c := newClient(t, srv.URL)
		for _, row := range errorTable {
			srv.InjectFaults(sdktest.Fault{Path: "/api/v1/stats", Status: row.status, Code: row.code, Message: "said " + row.code})
			stats, err := c.Stats(t.Context())
			assert.Nil(t, stats)
			require.ErrorIs(t, err, row.sentinel, "shape %d code %s", shape, row.code)
			ae := testkit.APIError(t, err)
			assert.Equal(t, row.status, ae.StatusCode)
			assert.Equal(t, row.code, ae.Code)
			assert.Equal(t, "said "+row.code, ae.Message, "the message is kept")
			assert.Equal(t, "/api/v1/stats", ae.Path)
			status, hasStatus := statusSentinels[row.status]
			if hasStatus {
				assert.ErrorIs(t, err, status, "%s matches the sentinel of its status", row.code)
			}
			for _, other := range errorTable {
				if other.code != row.code && !(hasStatus && other.sentinel == status) {
					assert.NotErrorIs(t, err, other.sentinel, "%s must not match %s", row.code, other.code)
				}
			}
		}
	}
}

func TestInvalidSortFieldCarriesAllowedList(t *testing.T) {
	t.Parallel()
	// A server of another version that no longer sorts by ps_score.
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithSortFields("chart_id", "name", "ref_const")))
	c := newClient(t, srv.URL)

	_, err := c.Charts(t.Context(), &chartdiff.ChartsParams{Sort: chartdiff.SortPSScore})
	require.ErrorIs(t, err, chartdiff.ErrInvalidSortField)
	var sf *chartdiff.SortFieldError
	require.ErrorAs(t, err, &sf)
	assert.Equal(t, []chartdiff.SortField{chartdiff.SortChartID, chartdiff.SortName, chartdiff.SortRefConst}, sf.Allowed)
	assert.Equal(t, http.StatusBadRequest, sf.StatusCode)
	assert.Equal(t, sf.APIError, testkit.APIError(t, err))

	page, err := c.Charts(t.Context(), &chartdiff.ChartsParams{Sort: sf.Allowed[2]})
	require.NoError(t, err)
	assert.NotEmpty(t, page.Charts)
}

func TestServerSideFailuresAreErrorsNotEmptyResults(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithCacheDown(true), chartdifftest.WithStatsDown(true)))
	c := newClient(t, srv.URL, chartdiff.WithRetry(sdk.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}))

	page, err := c.Charts(t.Context(), nil)
	assert.Nil(t, page)
	require.ErrorIs(t, err, chartdiff.ErrCacheUnavailable)
	assert.Equal(t, 4, testkit.APIError(t, err).Attempts, "a 502 of a read is retried")
	assert.Contains(t, err.Error(), "after 4 attempts")

	ch, err := c.Chart(t.Context(), 1)
	assert.Nil(t, ch)
	require.ErrorIs(t, err, chartdiff.ErrCacheUnavailable)

	stats, err := c.Stats(t.Context())
	assert.Nil(t, stats)
	require.ErrorIs(t, err, chartdiff.ErrStatsUnavailable)
	assert.Equal(t, http.StatusBadGateway, testkit.APIError(t, err).StatusCode)
}

func TestInvalidIDCodesFromTheService(t *testing.T) {
	t.Parallel()
	// The client refuses non-positive ids itself; a service that still refuses an id (an id
	// beyond its range, say) answers with these codes.
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	srv.InjectFaults(sdktest.Fault{Path: "/api/v1/charts/1", Status: 400, Code: "invalid_chart_id", Message: "chart_id must be a positive integer"})
	_, err := c.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrInvalidChartID)

	srv.InjectFaults(sdktest.Fault{Path: "/api/v1/players/2", Status: 400, Code: "invalid_uid"})
	_, err = c.Player(t.Context(), 2)
	require.ErrorIs(t, err, chartdiff.ErrInvalidUID)
}

func TestChartWithoutAnalyzedIsADecodeError(t *testing.T) {
	t.Parallel()
	srv := serveFixture(t, http.StatusOK, "chart_without_analyzed.json")
	c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL))
	require.NoError(t, err)

	ch, err := c.Chart(t.Context(), 5)
	assert.Nil(t, ch)
	var de *sdk.DecodeError
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Contains(t, err.Error(), `"analyzed" is missing`)
}

func TestErrorWithoutCodeMatchesNoSentinel(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	srv.InjectFaults(sdktest.Fault{Path: "/api/v1/stats", Status: http.StatusBadGateway})
	_, err := c.Stats(t.Context())
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusBadGateway, ae.StatusCode)
	for _, row := range errorTable {
		assert.NotErrorIs(t, err, row.sentinel, "an empty code matches no sentinel")
	}
}

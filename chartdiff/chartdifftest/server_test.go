package chartdifftest_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

func TestInvalidIDsAndUIDs(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	for _, id := range []string{"abc", "0", "-5", "1.5", "%2B1", "99999999999999999999"} {
		a := do(t, srv, "GET", "/api/v1/charts/"+id, "", nil)
		assert.Equal(t, 400, a.Status, id)
		assert.Equal(t, "invalid_chart_id", a.ErrorCode(), id)
	}
	for _, body := range []string{`{"chart_id":"abc"}`, `{"chart_id":0}`, `{"chart_id":-1}`, `{"chart_id":1.5}`, `{}`, `{"chart_id":null}`} {
		a := do(t, srv, "POST", "/api/v1/analyses", body, nil)
		assert.Equal(t, 400, a.Status, body)
		assert.Equal(t, "invalid_chart_id", a.ErrorCode(), body)
	}
	a := do(t, srv, "POST", "/api/v1/analyses", `{"chart_id":4,"priority":"high"}`, nil)
	assert.Equal(t, "invalid_request", a.ErrorCode(), "only chart_id is accepted")
	for _, path := range []string{"/api/v1/charters/abc", "/api/v1/charters/0", "/api/v1/players/-1", "/api/v1/players/1e3"} {
		a := do(t, srv, "GET", path, "", nil)
		assert.Equal(t, 400, a.Status, path)
		assert.Equal(t, "invalid_uid", a.ErrorCode(), path)
	}
}

func TestUnknownEndpointsAreNotFound(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	for _, r := range [][2]string{{"GET", "/api/v1/nothing"}, {"PUT", "/api/v1/charts"}, {"GET", "/charts/1"}, {"GET", "/api/v2/charts/1"}} {
		a := do(t, srv, r[0], r[1], "", nil)
		assert.Equal(t, 404, a.Status, r)
		assert.Equal(t, "not_found", a.ErrorCode(), r)
	}
}

func TestListValidation(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	for _, q := range []string{"page=0", "page=x", "pageSize=0", "pageSize=201", "order=up", "only=fresh", "build=1", "only=official&build=1", "q=" + strings.Repeat("a", 61)} {
		a := do(t, srv, "GET", "/api/v1/charts?"+q, "", nil)
		assert.Equal(t, 400, a.Status, q)
		assert.Equal(t, "invalid_request", a.ErrorCode(), q)
	}
	a := do(t, srv, "GET", "/api/v1/charts?sort=rating", "", nil)
	assert.Equal(t, 400, a.Status)
	assert.Equal(t, "invalid_sort_field", a.ErrorCode())
	assert.Equal(t, "chart_id,name,level,difficulty,ref_const,ref_official,ps_score,nps,notes", a.Header.Get("x-allowed-sort"))

	a = do(t, srv, "GET", "/api/v1/charts?q="+strings.Repeat("%E8%AD%9C", 60), "", nil)
	assert.Equal(t, 200, a.Status, "60 characters of 3 bytes each")
	a = do(t, srv, "GET", "/api/v1/charters/9?maxPages=6", "", nil)
	assert.Equal(t, "invalid_request", a.ErrorCode())
}

func TestAuthHeaders(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	key := srv.IssueKey(srv.AccountToken())

	a := do(t, srv, "GET", "/api/v1/stats", "", map[string]string{"Authorization": "Bearer " + key})
	assert.Equal(t, "1000", a.Header.Get("x-ratelimit-limit"), "Bearer is accepted without the gateway")
	a = do(t, srv, "GET", "/api/v1/stats", "", map[string]string{"x-api-key": key})
	assert.Equal(t, "100", a.Header.Get("x-ratelimit-limit"), "x-api-key is not a key header of the service")
	a = do(t, srv, "GET", "/api/v1/stats", "", map[string]string{"x-phm-key": "sk-short"})
	assert.Equal(t, "invalid_api_key", a.ErrorCode())

	gw := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithGatewayMangling()))
	gwKey := gw.IssueKey(gw.AccountToken())
	a = do(t, gw, "GET", "/api/v1/stats", "", map[string]string{"Authorization": "Bearer " + gwKey})
	assert.Equal(t, 200, a.Status)
	assert.Equal(t, "100", a.Header.Get("x-ratelimit-limit"), "the gateway overwrote Authorization: silently anonymous")
	a = do(t, gw, "GET", "/api/v1/meta?diag=1", "", map[string]string{"x-api-key": gwKey, "x-phm-key": gwKey})
	headers := a.JSON["diag"].(map[string]any)["headers"].(map[string]any)
	assert.EqualValues(t, 0, headers["x-api-key"], "the gateway consumed x-api-key")
	assert.EqualValues(t, 35, headers["x-phm-key"])
	assert.NotEqualValues(t, 0, headers["authorization"])

	a = do(t, srv, "GET", "/api/v1/keys", "", map[string]string{"x-hm-token": key})
	assert.Equal(t, 401, a.Status)
	assert.Equal(t, "account_token_required", a.ErrorCode())
	assert.Contains(t, a.JSON["error"].(map[string]any)["message"], "not an account token")
	a = do(t, srv, "GET", "/api/v1/usage", "", nil)
	assert.Equal(t, "account_token_required", a.ErrorCode())
	a = do(t, srv, "GET", "/api/v1/meta", "", map[string]string{"x-phm-key": "sk-00000000000000000000000000000000"})
	assert.Equal(t, 200, a.Status, "/meta validates no credential")
}

func TestKeyBodyValidation(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	tok := map[string]string{"x-hm-token": srv.AccountToken()}
	for _, body := range []string{`{"scopes":[]}`, `{"scopes":["admin"]}`, `{"expires_in_days":45}`, `{"expires_in_days":"30"}`, `{"owner":"x"}`, `[1]`} {
		a := do(t, srv, "POST", "/api/v1/keys", body, tok)
		assert.Equal(t, 400, a.Status, body)
		assert.Equal(t, "invalid_request", a.ErrorCode(), body)
	}
	a := do(t, srv, "POST", "/api/v1/keys", `{"scopes":["usage:read","usage:read"],"expires_in_days":null}`, tok)
	require.Equal(t, 201, a.Status)
	rec := a.JSON["key"].(map[string]any)
	assert.Equal(t, []any{"usage:read"}, rec["scopes"])
	assert.Nil(t, rec["expires_at"])
	assert.Regexp(t, `^sk-[0-9a-f]{32}$`, a.JSON["plaintext"])
	assert.NotContains(t, rec, "plaintext")

	a = do(t, srv, "PATCH", "/api/v1/keys/"+rec["id"].(string), `{}`, tok)
	assert.Equal(t, "invalid_request", a.ErrorCode(), "an empty update")
}

func TestGlobalAnonymousBucket(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithQuotas(chartdifftest.Quotas{GlobalAnonymousPerHour: 2})))
	for range 2 {
		a := do(t, srv, "GET", "/api/v1/stats", "", nil)
		require.Equal(t, 200, a.Status)
	}
	a := do(t, srv, "GET", "/api/v1/stats", "", nil)
	assert.Equal(t, 429, a.Status)
	assert.Equal(t, "rate_limit_exceeded", a.ErrorCode())
	assert.NotEmpty(t, a.Header.Get("retry-after"))
	assert.Equal(t, "2", a.Header.Get("x-ratelimit-limit"), "the bucket that ran out is reported")
}

func TestErrorShapes(t *testing.T) {
	t.Parallel()
	for shape, want := range map[chartdifftest.ErrorShape]map[string]any{
		chartdifftest.ErrorNested: {"error": map[string]any{"code": "player_not_found", "message": "no player has uid 11"}},
		chartdifftest.ErrorFlat:   {"code": "player_not_found", "message": "no player has uid 11"},
		chartdifftest.ErrorString: {"error": "player_not_found", "message": "no player has uid 11"},
	} {
		srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithErrorShape(shape)))
		a := do(t, srv, "GET", "/api/v1/players/11", "", nil)
		assert.Equal(t, 404, a.Status)
		assert.Equal(t, want, a.JSON)
	}
}

func TestAnalysisSlots(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithBusyRetryAfter(3)))
	release := srv.HoldAnalyses()
	var wg sync.WaitGroup
	for _, id := range []string{"12", "16"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := do(t, srv, "POST", "/api/v1/analyses", `{"chart_id":`+id+`}`, nil)
			assert.Equal(t, 200, a.Status)
			assert.Equal(t, false, a.JSON["cached"])
		}()
	}
	require.Eventually(t, func() bool { return srv.RunningAnalyses() == 2 }, 5*time.Second, time.Millisecond)
	a := do(t, srv, "POST", "/api/v1/analyses", `{"chart_id":20}`, nil)
	assert.Equal(t, 503, a.Status)
	assert.Equal(t, "analysis_busy", a.ErrorCode())
	assert.Equal(t, "3", a.Header.Get("retry-after"))
	a = do(t, srv, "POST", "/api/v1/analyses", `{"chart_id":1}`, nil)
	assert.Equal(t, 200, a.Status, "a cached chart needs no slot")
	assert.Equal(t, true, a.JSON["cached"])
	release()
	wg.Wait()
	assert.Zero(t, srv.RunningAnalyses())
	assert.True(t, srv.Analyzed(12))
	assert.True(t, srv.Analyzed(16))
}

func TestInjectedFaultsAreOneShotAndInOrder(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	srv.InjectFaults(sdktest.Fault{Path: "/api/v1/stats", Status: 502, Code: "stats_unavailable", RetryAfter: 7 * time.Second},
		sdktest.Fault{Method: "GET", Status: 503, Code: "rate_limit_unavailable"})
	a := do(t, srv, "GET", "/api/v1/charts/1", "", nil)
	assert.Equal(t, "rate_limit_unavailable", a.ErrorCode(), "the first fault matches /stats only")
	a = do(t, srv, "GET", "/api/v1/stats", "", nil)
	assert.Equal(t, "stats_unavailable", a.ErrorCode())
	assert.Equal(t, "7", a.Header.Get("retry-after"))
	a = do(t, srv, "GET", "/api/v1/stats", "", nil)
	assert.Equal(t, 200, a.Status)
}

func TestRequestsAreRecordedBeforeTheGateway(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithGatewayMangling(), chartdifftest.WithDroppedHeaders("x-phm-key")))
	do(t, srv, "POST", "/api/v1/analyses?x=1", `{"chart_id":1}`, map[string]string{"x-api-key": "k", "x-phm-key": "p"})
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "POST", reqs[0].Method)
	assert.Equal(t, "/api/v1/analyses", reqs[0].Path)
	assert.Equal(t, url.Values{"x": {"1"}}, reqs[0].Query)
	assert.Equal(t, sdktest.Redacted, reqs[0].Header.Get("x-api-key"), "recorded before the gateway consumed it, redacted")
	assert.Equal(t, sdktest.Redacted, reqs[0].Header.Get("x-phm-key"), "recorded before the proxy dropped it, redacted")
	assert.JSONEq(t, `{"chart_id":1}`, string(reqs[0].Body))
	assert.Equal(t, http.StatusOK, reqs[0].Status)
	assert.Equal(t, 1, srv.RequestCount("POST", "/api/v1/analyses"))
	assert.Equal(t, 0, srv.RequestCount("GET", "/api/v1/analyses"))
}

func TestInjectedFaultsUseTheErrorShape(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithErrorShape(chartdifftest.ErrorString)))
	srv.InjectFaults(sdktest.Fault{Path: "/api/v1/players/2", Status: 404, Code: "player_not_found", Message: "gone",
		Header: http.Header{"X-Extra": {"1"}}})
	a := do(t, srv, "GET", "/api/v1/players/2", "", nil)
	assert.Equal(t, 404, a.Status)
	assert.Equal(t, map[string]any{"error": "player_not_found", "message": "gone"}, a.JSON)
	assert.Equal(t, "1", a.Header.Get("X-Extra"))
	assert.Equal(t, 404, srv.Requests()[0].Status)
}

func TestCloseEndsAHeldAnalysis(t *testing.T) {
	t.Parallel()
	srv := chartdifftest.NewServer()
	srv.HoldAnalyses() // never released: Close alone must end the held request
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := srv.Client().Post(srv.URL+"/api/v1/analyses", "application/json", strings.NewReader(`{"chart_id":12}`))
		if err == nil {
			resp.Body.Close()
		}
	}()
	require.Eventually(t, func() bool { return srv.RunningAnalyses() == 1 }, 5*time.Second, time.Millisecond)
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited on a held analysis")
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the held request did not end")
	}
	assert.Zero(t, srv.RunningAnalyses())
	assert.False(t, srv.Analyzed(12), "an interrupted analysis stores nothing")
}

package chartdifftest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/sdktest"
)

// answer is a raw answer of the fake.
type answer struct {
	status int
	header http.Header
	body   map[string]any
}

// code returns the error code of a nested error body.
func (a answer) code() string {
	e, _ := a.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// do sends a raw request to the fake.
func do(t *testing.T, srv *chartdifftest.Server, method, path, body string, header map[string]string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m), string(raw))
	return answer{resp.StatusCode, resp.Header, m}
}

func start(t *testing.T, opts ...chartdifftest.Option) *chartdifftest.Server {
	t.Helper()
	srv := chartdifftest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

func TestInvalidIDsAndUIDs(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for _, id := range []string{"abc", "0", "-5", "1.5", "%2B1", "99999999999999999999"} {
		a := do(t, srv, "GET", "/api/v1/charts/"+id, "", nil)
		assert.Equal(t, 400, a.status, id)
		assert.Equal(t, "invalid_chart_id", a.code(), id)
	}
	for _, body := range []string{`{"chart_id":"abc"}`, `{"chart_id":0}`, `{"chart_id":-1}`, `{"chart_id":1.5}`, `{}`, `{"chart_id":null}`} {
		a := do(t, srv, "POST", "/api/v1/analyses", body, nil)
		assert.Equal(t, 400, a.status, body)
		assert.Equal(t, "invalid_chart_id", a.code(), body)
	}
	a := do(t, srv, "POST", "/api/v1/analyses", `{"chart_id":4,"priority":"high"}`, nil)
	assert.Equal(t, "invalid_request", a.code(), "only chart_id is accepted")
	for _, path := range []string{"/api/v1/charters/abc", "/api/v1/charters/0", "/api/v1/players/-1", "/api/v1/players/1e3"} {
		a := do(t, srv, "GET", path, "", nil)
		assert.Equal(t, 400, a.status, path)
		assert.Equal(t, "invalid_uid", a.code(), path)
	}
}

func TestUnknownEndpointsAreNotFound(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for _, r := range [][2]string{{"GET", "/api/v1/nothing"}, {"PUT", "/api/v1/charts"}, {"GET", "/charts/1"}, {"GET", "/api/v2/charts/1"}} {
		a := do(t, srv, r[0], r[1], "", nil)
		assert.Equal(t, 404, a.status, r)
		assert.Equal(t, "not_found", a.code(), r)
	}
}

func TestListValidation(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for _, q := range []string{"page=0", "page=x", "pageSize=0", "pageSize=201", "order=up", "only=fresh", "build=1", "only=official&build=1", "q=" + strings.Repeat("a", 61)} {
		a := do(t, srv, "GET", "/api/v1/charts?"+q, "", nil)
		assert.Equal(t, 400, a.status, q)
		assert.Equal(t, "invalid_request", a.code(), q)
	}
	a := do(t, srv, "GET", "/api/v1/charts?sort=rating", "", nil)
	assert.Equal(t, 400, a.status)
	assert.Equal(t, "invalid_sort_field", a.code())
	assert.Equal(t, "chart_id,name,level,difficulty,ref_const,ref_official,ps_score,nps,notes", a.header.Get("x-allowed-sort"))

	a = do(t, srv, "GET", "/api/v1/charts?q="+strings.Repeat("%E8%AD%9C", 60), "", nil)
	assert.Equal(t, 200, a.status, "60 characters of 3 bytes each")
	a = do(t, srv, "GET", "/api/v1/charters/9?maxPages=6", "", nil)
	assert.Equal(t, "invalid_request", a.code())
}

func TestAuthHeaders(t *testing.T) {
	t.Parallel()
	srv := start(t)
	key := srv.IssueKey(srv.AccountToken())

	a := do(t, srv, "GET", "/api/v1/stats", "", map[string]string{"Authorization": "Bearer " + key})
	assert.Equal(t, "1000", a.header.Get("x-ratelimit-limit"), "Bearer is accepted without the gateway")
	a = do(t, srv, "GET", "/api/v1/stats", "", map[string]string{"x-api-key": key})
	assert.Equal(t, "100", a.header.Get("x-ratelimit-limit"), "x-api-key is not a key header of the service")
	a = do(t, srv, "GET", "/api/v1/stats", "", map[string]string{"x-phm-key": "sk-short"})
	assert.Equal(t, "invalid_api_key", a.code())

	gw := start(t, chartdifftest.WithGatewayMangling())
	gwKey := gw.IssueKey(gw.AccountToken())
	a = do(t, gw, "GET", "/api/v1/stats", "", map[string]string{"Authorization": "Bearer " + gwKey})
	assert.Equal(t, 200, a.status)
	assert.Equal(t, "100", a.header.Get("x-ratelimit-limit"), "the gateway overwrote Authorization: silently anonymous")
	a = do(t, gw, "GET", "/api/v1/meta?diag=1", "", map[string]string{"x-api-key": gwKey, "x-phm-key": gwKey})
	headers := a.body["diag"].(map[string]any)["headers"].(map[string]any)
	assert.EqualValues(t, 0, headers["x-api-key"], "the gateway consumed x-api-key")
	assert.EqualValues(t, 35, headers["x-phm-key"])
	assert.NotEqualValues(t, 0, headers["authorization"])

	a = do(t, srv, "GET", "/api/v1/keys", "", map[string]string{"x-hm-token": key})
	assert.Equal(t, 401, a.status)
	assert.Equal(t, "account_token_required", a.code())
	assert.Contains(t, a.body["error"].(map[string]any)["message"], "not an account token")
	a = do(t, srv, "GET", "/api/v1/usage", "", nil)
	assert.Equal(t, "account_token_required", a.code())
	a = do(t, srv, "GET", "/api/v1/meta", "", map[string]string{"x-phm-key": "sk-00000000000000000000000000000000"})
	assert.Equal(t, 200, a.status, "/meta validates no credential")
}

func TestKeyBodyValidation(t *testing.T) {
	t.Parallel()
	srv := start(t)
	tok := map[string]string{"x-hm-token": srv.AccountToken()}
	for _, body := range []string{`{"scopes":[]}`, `{"scopes":["admin"]}`, `{"expires_in_days":45}`, `{"expires_in_days":"30"}`, `{"owner":"x"}`, `[1]`} {
		a := do(t, srv, "POST", "/api/v1/keys", body, tok)
		assert.Equal(t, 400, a.status, body)
		assert.Equal(t, "invalid_request", a.code(), body)
	}
	a := do(t, srv, "POST", "/api/v1/keys", `{"scopes":["usage:read","usage:read"],"expires_in_days":null}`, tok)
	require.Equal(t, 201, a.status)
	rec := a.body["key"].(map[string]any)
	assert.Equal(t, []any{"usage:read"}, rec["scopes"])
	assert.Nil(t, rec["expires_at"])
	assert.Regexp(t, `^sk-[0-9a-f]{32}$`, a.body["plaintext"])
	assert.NotContains(t, rec, "plaintext")

	a = do(t, srv, "PATCH", "/api/v1/keys/"+rec["id"].(string), `{}`, tok)
	assert.Equal(t, "invalid_request", a.code(), "an empty update")
}

func TestGlobalAnonymousBucket(t *testing.T) {
	t.Parallel()
	srv := start(t, chartdifftest.WithQuotas(chartdifftest.Quotas{GlobalAnonymousPerHour: 2}))
	for range 2 {
		a := do(t, srv, "GET", "/api/v1/stats", "", nil)
		require.Equal(t, 200, a.status)
	}
	a := do(t, srv, "GET", "/api/v1/stats", "", nil)
	assert.Equal(t, 429, a.status)
	assert.Equal(t, "rate_limit_exceeded", a.code())
	assert.NotEmpty(t, a.header.Get("retry-after"))
	assert.Equal(t, "2", a.header.Get("x-ratelimit-limit"), "the bucket that ran out is reported")
}

func TestErrorShapes(t *testing.T) {
	t.Parallel()
	for shape, want := range map[chartdifftest.ErrorShape]map[string]any{
		chartdifftest.ErrorNested: {"error": map[string]any{"code": "player_not_found", "message": "no player has uid 11"}},
		chartdifftest.ErrorFlat:   {"code": "player_not_found", "message": "no player has uid 11"},
		chartdifftest.ErrorString: {"error": "player_not_found", "message": "no player has uid 11"},
	} {
		srv := start(t, chartdifftest.WithErrorShape(shape))
		a := do(t, srv, "GET", "/api/v1/players/11", "", nil)
		assert.Equal(t, 404, a.status)
		assert.Equal(t, want, a.body)
	}
}

func TestAnalysisSlots(t *testing.T) {
	t.Parallel()
	srv := start(t, chartdifftest.WithBusyRetryAfter(3))
	release := srv.HoldAnalyses()
	var wg sync.WaitGroup
	for _, id := range []string{"12", "16"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := do(t, srv, "POST", "/api/v1/analyses", `{"chart_id":`+id+`}`, nil)
			assert.Equal(t, 200, a.status)
			assert.Equal(t, false, a.body["cached"])
		}()
	}
	require.Eventually(t, func() bool { return srv.RunningAnalyses() == 2 }, 5*time.Second, time.Millisecond)
	a := do(t, srv, "POST", "/api/v1/analyses", `{"chart_id":20}`, nil)
	assert.Equal(t, 503, a.status)
	assert.Equal(t, "analysis_busy", a.code())
	assert.Equal(t, "3", a.header.Get("retry-after"))
	a = do(t, srv, "POST", "/api/v1/analyses", `{"chart_id":1}`, nil)
	assert.Equal(t, 200, a.status, "a cached chart needs no slot")
	assert.Equal(t, true, a.body["cached"])
	release()
	wg.Wait()
	assert.Zero(t, srv.RunningAnalyses())
	assert.True(t, srv.Analyzed(12))
	assert.True(t, srv.Analyzed(16))
}

func TestInjectedFaultsAreOneShotAndInOrder(t *testing.T) {
	t.Parallel()
	srv := start(t)
	srv.InjectFaults(sdktest.Fault{Path: "/api/v1/stats", Status: 502, Code: "stats_unavailable", RetryAfter: 7 * time.Second},
		sdktest.Fault{Method: "GET", Status: 503, Code: "rate_limit_unavailable"})
	a := do(t, srv, "GET", "/api/v1/charts/1", "", nil)
	assert.Equal(t, "rate_limit_unavailable", a.code(), "the first fault matches /stats only")
	a = do(t, srv, "GET", "/api/v1/stats", "", nil)
	assert.Equal(t, "stats_unavailable", a.code())
	assert.Equal(t, "7", a.header.Get("retry-after"))
	a = do(t, srv, "GET", "/api/v1/stats", "", nil)
	assert.Equal(t, 200, a.status)
}

func TestRequestsAreRecordedBeforeTheGateway(t *testing.T) {
	t.Parallel()
	srv := start(t, chartdifftest.WithGatewayMangling(), chartdifftest.WithDroppedHeaders("x-phm-key"))
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
	srv := start(t, chartdifftest.WithErrorShape(chartdifftest.ErrorString))
	srv.InjectFaults(sdktest.Fault{Path: "/api/v1/players/2", Status: 404, Code: "player_not_found", Message: "gone",
		Header: http.Header{"X-Extra": {"1"}}})
	a := do(t, srv, "GET", "/api/v1/players/2", "", nil)
	assert.Equal(t, 404, a.status)
	assert.Equal(t, map[string]any{"error": "player_not_found", "message": "gone"}, a.body)
	assert.Equal(t, "1", a.header.Get("X-Extra"))
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

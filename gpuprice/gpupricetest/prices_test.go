package gpupricetest_test

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/sdktest"
)

// onDemandModels are the 9 models of the on-demand table.
var onDemandModels = []string{"B200", "H200", "H100", "A100-80GB", "A100-40GB", "L40S", "RTX-4090", "A10G", "L4"}

// onDemandPlatforms are the 6 platforms of the on-demand table.
var onDemandPlatforms = []string{"aws", "azure", "gcp", "coreweave", "lambda", "runpod"}

func TestGPUsTableAndFilters(t *testing.T) {
	t.Parallel()
	srv := start(t)

	a := get(t, srv, "/v1/gpus")
	require.Equal(t, http.StatusOK, a.Status)
	assert.Equal(t, "application/json", a.Header.Get("Content-Type"))
	rows := a.List(t, "prices")
	require.Len(t, rows, 54)
	assert.EqualValues(t, 54, a.JSON["count"])
	assert.Equal(t, "USD", a.JSON["currency"])
	assert.Equal(t, "2026-03-14T15:30:00Z", a.JSON["updated_at"])
	perModel, perPlatform := map[string]int{}, map[string]int{}
	for _, r := range rows {
		perModel[r["model"].(string)]++
		perPlatform[r["platform"].(string)]++
		assert.Greater(t, r["price_usd_hr"].(float64), 0.0)
		assert.Greater(t, r["vram_gb"].(float64), 0.0)
	}
	for _, m := range onDemandModels {
		assert.Equal(t, 6, perModel[m], m)
	}
	for _, p := range onDemandPlatforms {
		assert.Equal(t, 9, perPlatform[p], p)
	}

	a = get(t, srv, "/v1/gpus?model=h100")
	rows = a.List(t, "prices")
	require.Len(t, rows, 6, "the model filter ignores case")
	for _, r := range rows {
		assert.Equal(t, "H100", r["model"])
	}
	a = get(t, srv, "/v1/gpus?platform=AWS")
	require.Len(t, a.List(t, "prices"), 9)
	a = get(t, srv, "/v1/gpus?model=H100&platform=lambda")
	rows = a.List(t, "prices")
	require.Len(t, rows, 1)
	assert.Equal(t, "lambda", rows[0]["platform"])

	for path, code := range map[string]string{
		"/v1/gpus?model=H900":      "unknown_model",
		"/v1/gpus?model=GH200":     "unknown_model", // in the futures index only
		"/v1/gpus?platform=vastai": "unknown_platform",
	} {
		a = get(t, srv, path)
		assert.Equal(t, http.StatusNotFound, a.Status, path)
		assert.Equal(t, code, a.ErrorCode(), path)
	}
	a = get(t, srv, "/v1/gpus?platform=vastai")
	assert.Contains(t, a.ErrorMessage(), "aws, azure, gcp, coreweave, lambda, runpod", "the error lists the platforms")
}

func TestCheapestHasExactlyTheSpecShape(t *testing.T) {
	t.Parallel()
	srv := start(t)
	table := map[string]float64{}
	for _, r := range get(t, srv, "/v1/gpus?model=H100").List(t, "prices") {
		table[r["platform"].(string)] = r["price_usd_hr"].(float64)
	}

	a := get(t, srv, "/v1/cheapest?model=H100")
	require.Equal(t, http.StatusOK, a.Status)
	keys := make([]string, 0, len(a.JSON))
	for k := range a.JSON {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"model", "best_platform", "best_price_usd_hr", "saving_pct_vs_dearest", "all_on_demand"}, keys)
	assert.Equal(t, "H100", a.JSON["model"])
	all := map[string]float64{}
	for k, v := range a.JSON["all_on_demand"].(map[string]any) {
		all[k] = v.(float64)
	}
	assert.Equal(t, table, all, "all_on_demand agrees with the price table")
	best, dearest := math.Inf(1), 0.0
	for _, p := range all {
		best, dearest = min(best, p), max(dearest, p)
	}
	assert.Equal(t, best, a.JSON["best_price_usd_hr"])
	assert.Equal(t, best, all[a.JSON["best_platform"].(string)])
	assert.InDelta(t, (dearest-best)/dearest*100, a.JSON["saving_pct_vs_dearest"], 0.05)

	a = get(t, srv, "/v1/cheapest")
	require.Equal(t, http.StatusOK, a.Status)
	list := a.List(t, "cheapest")
	assert.EqualValues(t, 9, a.JSON["count"])
	var models []string
	bestPlatforms := map[string]bool{}
	for _, c := range list {
		models = append(models, c["model"].(string))
		bestPlatforms[c["best_platform"].(string)] = true
		assert.Len(t, c, 5)
		assert.Len(t, c["all_on_demand"], 6)
	}
	assert.Equal(t, onDemandModels, models)
	assert.Greater(t, len(bestPlatforms), 1, "the cheapest platform differs between models")

	a = get(t, srv, "/v1/cheapest?model=T4")
	assert.Equal(t, http.StatusNotFound, a.Status)
	assert.Equal(t, "unknown_model", a.ErrorCode())
}

func TestPlatformDirectory(t *testing.T) {
	t.Parallel()
	srv := start(t)
	a := get(t, srv, "/v1/platforms")
	require.Equal(t, http.StatusOK, a.Status)
	list := a.List(t, "platforms")
	require.Len(t, list, 23)
	assert.EqualValues(t, 23, a.JSON["count"])
	var onDemand []string
	ids := map[string]bool{}
	for _, p := range list {
		ids[p["id"].(string)] = true
		assert.NotEmpty(t, p["name"])
		assert.Equal(t, true, p["futures_index"])
		assert.NotEmpty(t, p["models"], p["id"])
		if p["on_demand_index"] == true {
			onDemand = append(onDemand, p["id"].(string))
			assert.Len(t, p["models"], 9)
		}
	}
	assert.Len(t, ids, 23, "ids are unique")
	assert.Equal(t, onDemandPlatforms, onDemand)
}

func TestFuturesIndexIsTheWeightedMeanOfItsComponents(t *testing.T) {
	t.Parallel()
	srv := start(t)
	idx := get(t, srv, "/v1/futures/index")
	require.Equal(t, http.StatusOK, idx.Status)
	assert.EqualValues(t, 23, idx.JSON["platforms"])
	assert.EqualValues(t, 14, idx.JSON["models"])
	assert.Equal(t, "2026-03-14T15:30:00Z", idx.JSON["timestamp"])
	value, bid, ask := idx.JSON["value"].(float64), idx.JSON["bid"].(float64), idx.JSON["ask"].(float64)
	assert.Less(t, bid, value)
	assert.Less(t, value, ask)
	assert.InDelta(t, ask-bid, idx.JSON["spread"], 1e-9)

	comps := get(t, srv, "/v1/futures/components")
	require.Equal(t, http.StatusOK, comps.Status)
	list := comps.List(t, "components")
	require.Len(t, list, 14)
	var weights, weighted float64
	for _, c := range list {
		w, spot, eq := c["weight"].(float64), c["spot_price_usd_hr"].(float64), c["h100_equivalent"].(float64)
		weights += w
		weighted += w * spot / eq
		assert.InDelta(t, spot/eq, c["price_per_h100e_usd_hr"], 1e-4)
		if c["model"] == "H100" {
			assert.InDelta(t, 1.0, eq, 0)
		}
	}
	assert.InDelta(t, 1.0, weights, 1e-9)
	assert.InDelta(t, weighted, value, 1e-4)
}

func TestOrderBook(t *testing.T) {
	t.Parallel()
	srv := start(t)
	a := get(t, srv, "/v1/exchange/book")
	require.Equal(t, http.StatusOK, a.Status)
	assert.Equal(t, "H100", a.JSON["model"], "H100 by default")
	bids, asks := a.List(t, "bids"), a.List(t, "asks")
	require.Len(t, bids, 10)
	require.Len(t, asks, 10)
	for i := 1; i < 10; i++ {
		assert.Less(t, bids[i]["price"], bids[i-1]["price"], "bids best first")
		assert.Greater(t, asks[i]["price"], asks[i-1]["price"], "asks best first")
	}
	assert.Equal(t, bids[0]["price"], a.JSON["best_bid"])
	assert.Equal(t, asks[0]["price"], a.JSON["best_ask"])
	assert.Less(t, a.JSON["best_bid"], a.JSON["best_ask"])
	assert.InDelta(t, asks[0]["price"].(float64)-bids[0]["price"].(float64), a.JSON["spread"], 1e-9)
	matches := a.List(t, "recent_matches")
	require.Len(t, matches, 5)
	for _, m := range matches {
		at, err := time.Parse(time.RFC3339, m["matched_at"].(string))
		require.NoError(t, err)
		assert.True(t, at.Before(t0))
		assert.Contains(t, []string{"buy", "sell"}, m["side"])
	}

	a = get(t, srv, "/v1/exchange/book?model=mi300x")
	require.Equal(t, http.StatusOK, a.Status, "any model of the futures index")
	assert.Equal(t, "MI300X-USD", a.JSON["market"])
	a = get(t, srv, "/v1/exchange/book?model=Z1")
	assert.Equal(t, "unknown_model", a.ErrorCode())
}

func TestHealthIsPublicAndUncounted(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithFreeQuota(1))
	for range 3 {
		a := do(t, srv, http.MethodGet, "/v1/health", "", "not-a-key")
		require.Equal(t, http.StatusOK, a.Status, "no key is checked")
		assert.Equal(t, "ok", a.JSON["status"])
		assert.Empty(t, a.Header.Get("X-RateLimit-Limit"))
	}
	a := get(t, srv, "/v1/platforms")
	assert.Equal(t, http.StatusOK, a.Status)
	assert.Equal(t, "0", a.Header.Get("X-RateLimit-Remaining"), "only the counted request used the quota")
}

func TestHistory(t *testing.T) {
	t.Parallel()
	srv := start(t)
	key := srv.IssueKey(gpupricetest.PlanPro, t0.Add(24*time.Hour))

	a := do(t, srv, http.MethodGet, "/v1/history", "", key)
	require.Equal(t, http.StatusOK, a.Status)
	assert.EqualValues(t, 30*9*6, a.JSON["total"], "30 daily snapshots of the whole table")
	assert.EqualValues(t, 100, a.JSON["count"])
	assert.Equal(t, true, a.JSON["truncated"])
	snaps := a.List(t, "snapshots")
	require.Len(t, snaps, 100)
	assert.Equal(t, "2026-03-14T00:00:00Z", snaps[99]["timestamp"], "the newest snapshots are kept")
	assert.True(t, slices.IsSortedFunc(snaps, func(x, y map[string]any) int {
		return strings.Compare(x["timestamp"].(string), y["timestamp"].(string))
	}))
	assert.Len(t, a.List(t, "benchmarks"), 9)

	a = do(t, srv, http.MethodGet, "/v1/history?model=H100&platform=aws&from=2026-03-01&to=2026-03-10T12:00:00Z&limit=1000", "", key)
	require.Equal(t, http.StatusOK, a.Status)
	snaps = a.List(t, "snapshots")
	require.Len(t, snaps, 10, "1 to 10 March")
	assert.Equal(t, false, a.JSON["truncated"])
	assert.Equal(t, "2026-03-01T00:00:00Z", snaps[0]["timestamp"])
	lo, hi, sum := math.Inf(1), 0.0, 0.0
	for _, s := range snaps {
		assert.Equal(t, "H100", s["model"])
		assert.Equal(t, "aws", s["platform"])
		p := s["price_usd_hr"].(float64)
		lo, hi, sum = min(lo, p), max(hi, p), sum+p
	}
	bench := a.List(t, "benchmarks")
	require.Len(t, bench, 1)
	assert.Equal(t, lo, bench[0]["min_usd_hr"])
	assert.Equal(t, hi, bench[0]["max_usd_hr"])
	assert.InDelta(t, sum/10, bench[0]["mean_usd_hr"], 1e-4)
	assert.EqualValues(t, 10, bench[0]["samples"])
	first, last := snaps[0]["price_usd_hr"].(float64), snaps[9]["price_usd_hr"].(float64)
	assert.InDelta(t, (last-first)/first*100, bench[0]["change_pct"], 0.01)

	a = do(t, srv, http.MethodGet, "/v1/history?to=2025-03-20&limit=1000", "", key)
	require.Equal(t, http.StatusOK, a.Status, "without from, the range starts 30 days before to or at the start of the history")
	assert.Equal(t, "2025-03-14T00:00:00Z", a.JSON["from"])
	assert.EqualValues(t, 7*9*6, a.JSON["total"], "14 to 20 March 2025")

	for _, q := range []string{"limit=0", "limit=1001", "limit=ten", "from=yesterday", "from=2026-03-10&to=2026-03-01", "from=2025-01-01", "to=2025-03-01"} {
		a = do(t, srv, http.MethodGet, "/v1/history?"+q, "", key)
		assert.Equal(t, http.StatusBadRequest, a.Status, q)
		assert.Equal(t, "invalid_parameter", a.ErrorCode(), q)
	}
	a = do(t, srv, http.MethodGet, "/v1/history?model=H900", "", key)
	assert.Equal(t, "unknown_model", a.ErrorCode())
}

func TestHistoryNeedsAProOrUnlimitedKey(t *testing.T) {
	t.Parallel()
	srv := start(t,
		gpupricetest.WithKey("free-key", gpupricetest.PlanFree, t0.Add(time.Hour)),
		gpupricetest.WithKey("old-key", gpupricetest.PlanPro, t0),
		gpupricetest.WithKey("ultra-key", gpupricetest.PlanUnlimited, t0.Add(time.Hour)),
	)
	for key, want := range map[string]struct {
		status int
		code   string
	}{
		"":          {http.StatusUnauthorized, "api_key_required"},
		"nope":      {http.StatusUnauthorized, "invalid_api_key"},
		"old-key":   {http.StatusUnauthorized, "api_key_expired"},
		"free-key":  {http.StatusForbidden, "plan_required"},
		"ultra-key": {http.StatusOK, ""},
	} {
		a := do(t, srv, http.MethodGet, "/v1/history", "", key)
		assert.Equal(t, want.status, a.Status, key)
		assert.Equal(t, want.code, a.ErrorCode(), key)
	}
	a := do(t, srv, http.MethodGet, "/v1/gpus", "", "nope")
	assert.Equal(t, http.StatusUnauthorized, a.Status, "a bad key is refused on free endpoints too")
	assert.Equal(t, "invalid_api_key", a.ErrorCode())
}

func TestUnknownPathsAndMethods(t *testing.T) {
	t.Parallel()
	srv := start(t)
	a := get(t, srv, "/v1/nothing")
	assert.Equal(t, http.StatusNotFound, a.Status)
	assert.Equal(t, "not_found", a.ErrorCode())
	a = do(t, srv, http.MethodPost, "/v1/gpus", "{}", "")
	assert.Equal(t, http.StatusMethodNotAllowed, a.Status)
	assert.Equal(t, "GET", a.Header.Get("Allow"))
	a = get(t, srv, gpupricetest.DefaultRedeemPath)
	assert.Equal(t, http.StatusMethodNotAllowed, a.Status)
	assert.Equal(t, "POST", a.Header.Get("Allow"))
}

func TestAKeyInTheURLIsRefusedAndNotLogged(t *testing.T) {
	t.Parallel()
	srv := start(t)
	a := get(t, srv, "/v1/gpus?model=H100&API_KEY=sk-secret-value")
	assert.Equal(t, http.StatusBadRequest, a.Status)
	assert.Equal(t, "key_in_query", a.ErrorCode())
	do(t, srv, http.MethodGet, "/v1/gpus", "", "header-secret-value")

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{sdktest.Redacted}, reqs[0].Query["API_KEY"])
	assert.Equal(t, []string{"H100"}, reqs[0].Query["model"])
	assert.Equal(t, http.StatusBadRequest, reqs[0].Status)
	assert.Empty(t, reqs[0].Header.Values("X-API-Key"))
	assert.Equal(t, []string{sdktest.Redacted}, reqs[1].Header.Values("X-API-Key"))
	assert.Equal(t, http.StatusUnauthorized, reqs[1].Status)
	assert.Equal(t, t0, reqs[1].Time)
	logged := fmt.Sprintf("%+v", reqs)
	assert.NotContains(t, logged, "secret-value")
	assert.Equal(t, 2, srv.RequestCount(http.MethodGet, "/v1/gpus"))
}

func TestInjectedFaultsAreOneShotAndUncounted(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithFreeQuota(1))
	srv.InjectFaults(sdktest.Fault{Path: "/v1/gpus", Status: http.StatusServiceUnavailable, Code: "upstream_unavailable", RetryAfter: 3 * time.Second})
	a := get(t, srv, "/v1/platforms")
	require.Equal(t, http.StatusOK, a.Status, "the fault matches /v1/gpus only")
	a = get(t, srv, "/v1/gpus")
	assert.Equal(t, http.StatusServiceUnavailable, a.Status)
	assert.Equal(t, "upstream_unavailable", a.ErrorCode())
	assert.Equal(t, "3", a.Header.Get("Retry-After"))
	a = get(t, srv, "/v1/gpus")
	assert.Equal(t, http.StatusTooManyRequests, a.Status, "the fault is gone; the quota of 1 went to /v1/platforms")
}

func TestCORS(t *testing.T) {
	t.Parallel()
	srv := start(t)
	a := do(t, srv, http.MethodOptions, "/v1/history", "", "")
	assert.Equal(t, http.StatusNoContent, a.Status)
	assert.Contains(t, a.Header.Get("Access-Control-Allow-Headers"), "X-API-Key")
	a = get(t, srv, "/v1/gpus")
	assert.Equal(t, "*", a.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, a.Header.Get("Access-Control-Expose-Headers"), "X-RateLimit-Reset")
}

func TestTheSharedVocabulary(t *testing.T) {
	t.Parallel()
	srv := start(t)
	srv.InjectFaults(sdktest.Fault{Method: http.MethodGet, Path: "/v1/gpus", Drop: true})
	hc := srv.Client()

	resp, err := hc.Get(srv.URL + "/v1/health")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	_, err = hc.Get(srv.URL + "/v1/gpus?model=H100")
	require.Error(t, err, "the connection was dropped")

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "/v1/health", reqs[0].Path)
	assert.Equal(t, http.StatusOK, reqs[0].Status)
	assert.Equal(t, t0, reqs[0].Time)
	assert.Equal(t, "H100", reqs[1].Query.Get("model"))
	assert.Zero(t, reqs[1].Status, "no answer")
	assert.Equal(t, 1, srv.RequestCount(http.MethodGet, "/v1/gpus"))
	assert.Equal(t, 2, srv.RequestCount("", ""))
	assert.Equal(t, http.StatusOK, get(t, srv, "/v1/gpus").Status, "the fault was used up")
}

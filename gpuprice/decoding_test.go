package gpuprice_test

import (
	"context"
	"maps"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/internal/testkit"
)

// serving starts a server that answers every request of method to path (its request URI,
// query included) with status, header and body as they are, without a Content-Type of its
// own, and any other request with a 404.
func serving(t *testing.T, method, path string, status int, header http.Header, body string) *testkit.Recorder {
	t.Helper()
	return testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if r.Method != method || r.URL.RequestURI() != path {
			testkit.Reply(w, http.StatusNotFound, `{"error":{"code":"no_route","message":"not the request under test"}}`)
			return
		}
		maps.Copy(w.Header(), header)
		w.Header()["Content-Type"] = header["Content-Type"] // none unless given: no sniffing
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
}

// answering returns a client, without retries, whose every GET of path gets status and body.
func answering(t *testing.T, path string, status int, body string) *gpuprice.Client {
	t.Helper()
	srv := serving(t, http.MethodGet, path, status, nil, body)
	return testkit.New(t, gpuprice.New, gpuprice.WithBaseURL(srv.URL), gpuprice.WithRetry(testkit.NoRetry),
		gpuprice.WithAPIKey("gpk_decoding_test_key"))
}

func TestCheapestIsStrictOnTheDescribedFields(t *testing.T) {
	t.Parallel()
	full := `{"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{"lambda":2.84}}`
	for name, body := range map[string]string{
		"model":                 `{"best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
		"best_platform":         `{"model":"H100","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
		"best_price_usd_hr":     `{"model":"H100","best_platform":"lambda","saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
		"saving_pct_vs_dearest": `{"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"all_on_demand":{}}`,
		"all_on_demand":         `{"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6}`,
		"a price as text":       `{"model":"H100","best_platform":"lambda","best_price_usd_hr":"2.84","saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
	} {
		_, err := answering(t, "/v1/cheapest?model=H100", 200, body).Cheapest(t.Context(), "H100")
		de := testkit.As[*sdk.DecodeError](t, err)
		assert.Equal(t, 200, de.StatusCode, name)
	}
	p, err := answering(t, "/v1/cheapest?model=H100", 200, full).Cheapest(t.Context(), "H100")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"lambda": 2.84}, p.AllOnDemand)
}

func TestPriceTableAcceptsLikelySpellings(t *testing.T) {
	t.Parallel()
	c := answering(t, "/v1/gpus", 200, `{"data":[{"gpu":"H100","provider":"aws","usd_per_hour":"5.75","vram":80,"timestamp":1773502200}],"total":1}`)
	tab, err := c.GPUs(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, tab.Prices, 1)
	p := tab.Prices[0]
	assert.Equal(t, "H100", p.Model)
	assert.Equal(t, "aws", p.Platform)
	assert.Equal(t, 5.75, *p.USDPerHour)
	assert.Equal(t, 80.0, *p.VRAMGB)
	assert.Equal(t, int64(1773502200), p.UpdatedAt.Unix())

	bare, err := answering(t, "/v1/gpus", 200, `[{"model":"L4","platform":"gcp","price":0.71}]`).GPUs(t.Context(), nil)
	require.NoError(t, err)
	assert.Equal(t, 0.71, *bare.Prices[0].USDPerHour)

	unpriced, err := answering(t, "/v1/gpus", 200, `{"prices":[{"model":"L4","platform":"gcp"}]}`).GPUs(t.Context(), nil)
	require.NoError(t, err)
	assert.Nil(t, unpriced.Prices[0].USDPerHour, "an absent price is nil, never 0")

	odd, err := answering(t, "/v1/gpus", 200, `{"prices":[{"model":"L4","price":"NaN","vram_gb":"Inf"},{"model":"T4","price":" 0.35 "}]}`).GPUs(t.Context(), nil)
	require.NoError(t, err)
	assert.Nil(t, odd.Prices[0].USDPerHour, "NaN is not a price")
	assert.Nil(t, odd.Prices[0].VRAMGB, "Inf is not a size")
	assert.Equal(t, 0.35, *odd.Prices[1].USDPerHour, "a number as text, white space around it")
}

func TestListsAreNeverSilentlyEmpty(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path, body string
		call       func(context.Context, *gpuprice.Client) error
	}{
		{"/v1/gpus", `{"updated_at":"2026-03-14T15:30:00Z","table":[]}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.GPUs(ctx, nil); return err }},
		{"/v1/gpus", `{"count":3}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.GPUs(ctx, nil); return err }},
		{"/v1/platforms", `{"ok":true}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.Platforms(ctx); return err }},
		{"/v1/futures/components", `{"symbol":"GCFI"}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.FuturesComponents(ctx); return err }},
		{"/v1/exchange/book", `{"market":"H100-USD"}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.OrderBook(ctx, ""); return err }},
		{"/v1/exchange/book", `{"bids":{"price":3}}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.OrderBook(ctx, ""); return err }},
		{"/v1/history", `{"from":"2026-03-01","benchmarks":[]}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.History(ctx, nil); return err }},
		{"/v1/history", `{"total":12,"snapshots":null}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.History(ctx, nil); return err }},
	} {
		err := tc.call(t.Context(), answering(t, tc.path, 200, tc.body))
		testkit.As[*sdk.DecodeError](t, err)
	}
	empty, err := answering(t, "/v1/gpus", 200, `{"count":0}`).GPUs(t.Context(), nil)
	require.NoError(t, err)
	assert.NotNil(t, empty.Prices)
	assert.Empty(t, empty.Prices, "a count of 0 without a list is an empty table")
}

func TestOrderBookLevelsAsArrays(t *testing.T) {
	t.Parallel()
	c := answering(t, "/v1/exchange/book", 200, `{"symbol":"H100-USD","bids":[[2.5,16,2],["2.49","8"]],"sells":[[2.51,4]],"trades":[{"px":2.5,"qty":4,"ts":"2026-03-14T15:29:13Z"}]}`)
	b, err := c.OrderBook(t.Context(), "")
	require.NoError(t, err)
	assert.Equal(t, "H100-USD", b.Market)
	require.Len(t, b.Bids, 2)
	assert.Equal(t, 2.5, *b.Bids[0].Price)
	assert.Equal(t, 16.0, *b.Bids[0].Quantity)
	assert.Equal(t, 2, *b.Bids[0].Orders)
	assert.Equal(t, 2.49, *b.Bids[1].Price)
	assert.Nil(t, b.Bids[1].Orders)
	require.Len(t, b.Asks, 1)
	require.Len(t, b.RecentMatches, 1)
	assert.Equal(t, t0.Add(-47*1e9), *b.RecentMatches[0].MatchedAt)
	assert.Nil(t, b.BestBid, "not sent, not invented")
}

func TestHealthReadsAJSONObjectOrAPlainTextStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, status, version string
	}{
		{"plain text", "OK", "OK", ""},
		{"plain text with a line break", "ok\n", "ok", ""},
		{"a JSON string", `"healthy"`, "healthy", ""},
		{"an object", `{"status":"ok","version":"1.2.3","time":"2026-03-14T15:30:00Z"}`, "ok", "1.2.3"},
		{"an object with ok", `{"ok":true}`, "ok", ""},
		{"an object with ok false", `{"ok":false}`, "error", ""},
		{"an object under other spellings", `{"state":"degraded","name":"gpu-price-index"}`, "degraded", ""},
	} {
		h, err := answering(t, "/v1/health", 200, tc.body).Health(t.Context())
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.status, h.Status, tc.name)
		assert.Equal(t, tc.version, h.Version, tc.name)
		assert.Equal(t, tc.body, string(h.Raw), tc.name)
		assert.Equal(t, 200, h.Response.StatusCode, tc.name)
	}
	_, err := answering(t, "/v1/health", 200, `{"status":`).Health(t.Context())
	de := testkit.As[*sdk.DecodeError](t, err)
	assert.Equal(t, "/v1/health", de.Path)
}

func TestIndexLeniency(t *testing.T) {
	t.Parallel()
	x, err := answering(t, "/v1/futures/index", 200, `{"ticker":"GCFI","index_value":"2.91","best_bid":2.9,"best_ask":2.92}`).FuturesIndex(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "GCFI", x.Symbol)
	assert.Equal(t, 2.91, *x.Value)
	assert.Equal(t, 2.9, *x.Bid)
	assert.Equal(t, 2.92, *x.Ask)
	assert.Nil(t, x.Spread)
	assert.JSONEq(t, `{"ticker":"GCFI","index_value":"2.91","best_bid":2.9,"best_ask":2.92}`, string(x.Raw))
}

func TestRedemptionWithoutAKeyIsADecodeErrorThatQuotesNothing(t *testing.T) {
	t.Parallel()
	hidden := serving(t, http.MethodPost, gpuprice.DefaultRedeemPath, 201, nil, `{"secret_value":"gpk_hidden_under_another_name"}`)
	c := testkit.New(t, gpuprice.New, gpuprice.WithBaseURL(hidden.URL))
	scan.Add("gpk_hidden_under_another_name")

	_, err := c.RedeemKey(t.Context(), "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW")
	de := testkit.As[*sdk.DecodeError](t, err)
	assert.NotContains(t, de.Excerpt, "gpk_hidden")
	assert.Len(t, hidden.Requests(), 1)

	nested := serving(t, http.MethodPost, gpuprice.DefaultRedeemPath, 200,
		nil, `{"data":{"apiKey":"gpk_nested_key_value_123","tier":"Unlimited","expiry":"2026-04-14"}}`)
	c = testkit.New(t, gpuprice.New, gpuprice.WithBaseURL(nested.URL))
	scan.Add("gpk_nested_key_value_123")
	k, err := c.RedeemKey(t.Context(), "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW")
	require.NoError(t, err)
	assert.Equal(t, "gpk_nested_key_value_123", k.Key.Reveal())
	assert.Equal(t, gpuprice.PlanUnlimited, k.Plan)
	assert.Equal(t, "2026-04-14", k.ExpiresAt.Format("2006-01-02"))
}

// notNumbers are the spellings of NaN and infinities that strconv.ParseFloat reads, and
// other texts no JSON number has: none is a value.
var notNumbers = []string{`"NaN"`, `"nan"`, `" NaN "`, `"inf"`, `"+Inf"`, `"-inf"`, `"Infinity"`, `"-Infinity"`, `"+infinity"`,
	`"1e400"`, `"-1e400"`, `"0x1p3"`, `"1_000"`, `"+1"`, `".5"`}

func TestNaNAndInfinityAreNeverValues(t *testing.T) {
	t.Parallel()
	for _, v := range notNumbers {
		h, err := answering(t, "/v1/history", 200, `{"total":`+v+`,"snapshots":[{"timestamp":`+v+`,"model":"H100","price_usd_hr":`+v+
			`}],"benchmarks":[{"model":"H100","samples":`+v+`,"min_usd_hr":`+v+`,"max_usd_hr":`+v+`,"mean_usd_hr":`+v+`,"change_pct":`+v+`}]}`).
			History(t.Context(), nil)
		require.NoError(t, err, v)
		require.Len(t, h.Snapshots, 1, v)
		assert.Nil(t, h.Total, v)
		assert.Nil(t, h.Snapshots[0].USDPerHour, v)
		assert.Nil(t, h.Snapshots[0].Timestamp, v)
		assert.Equal(t, "H100", h.Snapshots[0].Model, v)
		b := h.Benchmarks[0]
		for _, f := range []*float64{b.MinUSDHr, b.MaxUSDHr, b.MeanUSDHr, b.ChangePct} {
			assert.Nil(t, f, v)
		}
		assert.Nil(t, b.Samples, v)

		book, err := answering(t, "/v1/exchange/book", 200, `{"best_bid":`+v+`,"best_ask":`+v+`,"mid":`+v+`,"spread":`+v+
			`,"bids":[{"price":2.5,"quantity":`+v+`,"orders":`+v+`}],"asks":[[2.6,`+v+`]],"recent_matches":[{"price":2.55,"quantity":`+v+`}]}`).
			OrderBook(t.Context(), "")
		require.NoError(t, err, v)
		for _, f := range []*float64{book.BestBid, book.BestAsk, book.Mid, book.Spread, book.Bids[0].Quantity, book.Asks[0].Quantity,
			book.RecentMatches[0].Quantity} {
			assert.Nil(t, f, v)
		}
		assert.Nil(t, book.Bids[0].Orders, v)

		x, err := answering(t, "/v1/futures/index", 200, `{"value":`+v+`,"bid":`+v+`,"ask":`+v+`,"spread_bps":`+v+`,"platforms":`+v+`}`).
			FuturesIndex(t.Context())
		require.NoError(t, err, v)
		for _, f := range []*float64{x.Value, x.Bid, x.Ask, x.SpreadBPS} {
			assert.Nil(t, f, v)
		}
		assert.Nil(t, x.Platforms, v)

		comps, err := answering(t, "/v1/futures/components", 200, `{"components":[{"model":"H100","spot_price_usd_hr":`+v+
			`,"h100_equivalent":`+v+`,"weight":`+v+`}]}`).FuturesComponents(t.Context())
		require.NoError(t, err, v)
		for _, f := range []*float64{comps.Components[0].SpotPriceUSDHr, comps.Components[0].H100Equivalent, comps.Components[0].Weight} {
			assert.Nil(t, f, v)
		}
	}
}

func TestOrderBookLevelsAndMatchesUnderEverySpellingAndWithoutAPrice(t *testing.T) {
	t.Parallel()
	body := `{"model":"H100","bestBid":2.5,"bestAsk":"2.6","midPrice":2.55,` +
		`"bids":[{"price_usd_hr":2.5,"qty":4},{"priceUsdHr":"2.49","size":8,"orderCount":2},{"usd_per_hour":2.48},{"quantity":3},[null,5],["NaN",6,1]],` +
		`"asks":[{"Price":2.6},{"rate":2.61,"gpu_hours":2},{"px":"inf"}],` +
		`"trades":[{"usdPerHour":2.55,"qty":1,"executedAt":"2026-03-14T15:29:13Z"},{"side":"buy","quantity":2}]}`
	b, err := answering(t, "/v1/exchange/book", 200, body).OrderBook(t.Context(), "")
	require.NoError(t, err, "a level without a price never fails the book")
	assert.Equal(t, 2.5, *b.BestBid)
	assert.Equal(t, 2.6, *b.BestAsk)
	assert.Equal(t, 2.55, *b.Mid)

	require.Len(t, b.Bids, 6, "no level is dropped")
	prices := []*float64{}
	for _, l := range b.Bids {
		prices = append(prices, l.Price)
		assert.NotEmpty(t, l.Raw)
	}
	assert.Equal(t, []*float64{testkit.Ptr(2.5), testkit.Ptr(2.49), testkit.Ptr(2.48), nil, nil, nil}, prices)
	assert.Equal(t, 4.0, *b.Bids[0].Quantity)
	assert.Equal(t, 8.0, *b.Bids[1].Quantity)
	assert.Equal(t, 2, *b.Bids[1].Orders)
	assert.Equal(t, 3.0, *b.Bids[3].Quantity, "the quantity of a level without a price is kept")
	assert.JSONEq(t, `{"quantity":3}`, string(b.Bids[3].Raw))
	assert.Equal(t, 5.0, *b.Bids[4].Quantity)
	assert.Equal(t, 6.0, *b.Bids[5].Quantity)
	assert.Equal(t, 1, *b.Bids[5].Orders)
	assert.JSONEq(t, `["NaN",6,1]`, string(b.Bids[5].Raw))

	require.Len(t, b.Asks, 3)
	assert.Equal(t, 2.6, *b.Asks[0].Price)
	assert.Equal(t, 2.61, *b.Asks[1].Price)
	assert.Equal(t, 2.0, *b.Asks[1].Quantity)
	assert.Nil(t, b.Asks[2].Price, "infinity is not a price")

	require.Len(t, b.RecentMatches, 2)
	assert.Equal(t, 2.55, *b.RecentMatches[0].Price)
	assert.Equal(t, t0.Add(-47*time.Second), *b.RecentMatches[0].MatchedAt)
	assert.Nil(t, b.RecentMatches[1].Price, "a match without a price is kept, its price absent")
	assert.Equal(t, "buy", b.RecentMatches[1].Side)
	assert.JSONEq(t, `{"side":"buy","quantity":2}`, string(b.RecentMatches[1].Raw))
}

func TestHistoryReadsTheCheapestPriceSpellings(t *testing.T) {
	t.Parallel()
	for _, snap := range []string{
		`{"date":"2026-03-13","model":"H100","best_platform":"lambda","best_price_usd_hr":2.84}`,
		`{"timestamp":"2026-03-13T00:00:00Z","model":"H100","bestPlatform":"lambda","bestPriceUsdHr":"2.84"}`,
		`{"Time":1773360000,"GPU":"H100","Best-Platform":"lambda","Best-Price-USD-Hr":2.84}`,
		`{"ts":"2026-03-13","gpuModel":"H100","platformId":"lambda","usdPerHour":2.84}`,
	} {
		h, err := answering(t, "/v1/history", 200, `{"snapshots":[`+snap+`]}`).History(t.Context(), nil)
		require.NoError(t, err, snap)
		s := h.Snapshots[0]
		assert.Equal(t, "H100", s.Model, snap)
		assert.Equal(t, "lambda", s.Platform, snap)
		require.NotNil(t, s.USDPerHour, snap)
		assert.Equal(t, 2.84, *s.USDPerHour, snap)
		require.NotNil(t, s.Timestamp, snap)
		assert.Equal(t, "2026-03-13", s.Timestamp.Format(time.DateOnly), snap)
	}
}

func TestMemoryH100EquivalenceAndDisplayNamesAreKept(t *testing.T) {
	t.Parallel()
	for _, row := range []string{
		`{"model":"H100","platform":"aws","platform_name":"Amazon Web Services","price_usd_hr":5.48,"memory_gb":80,"h100_equivalent":1}`,
		`{"model":"H100","platform":"aws","platformName":"Amazon Web Services","priceUsdHr":5.48,"memoryGB":"80","h100Equivalent":"1"}`,
		`{"gpu":"H100","provider":"aws","provider_name":"Amazon Web Services","price":5.48,"vram":80,"h100e":1}`,
	} {
		tab, err := answering(t, "/v1/gpus", 200, `{"prices":[`+row+`]}`).GPUs(t.Context(), nil)
		require.NoError(t, err, row)
		p := tab.Prices[0]
		assert.Equal(t, "Amazon Web Services", p.PlatformName, row)
		require.NotNil(t, p.VRAMGB, row)
		assert.Equal(t, 80.0, *p.VRAMGB, row)
		require.NotNil(t, p.H100Equivalent, row)
		assert.Equal(t, 1.0, *p.H100Equivalent, row)
	}
	bare, err := answering(t, "/v1/gpus", 200, `{"prices":[{"model":"H100","price_usd_hr":5.48}]}`).GPUs(t.Context(), nil)
	require.NoError(t, err)
	assert.Nil(t, bare.Prices[0].VRAMGB, "not sent, not invented")
	assert.Nil(t, bare.Prices[0].H100Equivalent)
	assert.Empty(t, bare.Prices[0].PlatformName)

	comps, err := answering(t, "/v1/futures/components", 200,
		`{"components":[{"model":"B200","spotPriceUsdHr":5.49,"h100Equivalence":2.5,"vramGb":192,"pricePerH100e":2.196}]}`).
		FuturesComponents(t.Context())
	require.NoError(t, err)
	c := comps.Components[0]
	assert.Equal(t, 5.49, *c.SpotPriceUSDHr)
	assert.Equal(t, 2.5, *c.H100Equivalent)
	assert.Equal(t, 192.0, *c.VRAMGB)
	assert.Equal(t, 2.196, *c.PricePerH100eUSDHr)

	dir, err := answering(t, "/v1/platforms", 200, `{"platforms":[{"slug":"aws","displayName":"Amazon Web Services","onDemand":true}]}`).
		Platforms(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "aws", dir.Platforms[0].ID)
	assert.Equal(t, "Amazon Web Services", dir.Platforms[0].Name)
	assert.True(t, *dir.Platforms[0].OnDemandIndex)

	h, err := answering(t, "/v1/history", 200, `{"snapshots":[{"model":"H100","platform":"aws","platformName":"Amazon Web Services"}]}`).
		History(t.Context(), nil)
	require.NoError(t, err)
	assert.Equal(t, "Amazon Web Services", h.Snapshots[0].PlatformName)
	assert.Nil(t, h.Snapshots[0].USDPerHour, "a snapshot without a price keeps it absent, never 0")
}

func TestGuessedFieldsAcceptTheirFamilyOfSpellings(t *testing.T) {
	t.Parallel()
	x, err := answering(t, "/v1/futures/index", 200,
		`{"Ticker":"GCFI","displayName":"GPU Compute Futures Index","indexValue":"2.91","bestBid":2.9,"bestAsk":2.92,"spreadBps":68.7,`+
			`"platformCount":23,"numModels":14,"asOf":"2026-03-14T15:30:00Z"}`).FuturesIndex(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "GCFI", x.Symbol)
	assert.Equal(t, "GPU Compute Futures Index", x.Name)
	assert.Equal(t, 2.91, *x.Value)
	assert.Equal(t, 2.9, *x.Bid)
	assert.Equal(t, 2.92, *x.Ask)
	assert.Equal(t, 68.7, *x.SpreadBPS)
	assert.Equal(t, 23, *x.Platforms)
	assert.Equal(t, 14, *x.Models)
	assert.Equal(t, t0, *x.Timestamp)

	h, err := answering(t, "/v1/history", 200, `{"startTime":"2026-03-01","endTime":"2026-03-14","totalCount":1,"isTruncated":false,`+
		`"data":[{"model":"H100","value":2.84}],"benchmark":[{"gpu":"H100","sampleCount":30,"minPriceUsdHr":2.7,"maxPrice":3,"avgUsdHr":2.8,"pctChange":-1.5}]}`).
		History(t.Context(), nil)
	require.NoError(t, err)
	assert.Equal(t, "2026-03-01", h.From.Format(time.DateOnly))
	assert.Equal(t, "2026-03-14", h.To.Format(time.DateOnly))
	assert.Equal(t, 1, *h.Total)
	assert.False(t, *h.Truncated)
	assert.Equal(t, 2.84, *h.Snapshots[0].USDPerHour)
	bm := h.Benchmarks[0]
	assert.Equal(t, "H100", bm.Model)
	assert.Equal(t, 30, *bm.Samples)
	assert.Equal(t, 2.7, *bm.MinUSDHr)
	assert.Equal(t, 3.0, *bm.MaxUSDHr)
	assert.Equal(t, 2.8, *bm.MeanUSDHr)
	assert.Equal(t, -1.5, *bm.ChangePct)
}

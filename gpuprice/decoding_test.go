package gpuprice_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
)

// answering returns a client whose every request to path gets status and body.
func answering(t *testing.T, path string, status int, body string) *gpuprice.Client {
	t.Helper()
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "https://gpu.example"+path, httpmock.NewStringResponder(status, body))
	c, err := gpuprice.New(gpuprice.WithBaseURL("https://gpu.example"), gpuprice.WithHTTPClient(&http.Client{Transport: mt}),
		gpuprice.WithRetry(noRetry), gpuprice.WithAPIKey("gpk_decoding_test_key"))
	require.NoError(t, err)
	return c
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
		de := asError[*sdk.DecodeError](t, err)
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
		{"/v1/gpus", `{"updated_at":"2026-03-14T15:30:00Z","rows":[]}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.GPUs(ctx, nil); return err }},
		{"/v1/gpus", `{"count":3}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.GPUs(ctx, nil); return err }},
		{"/v1/platforms", `{"ok":true}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.Platforms(ctx); return err }},
		{"/v1/futures/components", `{"symbol":"GCFI"}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.FuturesComponents(ctx); return err }},
		{"/v1/exchange/book", `{"market":"H100-USD"}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.OrderBook(ctx, ""); return err }},
		{"/v1/exchange/book", `{"bids":[{"quantity":3}]}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.OrderBook(ctx, ""); return err }},
		{"/v1/history", `{"from":"2026-03-01","benchmarks":[]}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.History(ctx, nil); return err }},
		{"/v1/history", `{"total":12,"snapshots":null}`, func(ctx context.Context, c *gpuprice.Client) error { _, err := c.History(ctx, nil); return err }},
	} {
		err := tc.call(t.Context(), answering(t, tc.path, 200, tc.body))
		asError[*sdk.DecodeError](t, err)
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
	assert.Equal(t, 2.5, b.Bids[0].Price)
	assert.Equal(t, 16.0, *b.Bids[0].Quantity)
	assert.Equal(t, 2, *b.Bids[0].Orders)
	assert.Equal(t, 2.49, b.Bids[1].Price)
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
	de := asError[*sdk.DecodeError](t, err)
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
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodPost, "https://gpu.example/v1/keys/redeem",
		httpmock.NewStringResponder(201, `{"secret_value":"gpk_hidden_under_another_name"}`))
	c, err := gpuprice.New(gpuprice.WithBaseURL("https://gpu.example"), gpuprice.WithHTTPClient(&http.Client{Transport: mt}))
	require.NoError(t, err)
	scan.Add("gpk_hidden_under_another_name")

	_, err = c.RedeemKey(t.Context(), "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW")
	de := asError[*sdk.DecodeError](t, err)
	assert.NotContains(t, de.Excerpt, "gpk_hidden")
	assert.Equal(t, 1, mt.GetTotalCallCount())

	mt.RegisterResponder(http.MethodPost, "https://gpu.example/v1/keys/redeem",
		httpmock.NewStringResponder(200, `{"data":{"apiKey":"gpk_nested_key_value_123","tier":"Unlimited","expiry":"2026-04-14"}}`))
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

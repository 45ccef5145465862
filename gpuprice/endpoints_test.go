package gpuprice_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/testkit"
)

// object decodes raw JSON into a map, to compare the client's fields with the bytes sent.
func object(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

func TestGPUsDecodesTheTable(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)

	all, err := c.GPUs(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, all.Prices, 9*6)
	assert.Equal(t, "USD", all.Currency)
	assert.Equal(t, "hour", all.Unit)
	require.NotNil(t, all.UpdatedAt)
	assert.Equal(t, t0.Truncate(5*time.Minute), *all.UpdatedAt)
	for _, p := range all.Prices {
		raw := object(t, p.Raw)
		assert.Equal(t, raw["model"], p.Model)
		assert.Equal(t, raw["platform"], p.Platform)
		require.NotNil(t, p.USDPerHour, p.Model)
		assert.Equal(t, raw["price_usd_hr"], *p.USDPerHour)
		require.NotNil(t, p.VRAMGB)
		assert.Equal(t, raw["vram_gb"], *p.VRAMGB)
	}

	one, err := c.GPUs(t.Context(), &gpuprice.GPUsParams{Model: "H100", Platform: "lambda"})
	require.NoError(t, err)
	require.Len(t, one.Prices, 1)
	assert.Equal(t, "H100", one.Prices[0].Model)
	assert.Equal(t, "lambda", one.Prices[0].Platform)
	assert.Equal(t, 2.84, *one.Prices[0].USDPerHour)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "/v1/gpus", reqs[1].Path)
	assert.Equal(t, "H100", reqs[1].Query.Get("model"))
	assert.Equal(t, "lambda", reqs[1].Query.Get("platform"))
	assert.False(t, sentKey(reqs[1]))
	require.NotNil(t, one.Response.RateLimit, "the quota headers are exposed on every answer")
	assert.Equal(t, 10, *one.Response.RateLimit.Limit)
	assert.Equal(t, 8, *one.Response.RateLimit.Remaining)
}

func TestGPUsUnknownModelIsTyped(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)

	_, err := c.GPUs(t.Context(), &gpuprice.GPUsParams{Model: "Z9000"})
	require.ErrorIs(t, err, gpuprice.ErrUnknownModel)
	ae := testkit.As[*sdk.APIError](t, err)
	assert.Equal(t, http.StatusNotFound, ae.StatusCode)
	assert.Contains(t, ae.Message, "H100", "the service's message lists the models")
}

func TestCheapestDecodesTheDescribedShape(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)

	p, err := c.Cheapest(t.Context(), "H100")
	require.NoError(t, err)
	assert.Equal(t, "H100", p.Model)
	assert.Equal(t, "lambda", p.BestPlatform)
	assert.Equal(t, 2.84, p.BestPriceUSDHr)
	assert.Equal(t, 50.6, p.SavingPctVsDearest)
	assert.Equal(t, map[string]float64{"aws": 5.75, "azure": 4.59, "coreweave": 3.42, "gcp": 4.86, "lambda": 2.84, "runpod": 2.88}, p.AllOnDemand)
	assert.Equal(t, 200, p.Response.StatusCode)
	assert.Equal(t, "H100", srv.Requests()[0].Query.Get("model"))

	all, err := c.CheapestAll(t.Context())
	require.NoError(t, err)
	require.Len(t, all.Prices, 9)
	assert.Equal(t, withoutResponse(*p), all.Prices[2], "H100 is the third model")
}

// withoutResponse returns p as it appears inside a list: without a Response, and its raw
// object without the body's final newline.
func withoutResponse(p gpuprice.CheapestPrice) gpuprice.CheapestPrice {
	p.Response = sdk.Response{}
	p.Raw = bytes.TrimSpace(p.Raw)
	return p
}

func TestCheapestWithoutModelIsRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)

	_, err := c.Cheapest(t.Context(), "")
	ve := testkit.As[*sdk.ValidationError](t, err)
	assert.Equal(t, "model", ve.Field)
	_, err = c.GPUs(t.Context(), &gpuprice.GPUsParams{Platform: " \t"})
	assert.Equal(t, "platform", testkit.As[*sdk.ValidationError](t, err).Field)
	assert.Empty(t, srv.Requests())
}

func TestPlatformsDecodes(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)

	dir, err := c.Platforms(t.Context())
	require.NoError(t, err)
	require.Len(t, dir.Platforms, 23)
	onDemand := 0
	for _, p := range dir.Platforms {
		raw := object(t, p.Raw)
		assert.Equal(t, raw["id"], p.ID)
		assert.Equal(t, raw["name"], p.Name)
		assert.Equal(t, raw["kind"], p.Kind)
		assert.Equal(t, raw["website"], p.Website)
		require.NotNil(t, p.OnDemandIndex)
		require.NotNil(t, p.FuturesIndex)
		assert.True(t, *p.FuturesIndex)
		assert.NotEmpty(t, p.Models, p.ID)
		if *p.OnDemandIndex {
			onDemand++
		}
	}
	assert.Equal(t, 6, onDemand)
}

func TestFuturesIndexDecodes(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)

	x, err := c.FuturesIndex(t.Context())
	require.NoError(t, err)
	raw := object(t, x.Raw)
	assert.Equal(t, "GCFI", x.Symbol)
	require.NotNil(t, x.Value)
	require.NotNil(t, x.Bid)
	require.NotNil(t, x.Ask)
	require.NotNil(t, x.Spread)
	require.NotNil(t, x.SpreadBPS)
	assert.Equal(t, raw["value"], *x.Value)
	assert.Equal(t, raw["bid"], *x.Bid)
	assert.Equal(t, raw["ask"], *x.Ask)
	assert.Equal(t, raw["spread"], *x.Spread)
	assert.Less(t, *x.Bid, *x.Value)
	assert.Greater(t, *x.Ask, *x.Value)
	assert.Equal(t, "H100", x.Basis)
	require.NotNil(t, x.Platforms)
	require.NotNil(t, x.Models)
	assert.Equal(t, 23, *x.Platforms)
	assert.Equal(t, 14, *x.Models)
	require.NotNil(t, x.Timestamp)
	assert.Equal(t, t0, *x.Timestamp)
}

func TestFuturesComponentsDecode(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)

	fc, err := c.FuturesComponents(t.Context())
	require.NoError(t, err)
	require.Len(t, fc.Components, 14)
	assert.Equal(t, "GCFI", fc.Symbol)
	sum := 0.0
	for _, comp := range fc.Components {
		raw := object(t, comp.Raw)
		assert.Equal(t, raw["model"], comp.Model)
		require.NotNil(t, comp.SpotPriceUSDHr, comp.Model)
		require.NotNil(t, comp.H100Equivalent)
		require.NotNil(t, comp.PricePerH100eUSDHr)
		require.NotNil(t, comp.Weight)
		require.NotNil(t, comp.Platforms)
		assert.Equal(t, raw["spot_price_usd_hr"], *comp.SpotPriceUSDHr)
		assert.Equal(t, raw["h100_equivalent"], *comp.H100Equivalent)
		assert.Equal(t, raw["price_per_h100e_usd_hr"], *comp.PricePerH100eUSDHr)
		sum += *comp.Weight
	}
	assert.InDelta(t, 1, sum, 1e-6)
}

func TestOrderBookDecodes(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)

	book, err := c.OrderBook(t.Context(), "A100-80GB")
	require.NoError(t, err)
	assert.Equal(t, "A100-80GB-USD", book.Market)
	assert.Equal(t, "A100-80GB", book.Model)
	require.Len(t, book.Bids, 10)
	require.Len(t, book.Asks, 10)
	require.Len(t, book.RecentMatches, 5)
	require.NotNil(t, book.BestBid)
	require.NotNil(t, book.BestAsk)
	for _, level := range append(book.Bids, book.Asks...) {
		require.NotNil(t, level.Price, "every level of the fake has a price")
		assert.NotEmpty(t, level.Raw)
	}
	assert.Equal(t, *book.Bids[0].Price, *book.BestBid)
	assert.Equal(t, *book.Asks[0].Price, *book.BestAsk)
	assert.Greater(t, *book.Bids[0].Price, *book.Bids[1].Price, "highest bid first")
	assert.Less(t, *book.Asks[0].Price, *book.Asks[1].Price, "lowest ask first")
	require.NotNil(t, book.Bids[0].Quantity)
	require.NotNil(t, book.Bids[0].Orders)
	m := book.RecentMatches[0]
	require.NotNil(t, m.Price)
	assert.InDelta(t, *book.Mid, *m.Price, 0.01)
	assert.Contains(t, []string{"buy", "sell"}, m.Side)
	require.NotNil(t, m.MatchedAt)
	assert.Equal(t, t0.Add(-47*time.Second), *m.MatchedAt)
	assert.Equal(t, "A100-80GB", srv.Requests()[0].Query.Get("model"))

	def, err := c.OrderBook(t.Context(), "")
	require.NoError(t, err)
	assert.Equal(t, "H100", def.Model)
	assert.NotContains(t, srv.Requests()[1].Query, "model", "an empty model is not sent")
}

func TestHistoryDecodesWithAProKey(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	key := issueKey(srv, gpupricetest.PlanPro)
	c := newClient(t, srv, gpuprice.WithAPIKey(key))

	h, err := c.History(t.Context(), &gpuprice.HistoryParams{Model: "H100", Platform: "aws", From: t0.AddDate(0, 0, -7), Limit: 5})
	require.NoError(t, err)
	require.Len(t, h.Snapshots, 5)
	require.NotNil(t, h.Total)
	assert.Equal(t, 7, *h.Total)
	require.NotNil(t, h.Truncated)
	assert.True(t, *h.Truncated)
	assert.Equal(t, "1d", h.Interval)
	for _, s := range h.Snapshots {
		assert.Equal(t, "H100", s.Model)
		assert.Equal(t, "aws", s.Platform)
		require.NotNil(t, s.USDPerHour)
		require.NotNil(t, s.Timestamp)
		assert.Equal(t, s.Timestamp.Truncate(24*time.Hour), *s.Timestamp, "daily snapshots at midnight")
	}
	require.Len(t, h.Benchmarks, 1)
	b := h.Benchmarks[0]
	assert.Equal(t, "H100", b.Model)
	require.NotNil(t, b.Samples)
	assert.Equal(t, 7, *b.Samples)
	require.NotNil(t, b.MinUSDHr)
	require.NotNil(t, b.MaxUSDHr)
	require.NotNil(t, b.MeanUSDHr)
	assert.LessOrEqual(t, *b.MinUSDHr, *b.MeanUSDHr)
	assert.LessOrEqual(t, *b.MeanUSDHr, *b.MaxUSDHr)

	r := srv.Requests()[0]
	assert.True(t, sentKey(r))
	assert.Equal(t, "2026-03-07T15:30:00Z", r.Query.Get("from"))
	assert.Equal(t, "5", r.Query.Get("limit"))
	require.NotNil(t, h.Response.RateLimit)
	assert.Equal(t, 1000, *h.Response.RateLimit.Limit, "the Pro quota")
}

func TestHealthIsPublic(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	key := issueKey(srv, gpupricetest.PlanPro)
	c := newClient(t, srv, gpuprice.WithAPIKey(key))

	h, err := c.Health(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "ok", h.Status)
	assert.Equal(t, "gpu-price-index", h.Service)
	assert.Equal(t, "1.0.0", h.Version)
	require.NotNil(t, h.Time)
	assert.Equal(t, t0, *h.Time)
	require.NotNil(t, h.LastRefresh)
	assert.False(t, sentKey(srv.Requests()[0]), "the key is not sent to the public endpoint")
}

func TestEveryEndpointUnderABasePath(t *testing.T) {
	t.Parallel()
	var paths []string
	srv := startFake(t)
	proxy := &http.Client{Transport: rewrite(func(r *http.Request) { paths = append(paths, r.URL.Path) })}
	c, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL+"/proxy"), gpuprice.WithHTTPClient(proxy), gpuprice.WithRetry(testkit.NoRetry))
	require.NoError(t, err)
	_, _ = c.Health(t.Context())
	require.Equal(t, []string{"/proxy/v1/health"}, paths)
}

// rewrite is a transport that records each request, then sends it to the fake without the
// /proxy prefix.
type rewrite func(*http.Request)

// RoundTrip records req and strips the prefix.
func (f rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	f(req)
	out := req.Clone(req.Context())
	out.URL.Path = out.URL.Path[len("/proxy"):]
	out.URL.RawPath = ""
	return http.DefaultTransport.RoundTrip(out)
}

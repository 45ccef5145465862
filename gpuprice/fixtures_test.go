package gpuprice_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/internal/fixturetest"
	"github.com/agentapis/sdk/internal/testkit"
)

// fixtureKey is the Pro key the recorded requests carry.
const fixtureKey = "gpk_fixture_pro_key_0001"

// fixtureClient returns a client, without retries, whose one request is answered by the
// recorded exchange testdata/fixtures/name, which checks what the client sent and must be
// used once.
func fixtureClient(t *testing.T, name string, opts ...gpuprice.Option) *gpuprice.Client {
	t.Helper()
	scan.Add(fixtureKey, "gpk_fixture_issued_key_0002")
	defaults := []gpuprice.Option{gpuprice.WithBaseURL("https://gpu.example"),
		gpuprice.WithHTTPClient(fixturetest.Client(t, filepath.Join("testdata", "fixtures"), name)), gpuprice.WithRetry(testkit.NoRetry)}
	return testkit.New(t, gpuprice.New, append(defaults, opts...)...)
}

func TestFixtureCheapest(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "cheapest.json")
	p, err := c.Cheapest(t.Context(), "H100")
	require.NoError(t, err)
	assert.Equal(t, "lambda", p.BestPlatform)
	assert.Equal(t, 2.84, p.BestPriceUSDHr)
	assert.Equal(t, 50.6, p.SavingPctVsDearest)
	assert.Len(t, p.AllOnDemand, 6)
	assert.Equal(t, "req-c1", p.Response.RequestID)
	assert.Equal(t, 9, *p.Response.RateLimit.Remaining)
}

func TestFixtureGPUsWithTheKeyOnFreeEndpoints(t *testing.T) {
	t.Parallel()
	// The recorded request carries the key, as WithKeyOnFreeEndpoints sends it, and the answer
	// counts it against the Pro plan's 1,000 a day.
	c := fixtureClient(t, "gpus.json", gpuprice.WithAPIKey(fixtureKey), gpuprice.WithKeyOnFreeEndpoints())
	tab, err := c.GPUs(t.Context(), &gpuprice.GPUsParams{Model: "A100-80GB", Platform: "aws"})
	require.NoError(t, err)
	require.Len(t, tab.Prices, 1)
	assert.Equal(t, 4.1, *tab.Prices[0].USDPerHour)
	assert.Equal(t, 998, *tab.Response.RateLimit.Remaining)
}

func TestFixtureFuturesIndex(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "futures_index.json")
	x, err := c.FuturesIndex(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2.9134, *x.Value)
	assert.Equal(t, 0.0146, *x.Spread)
	assert.Equal(t, 50.0, *x.SpreadBPS)
	assert.Equal(t, "USD per H100-equivalent hour", x.Unit)
}

func TestFixtureOrderBook(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "order_book.json")
	b, err := c.OrderBook(t.Context(), "H200")
	require.NoError(t, err)
	assert.Equal(t, 3.6, *b.Mid)
	require.Len(t, b.Bids, 2)
	assert.Equal(t, 32.0, *b.Bids[1].Quantity)
	assert.Equal(t, "buy", b.RecentMatches[0].Side)
}

func TestFixtureHistory(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "history.json", gpuprice.WithAPIKey(fixtureKey))
	h, err := c.History(t.Context(), &gpuprice.HistoryParams{Model: "H100",
		From: time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC), Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, 18, *h.Total)
	require.Len(t, h.Snapshots, 2)
	assert.Equal(t, 2.84, *h.Snapshots[1].USDPerHour)
	assert.Equal(t, -1.2, *h.Benchmarks[0].ChangePct)
}

func TestFixtureRedeem(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "redeem.json", gpuprice.WithAPIKey(fixtureKey))
	k, err := c.RedeemKey(t.Context(), "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW")
	require.NoError(t, err)
	// The exchange checked that it was sent once, without the client's key (X-Api-Key "").
	assert.Equal(t, "gpk_fixture_issued_key_0002", k.Key.Reveal())
	assert.Equal(t, gpuprice.PlanPro, k.Plan)
	assert.Equal(t, time.Date(2026, 4, 14, 15, 30, 0, 0, time.UTC), *k.ExpiresAt)
	assert.Equal(t, 201, k.Response.StatusCode)
}

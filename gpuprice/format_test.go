package gpuprice_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice"
)

// TestResultsPrintValuesNotAddresses holds that a decoded result prints its optional numbers
// with %v and %+v, where fmt alone printed addresses ("USDPerHour:0x2836335c2a38").
func TestResultsPrintValuesNotAddresses(t *testing.T) {
	t.Parallel()
	var table gpuprice.PriceTable
	require.NoError(t, json.Unmarshal([]byte(`{"prices":[{"model":"H100","platform":"aws","usd_per_hour":2.49,"vram_gb":80}]}`), &table))
	text := fmt.Sprintf("%+v", table)
	assert.NotContains(t, text, "0x")
	assert.Contains(t, text, "{Model:H100 Platform:aws USDPerHour:2.49 PlatformName: VRAMGB:80 H100Equivalent:<nil> UpdatedAt:<nil> ")
	assert.Contains(t, fmt.Sprintf("%v", table.Prices[0]), "{H100 aws 2.49  80 <nil> <nil> ")

	var book gpuprice.OrderBook
	require.NoError(t, json.Unmarshal([]byte(`{"model":"H100","best_bid":2.1,"bids":[{"price":2.1,"size":8,"orders":3}],"asks":[]}`), &book))
	text = fmt.Sprintf("%+v", &book)
	assert.NotContains(t, text, "0x")
	assert.Contains(t, text, "BestBid:2.1 ")
	assert.Contains(t, text, "Bids:[{Price:2.1 Quantity:8 Orders:3 ")

	// A result read through the client: its Response's rate limit prints its numbers too.
	srv := startFake(t)
	index, err := newClient(t, srv).FuturesIndex(t.Context())
	require.NoError(t, err)
	require.NotNil(t, index.Response.RateLimit)
	require.NotNil(t, index.Value)
	text = fmt.Sprintf("%+v", index)
	assert.NotContains(t, text, "0x")
	assert.Contains(t, text, fmt.Sprintf("Value:%v ", *index.Value))
	assert.Contains(t, text, fmt.Sprintf("RateLimit:{Limit:%d Remaining:%d ", *index.Response.RateLimit.Limit, *index.Response.RateLimit.Remaining))
}

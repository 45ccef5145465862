package reportstore

import (
	"strings"
	"testing"

	"github.com/agentapis/sdk/x402/usdc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKnownReportsIsTheDescriptionsTable(t *testing.T) {
	t.Parallel()
	ks := KnownReports()
	require.Len(t, ks, 44)
	ids := map[string]bool{}
	for _, k := range ks {
		assert.True(t, strings.HasPrefix(k.ID, "macro-"), k.ID)
		assert.False(t, ids[k.ID], "duplicate %s", k.ID)
		ids[k.ID] = true
		assert.NotEmpty(t, k.Measures, k.ID)
		if k.ID == "macro-tariffs" {
			assert.Nil(t, k.Price, "not stated in the description")
			assert.Nil(t, k.Economies, "not stated in the description, so absent rather than 0")
			continue
		}
		require.NotNil(t, k.Price, k.ID)
		require.NotNil(t, k.Economies, k.ID)
		assert.True(t, *k.Economies == 10 || *k.Economies == 20, k.ID)
	}
	assert.Equal(t, KnownReport{ID: "macro-gdp", Measures: "GDP, current US$", Price: ks[0].Price, Economies: intRef(20)}, ks[0])
	assert.Equal(t, "$0.13", usdc.Format(ks[0].Price))
	byID := map[string]KnownReport{}
	for _, k := range ks {
		byID[k.ID] = k
	}
	assert.Equal(t, "$0.28", usdc.Format(byID["macro-current-account"].Price))
	assert.Equal(t, "$0.07", usdc.Format(byID["macro-patents"].Price))
	require.NotNil(t, byID["macro-gini"].Economies)
	assert.Equal(t, 10, *byID["macro-gini"].Economies)

	// The result is a copy: changing it leaves the table alone.
	ks[0].Price.SetInt64(1)
	*ks[0].Economies = 1
	ks[1].ID = "changed"
	again := KnownReports()
	assert.Equal(t, "$0.13", usdc.Format(again[0].Price))
	assert.Equal(t, intRef(20), again[0].Economies)
	assert.Equal(t, "macro-gdp-per-capita", again[1].ID)
}

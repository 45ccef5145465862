//go:build splitpending

package budgetpg_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budgetpg"
)

// Through x402: a Budget given other limits than its fleet's fails to be made.
func TestBudgetWithOtherLimitsFails(t *testing.T) {
	t.Parallel()
	budget := budgetName(t)
	first, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(budget))
	require.NoError(t, err)
	defer first.Close()
	_, err = x402.NewBudget(big.NewInt(500), x402.WithStore(first), x402.WithWindowLimit(time.Hour, nil, 10))
	require.NoError(t, err)

	second, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(budget))
	require.NoError(t, err)
	defer second.Close()
	_, err = x402.NewBudget(big.NewInt(600), x402.WithStore(second), x402.WithWindowLimit(time.Hour, nil, 10))
	require.ErrorIs(t, err, budgetpg.ErrLimitsDiffer)
	assert.Contains(t, err.Error(), "total 500, window 1h0m0s: 10 payments")
	assert.Contains(t, err.Error(), "total 600, window 1h0m0s: 10 payments")
}

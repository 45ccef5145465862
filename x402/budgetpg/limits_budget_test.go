package budgetpg_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
)

// Through package budget: a Budget given other limits than its fleet's fails to be made.
func TestBudgetWithOtherLimitsFails(t *testing.T) {
	t.Parallel()
	name := budgetName(t)
	first, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(name))
	require.NoError(t, err)
	defer first.Close()
	_, err = budget.New(big.NewInt(500), budget.WithStore(first), budget.WithWindowLimit(time.Hour, nil, 10))
	require.NoError(t, err)

	second, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(name))
	require.NoError(t, err)
	defer second.Close()
	_, err = budget.New(big.NewInt(600), budget.WithStore(second), budget.WithWindowLimit(time.Hour, nil, 10))
	require.ErrorIs(t, err, ledger.ErrLimitsDiffer)
	assert.Contains(t, err.Error(), "total 500, window 1h0m0s: 10 payments")
	assert.Contains(t, err.Error(), "total 600, window 1h0m0s: 10 payments")
}

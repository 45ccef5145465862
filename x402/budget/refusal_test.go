package budget_test

import (
	"context"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/usdc"
)

// spend reserves, signs and commits amount on b, as a payment that went through.
func spend(t *testing.T, b *budget.Budget, amount string) {
	t.Helper()
	ctx := t.Context()
	h, err := b.Reserve(ctx, ledger.Reservation{Amount: mustParse(t, amount), PayTo: payeeA})
	require.NoError(t, err)
	require.NoError(t, h.Sign(ctx, ledger.Signature{ID: "0x" + h.ID().String(), Expires: time.Now().Add(time.Minute)}))
	require.NoError(t, h.Commit(ctx))
}

// mustParse reads a dollar amount.
func mustParse(t *testing.T, dollars string) *big.Int {
	t.Helper()
	v, err := usdc.Parse(dollars)
	require.NoError(t, err)
	return v
}

// assertRefusesEverything checks that b, which spent $0.05 under a limit of $0.02, refuses
// every payment, the smallest included, saying that it spent more than its limit.
func assertRefusesEverything(t *testing.T, b *budget.Budget) {
	t.Helper()
	for _, amount := range []string{"0.01", "0.000001", "0"} {
		_, err := b.Reserve(context.Background(), ledger.Reservation{Amount: mustParse(t, amount), PayTo: payeeA})
		var le *budget.LimitError
		require.ErrorAs(t, err, &le, amount)
		assert.ErrorIs(t, err, budget.ErrBudgetExceeded)
		assert.Equal(t, usdc.Cents(5), le.Spent)
		assert.Equal(t, "budget: spent $0.05 is above the limit of $0.02; every payment is refused until the limit is raised: "+
			"payment would exceed the total budget: amount "+usdc.Format(mustParse(t, amount))+", $0.00 left of $0.02", err.Error())
	}
}

func TestBudgetReopenedBelowWhatItSpentRefusesEveryPayment(t *testing.T) {
	t.Parallel()
	store := ledger.NewMemory(sdktest.NewClock(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)))
	first, err := budget.New(usdc.Cents(10), budget.WithStore(store))
	require.NoError(t, err)
	spend(t, first, "0.05")

	again, err := budget.New(usdc.Cents(2), budget.WithStore(store), budget.WithLimitChange())
	require.NoError(t, err)
	assertRefusesEverything(t, again)
	left, limited, err := again.Left(t.Context())
	require.NoError(t, err)
	assert.True(t, limited)
	assert.Zero(t, left.Sign())

	// Spent at the limit exactly is a budget used up, not one over its limit.
	exact, err := budget.New(usdc.Cents(5), budget.WithStore(store), budget.WithLimitChange())
	require.NoError(t, err)
	_, err = exact.Reserve(t.Context(), ledger.Reservation{Amount: usdc.Cents(1), PayTo: payeeA})
	var le *budget.LimitError
	require.ErrorAs(t, err, &le)
	assert.Nil(t, le.Spent)
	assert.Equal(t, "budget: payment would exceed the total budget: amount $0.01, $0.00 left of $0.05", err.Error())
}

func TestBudgetFileReopenedBelowWhatItSpentRefusesEveryPayment(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "budget.db")
	store, err := budgetfile.Open(path)
	require.NoError(t, err)
	first, err := budget.New(usdc.Cents(10), budget.WithStore(store))
	require.NoError(t, err)
	spend(t, first, "0.05")
	require.NoError(t, store.Close())

	store, err = budgetfile.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	_, err = budget.New(usdc.Cents(2), budget.WithStore(store))
	require.ErrorIs(t, err, ledger.ErrLimitsDiffer, "a file keeps its limits unless they are changed on purpose")
	again, err := budget.New(usdc.Cents(2), budget.WithStore(store), budget.WithLimitChange())
	require.NoError(t, err)
	assertRefusesEverything(t, again)
}

func TestRefusalSaysWhatIsLeftOfWhat(t *testing.T) {
	t.Parallel()
	b, err := budget.New(usdc.Dollars(6))
	require.NoError(t, err)
	spend(t, b, "5.00")
	_, err = b.Reserve(t.Context(), ledger.Reservation{Amount: usdc.Dollars(5), PayTo: payeeA})
	require.ErrorIs(t, err, budget.ErrBudgetExceeded)
	assert.Equal(t, "budget: payment would exceed the total budget: amount $5.00, $1.00 left of $6.00", err.Error())
}

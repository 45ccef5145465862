package budget_test

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/ledger/ledgertest"
)

// A call whose answer was lost after the store applied it (a context cancelled once the
// database committed, a connection cut) is finished by the identifier the budget made before
// the call: the caller was told it failed and sent nothing, so what it held is given back, in
// the same process, without waiting for a restart.
func TestLostAnswersAreFinishedWithoutARestart(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		fail   string
		signed bool // the hold is signed before the lost call
	}{
		"a reservation applied, its answer lost": {fail: "reserve"},
		"a signature recorded, its answer lost":  {fail: "sign"},
		"a release applied, its answer lost":     {fail: "mark released"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := ledgertest.NewFaulty(ledger.NewMemory(nil))
			b, err := budget.New(big.NewInt(1_000), budget.WithStore(store))
			require.NoError(t, err)
			ctx := t.Context()
			store.FailAfter(tc.fail)
			h, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(100), PayTo: "0xa"})
			if err == nil {
				if tc.fail == "sign" {
					err = h.Sign(ctx, ledger.Signature{ID: "0x1"})
				} else {
					err = h.Release(ctx)
				}
			}
			var se *budget.StoreError
			require.ErrorAs(t, err, &se)
			assert.ErrorIs(t, err, ledgertest.ErrFault)
			require.NoError(t, b.Wait(ctx))
			assert.Zero(t, budgettest.Reserved(t, b).Sign(), "nothing stays held for a call the caller was told failed")
			assert.Zero(t, budgettest.Spent(t, b).Sign())
			assert.Empty(t, budgettest.Outstanding(t, b))
		})
	}

	t.Run("a commit applied, its answer lost, is not undone", func(t *testing.T) {
		t.Parallel()
		store := ledgertest.NewFaulty(ledger.NewMemory(nil))
		b, err := budget.New(big.NewInt(1_000), budget.WithStore(store))
		require.NoError(t, err)
		ctx := t.Context()
		h, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(100)})
		require.NoError(t, err)
		require.NoError(t, h.Sign(ctx, ledger.Signature{ID: "0x1"}))
		store.Fail("mark committed")
		require.Error(t, h.Commit(ctx), "the commit did not reach the store")
		store.Heal("mark committed")
		require.NoError(t, b.Wait(ctx))
		assert.Equal(t, "100", budgettest.Spent(t, b).String(), "the commit is made again until the store answers")
		assert.Zero(t, budgettest.Reserved(t, b).Sign())
	})

	t.Run("a reservation that never landed leaves nothing to finish", func(t *testing.T) {
		t.Parallel()
		store := ledgertest.NewFaulty(ledger.NewMemory(nil))
		b, err := budget.New(big.NewInt(1_000), budget.WithStore(store))
		require.NoError(t, err)
		store.Fail("reserve")
		_, err = b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(100)})
		require.Error(t, err)
		require.NoError(t, b.Wait(t.Context()))
		assert.Zero(t, budgettest.Reserved(t, b).Sign())
	})
}

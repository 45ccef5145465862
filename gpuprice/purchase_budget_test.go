package gpuprice_test

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/ledger/ledgertest"
	"github.com/agentapis/sdk/x402/usdc"
)

// faultyBudget returns a budget of limit whose store fails as set.
func faultyBudget(t *testing.T, limit int64, set func(*ledgertest.Faulty)) *budget.Budget {
	t.Helper()
	store := ledgertest.NewFaulty(ledger.NewMemory(sdk.SystemClock()))
	set(store)
	b, err := budget.New(big.NewInt(limit), budget.WithStore(store))
	require.NoError(t, err)
	return b
}

func TestBuyKeySendsNothingWhenTheSignatureCannotBeRecorded(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, key := newPayer(t, srv, usdc.Dollars(8))
	spend := faultyBudget(t, 10_000_000, func(s *ledgertest.Faulty) { s.Fail("sign") })

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, spend))
	var se *budget.StoreError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "sign", se.Op)
	assert.Zero(t, srv.RPCCalls()["sendTransaction"], "nothing was handed to the node")
	assert.Empty(t, srv.Transactions())
	assert.Equal(t, "$8.00", usdc.Format(srv.USDCBalance(key.PublicKey())))
	assertBudget(t, spend, 0, 0)
}

func TestBuyKeyWhoseCommitCannotBeRecordedStillReturnsTheKey(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	budget := faultyBudget(t, 10_000_000, func(s *ledgertest.Faulty) { s.Fail("mark committed") })

	bought, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	require.NoError(t, err, "the payment went through: the key is the caller's")
	scan.Add(bought.Key.Reveal(), bought.TxSignature.Reveal())
	assertBudget(t, budget, 0, 5_000_000)
	out := budgettest.Outstanding(t, budget)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.Signed, out[0].State, "it stays counted, as signed")
	assert.Equal(t, bought.TxSignature.Reveal(), out[0].ID)
}

func TestBuyKeyWithinTheTreasurysLimit(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	spend := budgetOf(t, -1, budget.WithPayeeLimitFor(srv.Treasury.String(), big.NewInt(4_000_000)))

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, spend))
	le := testkit.As[*budget.LimitError](t, err)
	assert.ErrorIs(t, err, x402.ErrPayeeLimitExceeded)
	assert.Equal(t, srv.Treasury.String(), le.PayTo)
	assert.Equal(t, "5000000", le.Amount.String())
	assert.Empty(t, srv.RPCCalls(), "not even the balance was read")
	assertBudget(t, spend, 0, 0)
}

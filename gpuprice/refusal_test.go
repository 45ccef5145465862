package gpuprice_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/usdc"
)

// TestBuyKeyRefusalSaysWhatIsLeftOfWhatUnderItsOwnName holds that a budget's refusal of the
// key purchase reads "gpuprice: ...", not "x402: ..." or "budget: ...", and says what is left
// of what.
func TestBuyKeyRefusalSaysWhatIsLeftOfWhatUnderItsOwnName(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, _ := newPayer(t, srv, usdc.Dollars(50))
	spend := budgetOf(t, 6_000_000)
	_, err := spend.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(5_000_000)}) // another payment under way
	require.NoError(t, err)

	_, err = c.BuyKey(t.Context(), purchase(srv, payer, spend))
	require.ErrorIs(t, err, x402.ErrBudgetExceeded)
	assert.Equal(t, "gpuprice", testkit.As[*budget.LimitError](t, err).Service)
	assert.Equal(t, "gpuprice: payment would exceed the total budget: amount $5.00, $1.00 left of $6.00", err.Error())
	assert.Empty(t, srv.RPCCalls(), "refused before anything was read or sent")
}

// TestBuyKeyOnABudgetOverItsLimitSaysSo holds that a budget reopened with a lower limit than
// it had spent refuses the key purchase saying so, under gpuprice's name.
func TestBuyKeyOnABudgetOverItsLimitSaysSo(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, _ := newPayer(t, srv, usdc.Dollars(50))
	store := ledger.NewMemory(sdk.SystemClock())
	first, err := budget.New(usdc.Dollars(10), budget.WithStore(store))
	require.NoError(t, err)
	h, err := first.Reserve(t.Context(), ledger.Reservation{Amount: usdc.Dollars(5)})
	require.NoError(t, err)
	require.NoError(t, h.Sign(t.Context(), ledger.Signature{ID: "earlier", Expires: time.Now().Add(time.Minute)}))
	require.NoError(t, h.Commit(t.Context()))
	reopened, err := budget.New(usdc.Dollars(2), budget.WithStore(store), budget.WithLimitChange())
	require.NoError(t, err)

	_, err = c.BuyKey(t.Context(), purchase(srv, payer, reopened))
	require.ErrorIs(t, err, x402.ErrBudgetExceeded)
	assert.Equal(t, "gpuprice: spent $5.00 is above the limit of $2.00; every payment is refused until the limit is raised: "+
		"payment would exceed the total budget: amount $5.00, $0.00 left of $2.00", err.Error())
	assert.Empty(t, srv.RPCCalls())
}

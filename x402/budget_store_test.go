package x402_test

import (
	"context"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/signertest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/ledger/ledgertest"
	"github.com/agentapis/sdk/x402/x402test"
)

// payerOnFaultyStore returns a shop at price 100, a payer whose budget lives in a store
// failing as set, and the store.
func payerOnFaultyStore(t *testing.T, fault x402test.SettlementFault, set func(*ledgertest.Faulty)) (*shop, *x402.Payer, *signertest.EVM, *http.Client, *ledgertest.Faulty) {
	t.Helper()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100), Fault: func(*http.Request) x402test.SettlementFault { return fault }}, nil)
	store := ledgertest.NewFaulty(ledger.NewMemory(sdk.SystemClock()))
	set(store)
	b, err := budget.New(big.NewInt(1_000), budget.WithStore(store))
	require.NoError(t, err)
	payer, signer, client := newPayer(t, s.f, 1_000, x402.Policy{}, x402.WithBudget(b), x402.WithResend(0, 0))
	return s, payer, signer, client, store
}

// storeOps are the operations of a store a test may make fail.
var storeOps = []string{"reserve", "sign", "mark committed", "mark refused", "mark in doubt", "mark released", "discard",
	"totals", "outstanding", "hold state"}

// healAndWait makes store answer again, as a database that came back, and waits until the
// payer's budget has finished every operation whose answer was lost.
func healAndWait(t *testing.T, store *ledgertest.Faulty, payer *x402.Payer) {
	t.Helper()
	for _, op := range storeOps {
		store.Heal(op)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.NoError(t, payer.Budget().Wait(ctx))
}

func TestStoreFailuresBeforeSendingSendNothing(t *testing.T) {
	t.Parallel()
	// Every failure here is a lost answer (the store may or may not have applied the call):
	// the budget finishes each once the store answers again (Budget.Wait). The caller was told
	// that the reservation or the signature failed and sent nothing, so the hold is released.
	for name, tc := range map[string]struct {
		set      func(*ledgertest.Faulty)
		signed   int64 // signatures made
		reserved int64 // what stays counted once the budget finished the lost answers
	}{
		"reserve fails":                   {func(s *ledgertest.Faulty) { s.Fail("reserve") }, 0, 0},
		"sign fails":                      {func(s *ledgertest.Faulty) { s.Fail("sign") }, 1, 0},
		"sign applies, then fails":        {func(s *ledgertest.Faulty) { s.FailAfter("sign") }, 1, 0},
		"sign and the release both fail":  {func(s *ledgertest.Faulty) { s.Fail("sign"); s.Fail("mark released") }, 1, 0},
		"sign fails, the release is lost": {func(s *ledgertest.Faulty) { s.Fail("sign"); s.FailAfter("mark released") }, 1, 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, payer, signer, client, store := payerOnFaultyStore(t, x402test.NoFault, tc.set)
			_, _, err := get(t, client, s.srv.URL+"/x")
			var se *budget.StoreError
			require.ErrorAs(t, err, &se)
			assert.ErrorIs(t, err, ledgertest.ErrFault)
			assert.False(t, se.RetryableError(), "a retry layer must not pay again")
			assert.Empty(t, s.payments.all(), "no payment was sent")
			assert.Empty(t, s.f.Settlements())
			assert.Equal(t, tc.signed, signer.Signed())
			healAndWait(t, store, payer)
			assert.Equal(t, big.NewInt(tc.reserved).String(), budgettest.Reserved(t, payer).String(),
				"a hold the caller was told failed is released once the budget finished it")
			assert.Zero(t, budgettest.Spent(t, payer).Sign())
			assert.Empty(t, budgettest.Outstanding(t, payer))
			assert.Empty(t, s.payments.all(), "nothing was sent meanwhile")
		})
	}
}

func TestStoreFailuresAfterSendingReleaseNothing(t *testing.T) {
	t.Parallel()
	t.Run("a 2xx whose commit fails is still the answer", func(t *testing.T) {
		t.Parallel()
		s, payer, _, client, store := payerOnFaultyStore(t, x402test.NoFault, func(s *ledgertest.Faulty) { s.Fail("mark committed") })
		resp, body, err := get(t, client, s.srv.URL+"/x")
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "the goods", body)
		assert.Len(t, s.f.Settlements(), 1)
		assert.Zero(t, budgettest.Spent(t, payer).Sign())
		assert.Equal(t, "100", budgettest.Reserved(t, payer).String(), "the payment stays counted, as signed")
		require.Len(t, budgettest.Outstanding(t, payer), 1)
		assert.Equal(t, ledger.Signed, budgettest.Outstanding(t, payer)[0].State)

		healAndWait(t, store, payer)
		assert.Equal(t, "100", budgettest.Spent(t, payer).String(), "once the store answers, the budget commits it")
		assert.Zero(t, budgettest.Reserved(t, payer).Sign())
	})
	t.Run("an outcome in doubt that cannot be booked stays counted", func(t *testing.T) {
		t.Parallel()
		s, payer, _, client, store := payerOnFaultyStore(t, x402test.FaultErrorAfterSettle, func(s *ledgertest.Faulty) { s.Fail("mark in doubt") })
		_, _, err := get(t, client, s.srv.URL+"/x")
		var ue *x402.PaymentUnconfirmedError
		require.ErrorAs(t, err, &ue, "the outcome is reported as it is, whatever the store")
		assert.Equal(t, "100", budgettest.Reserved(t, payer).String())
		assert.Equal(t, ledger.Signed, budgettest.Outstanding(t, payer)[0].State)

		healAndWait(t, store, payer)
		assert.Equal(t, "100", budgettest.Reserved(t, payer).String())
		assert.Equal(t, ledger.InDoubt, budgettest.Outstanding(t, payer)[0].State, "once the store answers, the budget books the doubt")
	})
	t.Run("a refusal that cannot be booked stays counted", func(t *testing.T) {
		t.Parallel()
		s, payer, _, client, store := payerOnFaultyStore(t, x402test.FaultChallengeAfterSettle, func(s *ledgertest.Faulty) { s.Fail("mark refused") })
		_, _, err := get(t, client, s.srv.URL+"/x")
		var rej *x402.PaymentRejectedError
		require.ErrorAs(t, err, &rej)
		assert.Equal(t, "100", budgettest.Reserved(t, payer).String())
		assert.Equal(t, ledger.Signed, budgettest.Outstanding(t, payer)[0].State, "not even the refusal's expiry releases it")

		healAndWait(t, store, payer)
		assert.Equal(t, "100", budgettest.Reserved(t, payer).String(), "a refused payment counts until it expires")
		assert.Equal(t, ledger.Refused, budgettest.Outstanding(t, payer)[0].State, "once the store answers, the budget books the refusal")
	})
}

func TestStoreFailuresNeverReadAsZero(t *testing.T) {
	t.Parallel()
	store := ledgertest.NewFaulty(ledger.NewMemory(sdk.SystemClock()))
	b, err := budget.New(big.NewInt(10), budget.WithStore(store))
	require.NoError(t, err)
	payer, err := x402.NewPayer(x402.Policy{}, exact(t, newSigner(t)), x402.WithBudget(b))
	require.NoError(t, err)
	assert.NotNil(t, budgettest.Outstanding(t, b), "nothing outstanding is an empty list")
	store.Fail("totals")
	store.Fail("outstanding")
	ctx := t.Context()
	spent, reserved, err := b.Totals(ctx)
	var se *budget.StoreError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "totals", se.Op)
	assert.Nil(t, spent, "an unknown total is not 0")
	assert.Nil(t, reserved)
	for name, figure := range map[string]func(context.Context) (*big.Int, error){
		"budget spent": b.Spent, "budget reserved": b.Reserved, "payer spent": payer.Spent, "payer reserved": payer.Reserved,
	} {
		v, err := figure(ctx)
		require.ErrorAs(t, err, &se, name)
		assert.ErrorIs(t, err, ledgertest.ErrFault, name)
		assert.Nil(t, v, "%s: an unknown total is not 0", name)
	}
	for name, list := range map[string]func(context.Context) ([]ledger.Outstanding, error){"budget": b.Outstanding, "payer": payer.Outstanding} {
		out, err := list(ctx)
		require.ErrorAs(t, err, &se, name)
		assert.Equal(t, "outstanding", se.Op)
		assert.Nil(t, out, "%s: an unreadable listing is not an empty one", name)
	}
}

// The budget's states are the store's, value for value.
func TestHoldStatesAreTheStores(t *testing.T) {
	t.Parallel()
	for want, got := range map[ledger.State]ledger.State{
		ledger.Reserved: ledger.Reserved, ledger.Signed: ledger.Signed, ledger.Refused: ledger.Refused,
		ledger.InDoubt: ledger.InDoubt, ledger.Committed: ledger.Committed, ledger.Released: ledger.Released,
	} {
		assert.Equal(t, want, ledger.State(got))
	}
	assert.Equal(t, "in doubt", ledger.InDoubt.String())
}

// A payment's hold records what a reconciler needs to look it up: the payer, the asset, the
// nonce and the expiry, listed by Outstanding while the payment is in doubt.
func TestOutstandingNamesThePayerAndTheAsset(t *testing.T) {
	t.Parallel()
	f := x402test.NewFacilitator()
	srv := httptest.NewServer(x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100),
		Fault: func(*http.Request) x402test.SettlementFault { return x402test.FaultErrorAfterSettle }}, okHandler))
	t.Cleanup(srv.Close)
	payer, signer, client := newPayer(t, f, 1000, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithResend(0, 0))
	_, _, err := get(t, client, srv.URL+"/x")
	var unconfirmed *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &unconfirmed)
	out := budgettest.Outstanding(t, payer)
	require.Len(t, out, 1)
	assert.Equal(t, signer.Address(), out[0].Payer)
	assert.Equal(t, evm.USDCBase, out[0].Asset)
	assert.Equal(t, unconfirmed.ID, out[0].ID)
	assert.Equal(t, "x402 "+evm.NetworkBase, out[0].Rail)
	assert.Equal(t, ledger.InDoubt, out[0].State)
}

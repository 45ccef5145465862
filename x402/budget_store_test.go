package x402_test

import (
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/ledger/ledgertest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/x402test"
)

// payerOnFaultyStore returns a shop at price 100 and a payer whose budget lives in a store
// failing as set.
func payerOnFaultyStore(t *testing.T, fault x402test.SettlementFault, set func(*ledgertest.Faulty)) (*shop, *x402.Payer, *countingSigner, *http.Client) {
	t.Helper()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100), Fault: func(*http.Request) x402test.SettlementFault { return fault }}, nil)
	store := ledgertest.NewFaulty(ledger.NewMemory())
	set(store)
	budget, err := budget.New(big.NewInt(1_000), budget.WithStore(store))
	require.NoError(t, err)
	payer, signer, client := newPayer(t, s.f, 1_000, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithBudget(budget), x402.WithResend(0, 0))
	return s, payer, signer, client
}

func TestStoreFailuresBeforeSendingSendNothing(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		set      func(*ledgertest.Faulty)
		signed   int64 // signatures made
		reserved int64 // what stays counted
	}{
		"reserve fails":                   {func(s *ledgertest.Faulty) { s.Fail("reserve") }, 0, 0},
		"sign fails":                      {func(s *ledgertest.Faulty) { s.Fail("sign") }, 1, 0},
		"sign applies, then fails":        {func(s *ledgertest.Faulty) { s.FailAfter("sign") }, 1, 100},
		"sign and the release both fail":  {func(s *ledgertest.Faulty) { s.Fail("sign"); s.Fail("mark released") }, 1, 100},
		"sign fails, the release is lost": {func(s *ledgertest.Faulty) { s.Fail("sign"); s.FailAfter("mark released") }, 1, 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, payer, signer, client := payerOnFaultyStore(t, x402test.NoFault, tc.set)
			_, _, err := get(t, client, s.srv.URL+"/x")
			var se *budget.StoreError
			require.ErrorAs(t, err, &se)
			assert.ErrorIs(t, err, ledgertest.ErrFault)
			assert.False(t, se.RetryableError(), "a retry layer must not pay again")
			assert.Empty(t, s.payments.all(), "no payment was sent")
			assert.Empty(t, s.f.Settlements())
			assert.Equal(t, tc.signed, signer.n.Load())
			assert.Equal(t, big.NewInt(tc.reserved).String(), budgettest.Reserved(t, payer).String(),
				"a reservation the store may still hold stays counted")
			assert.Zero(t, budgettest.Spent(t, payer).Sign())
		})
	}
}

func TestStoreFailuresAfterSendingReleaseNothing(t *testing.T) {
	t.Parallel()
	t.Run("a 2xx whose commit fails is still the answer", func(t *testing.T) {
		t.Parallel()
		s, payer, _, client := payerOnFaultyStore(t, x402test.NoFault, func(s *ledgertest.Faulty) { s.Fail("mark committed") })
		resp, body, err := get(t, client, s.srv.URL+"/x")
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "the goods", body)
		assert.Len(t, s.f.Settlements(), 1)
		assert.Zero(t, budgettest.Spent(t, payer).Sign())
		assert.Equal(t, "100", budgettest.Reserved(t, payer).String(), "the payment stays counted, as signed")
		require.Len(t, budgettest.Outstanding(t, payer), 1)
		assert.Equal(t, ledger.Signed, budgettest.Outstanding(t, payer)[0].State)
	})
	t.Run("an outcome in doubt that cannot be booked stays counted", func(t *testing.T) {
		t.Parallel()
		s, payer, _, client := payerOnFaultyStore(t, x402test.FaultErrorAfterSettle, func(s *ledgertest.Faulty) { s.Fail("mark in doubt") })
		_, _, err := get(t, client, s.srv.URL+"/x")
		var ue *x402.PaymentUnconfirmedError
		require.ErrorAs(t, err, &ue, "the outcome is reported as it is, whatever the store")
		assert.Equal(t, "100", budgettest.Reserved(t, payer).String())
		assert.Equal(t, ledger.Signed, budgettest.Outstanding(t, payer)[0].State)
	})
	t.Run("a refusal that cannot be booked stays counted", func(t *testing.T) {
		t.Parallel()
		s, payer, _, client := payerOnFaultyStore(t, x402test.FaultChallengeAfterSettle, func(s *ledgertest.Faulty) { s.Fail("mark refused") })
		_, _, err := get(t, client, s.srv.URL+"/x")
		var rej *x402.PaymentRejectedError
		require.ErrorAs(t, err, &rej)
		assert.Equal(t, "100", budgettest.Reserved(t, payer).String())
		assert.Equal(t, ledger.Signed, budgettest.Outstanding(t, payer)[0].State, "not even the refusal's expiry releases it")
	})
}

func TestStoreFailuresNeverReadAsZero(t *testing.T) {
	t.Parallel()
	store := ledgertest.NewFaulty(ledger.NewMemory())
	b, err := budget.New(big.NewInt(10), budget.WithStore(store))
	require.NoError(t, err)
	assert.NotNil(t, budgettest.Outstanding(t, b), "nothing outstanding is an empty list")
	store.Fail("totals")
	store.Fail("outstanding")
	_, _, err = b.Totals(t.Context())
	var se *budget.StoreError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "totals", se.Op)
	assert.Nil(t, budgettest.Spent(t, b), "an unknown total is not 0")
	assert.Nil(t, budgettest.Reserved(t, b))
	_, err = b.OutstandingContext(t.Context())
	require.ErrorAs(t, err, &se)
	assert.Nil(t, budgettest.Outstanding(t, b), "an unreadable listing is not an empty one")
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
	assert.Equal(t, unconfirmed.Nonce, out[0].ID)
	assert.Equal(t, "x402 "+evm.NetworkBase, out[0].Rail)
	assert.Equal(t, ledger.InDoubt, out[0].State)
}

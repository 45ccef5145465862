package x402_test

import (
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/x402test"
)

func TestPayerRefusesPastAPayeeLimit(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, nil)
	b := budgettest.NewBudget(t, budgettest.Selected(t), budget.Unlimited, nil, budget.WithPayeeLimitFor(shopAddress, big.NewInt(150)))
	payer, signer, client := newPayer(t, s.f, 1_000, x402.Policy{}, x402.WithBudget(b))
	_, _, err := get(t, client, s.srv.URL+"/a")
	require.NoError(t, err)
	_, _, err = get(t, client, s.srv.URL+"/b")
	var pe *x402.PolicyError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, x402.ErrPayeeLimitExceeded)
	assert.Equal(t, "50", pe.Limit.String())
	assert.Equal(t, evm.NetworkBase, pe.Requirements.Network, "the refused entry is named whole")
	assert.Equal(t, int64(1), signer.Signed(), "nothing was signed for the refused payment")
	assert.Equal(t, "100", budgettest.Spent(t, payer).String())
	assert.Len(t, s.payments.all(), 1)
}

func TestPaidAnswerNamesItsPayment(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(130000)}, nil)
	_, signer, client := newPayer(t, s.f, 1_000_000, x402.Policy{MaxTotal: budget.Unlimited})
	resp, body, err := get(t, client, s.srv.URL+"/report/1?format=csv")
	require.NoError(t, err)
	assert.Equal(t, "the goods", body)
	p, ok := x402.PaymentFrom(resp)
	require.True(t, ok)
	st := s.f.Settlements()
	require.Len(t, st, 1)
	assert.Equal(t, &x402.Payment{ID: st[0].ID, Payer: signer.Address(), Network: evm.NetworkBase, PayTo: shopAddress,
		Asset: evm.USDCBase, Amount: big.NewInt(130000), Resource: s.srv.URL + "/report/1"}, p)
	p.Amount.SetInt64(1)
	again, _ := x402.PaymentFrom(resp)
	assert.Equal(t, "130000", again.Amount.String(), "each caller gets a copy")
	for name := range resp.Header {
		assert.NotContains(t, []string{"Payment-Signature", "X-Payment"}, name, "the answer's headers are the server's")
	}

	free := httptest.NewServer(okHandler)
	t.Cleanup(free.Close)
	resp, _, err = get(t, client, free.URL)
	require.NoError(t, err)
	_, ok = x402.PaymentFrom(resp)
	assert.False(t, ok, "nothing was paid for this answer")
	_, ok = x402.PaymentFrom(nil)
	assert.False(t, ok)
}

func TestPaymentErrorsNameTheirPayment(t *testing.T) {
	t.Parallel()
	// Never funded: the facilitator refuses the payment.
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, nil)
	payer, signer, client := newPayer(t, nil, 0, x402.Policy{MaxTotal: budget.Unlimited})
	_, _, err := get(t, client, s.srv.URL+"/x?y=1")
	var rej *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rej)
	assert.Equal(t, signer.Address(), rej.Payer)
	assert.Equal(t, evm.NetworkBase, rej.Network)
	assert.Equal(t, shopAddress, rej.PayTo)
	assert.Equal(t, "100", rej.Amount.String())
	assert.Equal(t, s.srv.URL+"/x", rej.Resource)
	require.Len(t, budgettest.Outstanding(t, payer), 1)
	assert.Equal(t, budgettest.Outstanding(t, payer)[0].ID, rej.Payment.ID)

	fault := x402test.FaultErrorAfterSettle
	settled := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100), Fault: func(*http.Request) x402test.SettlementFault { return fault }}, nil)
	_, signer, client = newPayer(t, settled.f, 1_000, x402.Policy{MaxTotal: budget.Unlimited})
	_, _, err = get(t, client, settled.srv.URL+"/z")
	var unconfirmed *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &unconfirmed)
	require.Len(t, settled.f.Settlements(), 1)
	assert.Equal(t, settled.f.Settlements()[0].ID, unconfirmed.ID)
	assert.Equal(t, x402.Payment{ID: unconfirmed.ID, Payer: signer.Address(), Network: evm.NetworkBase, PayTo: shopAddress,
		Asset: evm.USDCBase, Amount: big.NewInt(100), Resource: settled.srv.URL + "/z"}, unconfirmed.Payment)
}

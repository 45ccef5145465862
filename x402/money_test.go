package x402_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

func TestPolicyErrorsShowMoneyInDollars(t *testing.T) {
	t.Parallel()
	over := &x402.PolicyError{Rule: x402.ErrBudgetExceeded, Requirements: wire.PaymentRequirements{Amount: big.NewInt(5_000_000)}, Limit: big.NewInt(870_000)}
	assert.Equal(t, "x402: "+x402.ErrBudgetExceeded.Error()+": amount $5.00, limit $0.87", over.Error())
	count := &x402.PolicyError{Rule: x402.ErrPaymentCountExceeded, Requirements: wire.PaymentRequirements{Amount: big.NewInt(130_000)}, Limit: big.NewInt(0)}
	assert.Contains(t, count.Error(), "amount $0.13, payments left 0", "a count is not money")
}

// A refusal of the budget through a payer says what is left of which limit, as the budget
// says it (budget.LimitError), under the payer's name; a count of payments is not money.
func TestBudgetRefusalsSayWhatIsLeftOfWhat(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: usdc.Dollars(5)}, nil)
	payer, _, client := newPayer(t, s.f, 20_000_000, x402.Policy{MaxPerPayment: usdc.Dollars(10), MaxTotal: usdc.Dollars(6)})
	_, _, err := get(t, client, s.srv.URL+"/a")
	require.NoError(t, err)
	_, _, err = get(t, client, s.srv.URL+"/b")
	var pe *x402.PolicyError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "x402: payment would exceed the total budget: amount $5.00, $1.00 left of $6.00", pe.Error())
	assert.Equal(t, usdc.Dollars(1), pe.Limit)
	assert.Equal(t, usdc.Dollars(6), pe.Max)
	var le *budget.LimitError
	require.ErrorAs(t, err, &le, "the budget's own refusal is the cause")
	assert.Equal(t, usdc.Dollars(5), budgettest.Spent(t, payer))

	counted := newShop(t, x402test.PaywallConfig{Amount: usdc.Cents(13)}, nil)
	b := budgettest.NewBudget(t, budgettest.Selected(t), budget.Unlimited, nil, budget.WithWindowLimit(time.Hour, nil, 1))
	_, _, client = newPayer(t, counted.f, 1_000_000, x402.Policy{}, x402.WithBudget(b))
	_, _, err = get(t, client, counted.srv.URL+"/a")
	require.NoError(t, err)
	_, _, err = get(t, client, counted.srv.URL+"/b")
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, x402.ErrPaymentCountExceeded)
	assert.Contains(t, err.Error(), "x402: payment would exceed the number of payments allowed in a rolling window: amount $0.13, 0 payments left of 1 in any 1h0m0s",
		"a count is not money")
	assert.Equal(t, "0", pe.Limit.String())
	assert.Equal(t, time.Hour, pe.Window)
	assert.False(t, pe.RetryAt.IsZero(), "the window frees up by itself")
}

// An unfunded payment is refused by the server, but the payee holds the signed
// authorization until it expires: the error says the amount stays reserved, and until when,
// and the budget counts it exactly that long.
func TestUnfundedPaymentSaysWhatStaysReserved(t *testing.T) {
	clock := sdktest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	f := x402test.NewFacilitator(x402test.WithClock(clock))
	s := newShopAt(t, f, x402test.PaywallConfig{Amount: big.NewInt(10_000), MaxTimeoutSeconds: 60}, nil)
	payer, _, client := newPayerAt(t, f, 0, x402.Policy{MaxTotal: usdc.Dollars(1)}, clock)

	_, _, err := get(t, client, s.srv.URL+"/r")
	var rejected *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rejected)
	assert.Equal(t, evm.ReasonInsufficientBalance, rejected.Reason)
	wantUntil := time.Date(2026, 3, 1, 12, 1, 0, 0, time.UTC).Add(ledger.ExpiryMargin)
	assert.Equal(t, wantUntil, rejected.HeldUntil.UTC(), "the authorization's validBefore plus the margin")
	assert.Contains(t, err.Error(), "its $0.01 stays reserved in the budget until "+wantUntil.Format("2006-01-02 15:04:05 UTC"))
	assert.Equal(t, "10000", budgettest.Reserved(t, payer).String())

	clock.Set(wantUntil.Add(time.Second))
	assert.Zero(t, budgettest.Reserved(t, payer).Sign(), "no longer counted once HeldUntil passed")
}

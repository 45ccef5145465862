package x402_test

import (
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/ledger"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/x402test"
)

// policyRefusal reserves amount to payTo and returns the *PolicyError it must get.
func policyRefusal(t *testing.T, b *budget.Budget, amount int64, payTo string) *x402.PolicyError {
	t.Helper()
	_, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(amount), PayTo: payTo})
	var pe *x402.PolicyError
	require.ErrorAs(t, err, &pe)
	return pe
}

func TestBudgetEnforcesEveryLimit(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	clock := sdktest.NewClock(t0)
	const special = "0x00000000000000000000000000000000000000Ab"
	b, err := budget.New(big.NewInt(1000), budget.WithClock(clock),
		budget.WithWindowLimit(time.Minute, big.NewInt(300), 2),
		budget.WithPayeeLimit(big.NewInt(500)),
		budget.WithPayeeLimitFor(special, big.NewInt(100)),
		budget.WithPaymentLimit(big.NewInt(250)))
	require.NoError(t, err)
	ctx := t.Context()

	pe := policyRefusal(t, b, 251, "0xa")
	assert.ErrorIs(t, pe, x402.ErrAmountOverCap)
	assert.Equal(t, "250", pe.Limit.String())
	assert.True(t, pe.RetryAt.IsZero(), "a payment above the cap never fits")

	_, err = b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(200), PayTo: "0xa"})
	require.NoError(t, err)
	clock.Advance(time.Second)
	pe = policyRefusal(t, b, 200, "0xb")
	assert.ErrorIs(t, pe, x402.ErrWindowExceeded)
	assert.Equal(t, time.Minute, pe.Window)
	assert.Equal(t, "100", pe.Limit.String(), "what the window has left")
	assert.Equal(t, t0.Add(time.Minute), pe.RetryAt, "when the first payment leaves the window")
	assert.Equal(t, "0xb", pe.Requirements.PayTo)
	assert.Equal(t, "200", pe.Requirements.Amount.String())
	assert.Contains(t, pe.Error(), "window 1m0s")
	assert.Contains(t, pe.Error(), "enough frees up at 2030-05-06T07:09:09Z")

	_, err = b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(100), PayTo: "0xb"})
	require.NoError(t, err)
	pe = policyRefusal(t, b, 0, "0xc")
	assert.ErrorIs(t, pe, x402.ErrPaymentCountExceeded)
	assert.Equal(t, "0", pe.Limit.String(), "no payment left in the window")
	assert.Equal(t, t0.Add(time.Minute), pe.RetryAt)

	clock.Advance(time.Minute)
	pe = policyRefusal(t, b, 101, "0x00000000000000000000000000000000000000AB")
	assert.ErrorIs(t, pe, x402.ErrPayeeLimitExceeded, "a payee's own limit, in any letter case")
	assert.Equal(t, "100", pe.Limit.String())
	assert.Contains(t, pe.Error(), "payTo 0x00000000000000000000000000000000000000AB")
	_, err = b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(250), PayTo: "0xA"})
	require.NoError(t, err)
	pe = policyRefusal(t, b, 60, "0xa")
	assert.ErrorIs(t, pe, x402.ErrPayeeLimitExceeded, "every other payee's limit")
	assert.Equal(t, "50", pe.Limit.String())

	_, err = b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1)})
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve, "a budget that limits payees must be told the payee")
	assert.Equal(t, "550", budgettest.Reserved(t, b).String(), "no refusal held anything")
}

func TestBudgetOptionsAreChecked(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]budget.Option{
		"window without length":  budget.WithWindowLimit(0, big.NewInt(1), 0),
		"window without a bound": budget.WithWindowLimit(time.Minute, nil, 0),
		"negative window count":  budget.WithWindowLimit(time.Minute, nil, -1),
		"negative payee limit":   budget.WithPayeeLimit(big.NewInt(-1)),
		"payee without address":  budget.WithPayeeLimitFor("", big.NewInt(1)),
		"payee without limit":    budget.WithPayeeLimitFor("0xa", nil),
		"negative payment limit": budget.WithPaymentLimit(big.NewInt(-5)),
		"nil store":              budget.WithStore(nil),
	} {
		_, err := budget.New(budget.Unlimited, opt)
		var ve *sdk.ValidationError
		assert.ErrorAs(t, err, &ve, name)
	}
}

func TestBudgetOnAStoreOfItsOwn(t *testing.T) {
	t.Parallel()
	store := ledger.NewMemory()
	b, err := budget.New(big.NewInt(10), budget.WithStore(store))
	require.NoError(t, err)
	h, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(4)})
	require.NoError(t, err)
	totals, err := store.Totals(t.Context(), time.Now())
	require.NoError(t, err)
	assert.Equal(t, "4", totals.Held.String(), "the holds live in the store given")
	require.NoError(t, h.Release(t.Context()))

	_, err = budget.New(big.NewInt(10), budget.WithStore(store))
	var se *budget.StoreError
	require.ErrorAs(t, err, &se, "a store serves one budget")
	assert.ErrorIs(t, err, ledger.ErrConfigured)
}

func TestHoldSignRecordsWhatWasReserved(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b, err := budget.New(budget.Unlimited)
	require.NoError(t, err)
	h, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(7), PayTo: "0xAbC", Rail: "solana", Resource: "key"})
	require.NoError(t, err)
	var ve *sdk.ValidationError
	require.ErrorAs(t, h.Sign(ctx, ledger.Signature{ID: "s1", PayTo: "0xother"}), &ve)
	require.ErrorAs(t, h.Sign(ctx, ledger.Signature{ID: "s1", Rail: "x402"}), &ve)
	require.ErrorAs(t, h.Sign(ctx, ledger.Signature{ID: "s1", Resource: "other"}), &ve)
	require.ErrorAs(t, h.Sign(ctx, ledger.Signature{}), &ve, "a signature needs its id")
	assert.Equal(t, ledger.Reserved, stateOf(t, h), "a refused Sign changes nothing")

	expires := time.Now().Add(time.Minute).UTC().Truncate(time.Second)
	require.NoError(t, h.Sign(ctx, ledger.Signature{ID: "s1", PayTo: "0xabc", Expires: expires}))
	require.ErrorIs(t, h.Sign(ctx, ledger.Signature{ID: "s2"}), budget.ErrHoldNotReserved, "signed once only")
	out := budgettest.Outstanding(t, b)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.Outstanding{
		Signature: ledger.Signature{ID: "s1", Rail: "solana", PayTo: "0xAbC", Expires: expires, Resource: "key"},
		Amount:    big.NewInt(7),
		State:     ledger.Signed,
	}, out[0])

	other, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1)})
	require.NoError(t, err)
	require.NoError(t, other.Release(ctx))
	require.ErrorIs(t, other.Sign(ctx, ledger.Signature{ID: "s3"}), budget.ErrHoldNotReserved, "nothing is signed against a released hold")
	spent, reserved, err := b.Totals(ctx)
	require.NoError(t, err)
	assert.Equal(t, "0", spent.String())
	assert.Equal(t, "7", reserved.String())
}

func TestPayerRefusesPastAPayeeLimit(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, nil)
	budget, err := budget.New(budget.Unlimited, budget.WithPayeeLimitFor(shopAddress, big.NewInt(150)))
	require.NoError(t, err)
	payer, signer, client := newPayer(t, s.f, 1_000, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithBudget(budget))
	_, _, err = get(t, client, s.srv.URL+"/a")
	require.NoError(t, err)
	_, _, err = get(t, client, s.srv.URL+"/b")
	var pe *x402.PolicyError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, x402.ErrPayeeLimitExceeded)
	assert.Equal(t, "50", pe.Limit.String())
	assert.Equal(t, evm.NetworkBase, pe.Requirements.Network, "the refused entry is named whole")
	assert.Equal(t, int64(1), signer.n.Load(), "nothing was signed for the refused payment")
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
	assert.Equal(t, &x402.Payment{Nonce: st[0].Nonce, Payer: signer.Address(), Network: evm.NetworkBase, PayTo: shopAddress,
		Amount: big.NewInt(130000), Resource: s.srv.URL + "/report/1"}, p)
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
	assert.Equal(t, budgettest.Outstanding(t, payer)[0].ID, rej.Payment.Nonce)

	fault := x402test.FaultErrorAfterSettle
	settled := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100), Fault: func(*http.Request) x402test.SettlementFault { return fault }}, nil)
	_, signer, client = newPayer(t, settled.f, 1_000, x402.Policy{MaxTotal: budget.Unlimited})
	_, _, err = get(t, client, settled.srv.URL+"/z")
	var unconfirmed *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &unconfirmed)
	require.Len(t, settled.f.Settlements(), 1)
	assert.Equal(t, settled.f.Settlements()[0].Nonce, unconfirmed.Nonce)
	assert.Equal(t, x402.Payment{Nonce: unconfirmed.Nonce, Payer: signer.Address(), Network: evm.NetworkBase, PayTo: shopAddress,
		Amount: big.NewInt(100), Resource: settled.srv.URL + "/z"}, unconfirmed.Payment)
}

package budget_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
)

// policyRefusal reserves amount to payTo and returns the *PolicyError it must get.
func policyRefusal(t *testing.T, b *budget.Budget, amount int64, payTo string) *budget.LimitError {
	t.Helper()
	_, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(amount), PayTo: payTo})
	var pe *budget.LimitError
	require.ErrorAs(t, err, &pe)
	return pe
}

// Payees of the limit tests.
const (
	payeeA = "0x00000000000000000000000000000000000000aa"
	payeeB = "0x00000000000000000000000000000000000000bb"
)

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

	pe := policyRefusal(t, b, 251, payeeA)
	assert.ErrorIs(t, pe, budget.ErrAmountOverCap)
	assert.Equal(t, "250", pe.Max.String())
	assert.True(t, pe.RetryAt.IsZero(), "a payment above the cap never fits")

	_, err = b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(200), PayTo: payeeA})
	require.NoError(t, err)
	clock.Advance(time.Second)
	pe = policyRefusal(t, b, 200, payeeB)
	assert.ErrorIs(t, pe, budget.ErrWindowExceeded)
	assert.Equal(t, time.Minute, pe.Window)
	assert.Equal(t, "100", pe.Left.String(), "what the window has left")
	assert.Equal(t, "300", pe.Max.String(), "of what")
	assert.Equal(t, t0.Add(time.Minute), pe.RetryAt, "when the first payment leaves the window")
	assert.Equal(t, payeeB, pe.PayTo)
	assert.Equal(t, "200", pe.Amount.String())
	assert.Contains(t, pe.Error(), "amount $0.0002, $0.0001 left of $0.0003 in any 1m0s")
	assert.Contains(t, pe.Error(), "enough frees up at 2030-05-06T07:09:09Z")

	_, err = b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(100), PayTo: payeeB})
	require.NoError(t, err)
	pe = policyRefusal(t, b, 0, "0x00000000000000000000000000000000000000cc")
	assert.ErrorIs(t, pe, budget.ErrPaymentCountExceeded)
	assert.Equal(t, "0", pe.Left.String(), "no payment left in the window")
	assert.Contains(t, pe.Error(), "0 payments left of 2")
	assert.Equal(t, t0.Add(time.Minute), pe.RetryAt)

	clock.Advance(time.Minute)
	pe = policyRefusal(t, b, 101, "0x00000000000000000000000000000000000000AB")
	assert.ErrorIs(t, pe, budget.ErrPayeeLimitExceeded, "a payee's own limit, an EVM address in any letter case")
	assert.Equal(t, "100", pe.Left.String())
	assert.Contains(t, pe.Error(), "payTo 0x00000000000000000000000000000000000000ab")
	_, err = b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(250), PayTo: "0x" + strings.ToUpper(payeeA[2:])})
	require.NoError(t, err)
	pe = policyRefusal(t, b, 60, payeeA)
	assert.ErrorIs(t, pe, budget.ErrPayeeLimitExceeded, "every other payee's limit")
	assert.Equal(t, "50", pe.Left.String())

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
	store := ledger.NewMemory(nil)
	b, err := budget.New(big.NewInt(10), budget.WithStore(store))
	require.NoError(t, err)
	h, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(4)})
	require.NoError(t, err)
	totals, err := store.Totals(t.Context())
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
	clock := sdktest.NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	b, err := budget.New(budget.Unlimited, budget.WithClock(clock))
	require.NoError(t, err)
	h, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(7), PayTo: "0xAbC", Rail: "solana", Resource: "key"})
	require.NoError(t, err)
	var ve *sdk.ValidationError
	require.ErrorAs(t, h.Sign(ctx, ledger.Signature{}), &ve, "a signature needs its id")
	assert.Equal(t, ledger.Reserved, stateOf(t, h), "a refused Sign changes nothing")

	expires := clock.Now().Add(time.Minute)
	require.NoError(t, h.Sign(ctx, ledger.Signature{ID: "s1", Expires: expires, Ref: "r"}))
	require.ErrorIs(t, h.Sign(ctx, ledger.Signature{ID: "s2"}), budget.ErrHoldNotReserved, "signed once only")
	out := budgettest.Outstanding(t, b)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.Outstanding{
		Hold:      h.ID(),
		Amount:    big.NewInt(7),
		PayTo:     "0xAbC",
		Rail:      "solana",
		Resource:  "key",
		Reserved:  clock.Now(),
		Signature: ledger.Signature{ID: "s1", Expires: expires, Ref: "r"},
		State:     ledger.Signed,
	}, out[0], "a payee that is no EVM address is kept as it is")

	other, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1)})
	require.NoError(t, err)
	require.NoError(t, other.Release(ctx))
	require.ErrorIs(t, other.Sign(ctx, ledger.Signature{ID: "s3"}), budget.ErrHoldNotReserved, "nothing is signed against a released hold")
	spent, reserved, err := b.Totals(ctx)
	require.NoError(t, err)
	assert.Equal(t, "0", spent.String())
	assert.Equal(t, "7", reserved.String())
}

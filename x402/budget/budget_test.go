package budget_test

import (
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
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

func TestBudgetHoldsFollowThePayment(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	b, err := budget.New(big.NewInt(1000), budget.WithClock(clock))
	require.NoError(t, err)
	ctx := t.Context()

	never, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(100)})
	require.NoError(t, err)
	require.NoError(t, never.Release(ctx), "an authorization never signed is released at once")
	assert.Zero(t, budgettest.Reserved(t, b).Sign())

	committed, _ := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(200)})
	require.NoError(t, committed.Sign(ctx, ledger.Signature{ID: "0xaa", Expires: clock.Now().Add(time.Minute)}))
	assert.ErrorIs(t, committed.Release(ctx), budget.ErrHoldSigned, "a signed authorization is not given back")
	require.NoError(t, committed.Commit(ctx))
	assert.Equal(t, big.NewInt(200), budgettest.Spent(t, b))

	refused, _ := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(300), PayTo: "0xpayee"})
	require.NoError(t, refused.Sign(ctx, ledger.Signature{ID: "0xbb", Expires: clock.Now().Add(time.Minute)}))
	require.NoError(t, refused.Refused(ctx))
	doubt, _ := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(400)})
	require.NoError(t, doubt.Sign(ctx, ledger.Signature{ID: "0xcc", Expires: clock.Now().Add(time.Minute)}))
	require.NoError(t, doubt.InDoubt(ctx))
	assert.Equal(t, big.NewInt(700), budgettest.Reserved(t, b))
	_, err = b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(101)})
	var pe *budget.LimitError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, budget.ErrBudgetExceeded)
	assert.Equal(t, big.NewInt(100), pe.Left, "the refusal names what is left")
	assert.Equal(t, big.NewInt(1000), pe.Max, "of what")
	assert.Equal(t, "budget: payment would exceed the total budget: amount $0.000101, $0.0001 left of $0.001, "+
		"enough frees up at 2026-11-22T12:03:00.000000001Z", pe.Error(), "the refused payment frees its amount once it expires")

	out := budgettest.Outstanding(t, b)
	require.Len(t, out, 2)
	assert.Equal(t, "0xbb", out[0].ID)
	assert.Equal(t, ledger.Refused, out[0].State)
	assert.Equal(t, "0xpayee", out[0].PayTo)
	assert.Equal(t, big.NewInt(300), out[0].Amount)

	clock.Advance(time.Minute + ledger.ExpiryMargin)
	assert.Equal(t, big.NewInt(700), budgettest.Reserved(t, b), "until the margin has passed, a refused authorization still counts")
	clock.Advance(time.Second)
	assert.Equal(t, big.NewInt(400), budgettest.Reserved(t, b), "a refused authorization is released once it has expired")
	assert.Equal(t, ledger.Released, stateOf(t, refused))
	assert.Equal(t, ledger.InDoubt, stateOf(t, doubt), "a payment in doubt is never released by time alone")

	require.NoError(t, refused.Commit(ctx))
	assert.Equal(t, big.NewInt(200), budgettest.Spent(t, b), "a released hold cannot be committed later")

	require.ErrorIs(t, b.Resolve(ctx, "0xnone", true), budget.ErrPaymentNotFound)
	require.NoError(t, b.Resolve(ctx, "0xcc", true))
	assert.Equal(t, big.NewInt(600), budgettest.Spent(t, b))
	assert.Zero(t, budgettest.Reserved(t, b).Sign())
	assert.Empty(t, budgettest.Outstanding(t, b))
}

func TestBudgetResolveReleasesOnlyExpiredPayments(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(time.Unix(1_800_000_000, 0))
	b, err := budget.New(budget.Unlimited, budget.WithClock(clock))
	require.NoError(t, err)
	ctx := t.Context()
	h, _ := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(5)})
	require.NoError(t, h.Sign(ctx, ledger.Signature{ID: "sig-1", Expires: clock.Now().Add(90 * time.Second)}))
	require.NoError(t, h.InDoubt(ctx))
	require.ErrorIs(t, b.Resolve(ctx, "sig-1", false), budget.ErrPaymentNotExpired, "a payment that can still settle is not released")
	clock.Advance(90*time.Second + ledger.ExpiryMargin + time.Second)
	require.NoError(t, b.Resolve(ctx, "sig-1", false))
	assert.Zero(t, budgettest.Reserved(t, b).Sign())
	assert.Zero(t, budgettest.Spent(t, b).Sign())
	assert.Nil(t, b.Limit())
}

func TestBudgetRefusesBadInput(t *testing.T) {
	t.Parallel()
	_, err := budget.New(big.NewInt(-1))
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	_, err = budget.New(nil)
	require.ErrorAs(t, err, &ve, "spending without a total limit is said on purpose, never a nil's default")
	assert.Contains(t, err.Error(), "budget.Unlimited")
	_, err = budget.New(big.NewInt(10), budget.WithStore(ledger.NewMemory(nil)), budget.WithClock(sdktest.NewClock(time.Now())))
	require.ErrorAs(t, err, &ve, "a store given decides with its own clock")
	b, err := budget.New(big.NewInt(10))
	require.NoError(t, err)
	_, err = b.Reserve(t.Context(), ledger.Reservation{})
	require.ErrorAs(t, err, &ve)
	_, err = b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(-1)})
	require.ErrorAs(t, err, &ve)
	_, err = budget.New(budget.Unlimited, budget.WithClock(nil))
	require.ErrorAs(t, err, &ve)
}

func TestBudgetHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	b, err := budget.New(big.NewInt(50))
	require.NoError(t, err)
	var granted atomic.Int64
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := t.Context()
			h, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1)})
			if err != nil {
				return
			}
			granted.Add(1)
			assert.NoError(t, h.Sign(ctx, ledger.Signature{ID: fmt.Sprint(i)}))
			switch i % 3 {
			case 0:
				assert.NoError(t, h.Commit(ctx))
			case 1:
				assert.NoError(t, h.InDoubt(ctx))
			default:
				assert.NoError(t, h.Refused(ctx))
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(50), granted.Load())
	total := new(big.Int).Add(budgettest.Spent(t, b), budgettest.Reserved(t, b))
	assert.Equal(t, big.NewInt(50), total, "spent plus held is what was granted, never more than the limit")
}

// stateOf returns where h stands.
func stateOf(t *testing.T, h *budget.Hold) ledger.State {
	t.Helper()
	st, err := h.State(t.Context())
	require.NoError(t, err)
	return st
}

package x402_test

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
	"github.com/agentapis/sdk/x402"
)

// fakeNow is a clock a test moves by hand.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeNow) now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeNow) add(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

func TestBudgetHoldsFollowThePayment(t *testing.T) {
	t.Parallel()
	clock := &fakeNow{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	b, err := x402.NewBudget(big.NewInt(1000), x402.WithBudgetClock(clock.now))
	require.NoError(t, err)
	ctx := t.Context()

	never, err := b.Reserve(ctx, x402.Reservation{Amount: big.NewInt(100)})
	require.NoError(t, err)
	require.NoError(t, never.Release(ctx), "an authorization never signed is released at once")
	assert.Zero(t, b.Reserved().Sign())

	committed, _ := b.Reserve(ctx, x402.Reservation{Amount: big.NewInt(200)})
	require.NoError(t, committed.Sign(ctx, x402.Signature{ID: "0xaa", Expires: clock.now().Add(time.Minute)}))
	assert.ErrorIs(t, committed.Release(ctx), x402.ErrHoldSigned, "a signed authorization is not given back")
	require.NoError(t, committed.Commit(ctx))
	assert.Equal(t, big.NewInt(200), b.Spent())

	refused, _ := b.Reserve(ctx, x402.Reservation{Amount: big.NewInt(300), PayTo: "0xpayee"})
	require.NoError(t, refused.Sign(ctx, x402.Signature{ID: "0xbb", PayTo: "0xpayee", Expires: clock.now().Add(time.Minute)}))
	require.NoError(t, refused.Refused(ctx))
	doubt, _ := b.Reserve(ctx, x402.Reservation{Amount: big.NewInt(400)})
	require.NoError(t, doubt.Sign(ctx, x402.Signature{ID: "0xcc", Expires: clock.now().Add(time.Minute)}))
	require.NoError(t, doubt.InDoubt(ctx))
	assert.Equal(t, big.NewInt(700), b.Reserved())
	_, err = b.Reserve(ctx, x402.Reservation{Amount: big.NewInt(101)})
	var pe *x402.PolicyError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, x402.ErrBudgetExceeded)
	assert.Equal(t, big.NewInt(100), pe.Limit, "the refusal names what is left")

	out := b.Outstanding()
	require.Len(t, out, 2)
	assert.Equal(t, "0xbb", out[0].ID)
	assert.Equal(t, x402.HoldRefused, out[0].State)
	assert.Equal(t, "0xpayee", out[0].PayTo)
	assert.Equal(t, big.NewInt(300), out[0].Amount)

	clock.add(time.Minute + x402.ExpiryMargin)
	assert.Equal(t, big.NewInt(700), b.Reserved(), "until the margin has passed, a refused authorization still counts")
	clock.add(time.Second)
	assert.Equal(t, big.NewInt(400), b.Reserved(), "a refused authorization is released once it has expired")
	assert.Equal(t, x402.HoldReleased, stateOf(t, refused))
	assert.Equal(t, x402.HoldInDoubt, stateOf(t, doubt), "a payment in doubt is never released by time alone")

	require.NoError(t, refused.Commit(ctx))
	assert.Equal(t, big.NewInt(200), b.Spent(), "a released hold cannot be committed later")

	require.ErrorIs(t, b.Resolve(ctx, "0xnone", true), x402.ErrPaymentNotFound)
	require.NoError(t, b.Resolve(ctx, "0xcc", true))
	assert.Equal(t, big.NewInt(600), b.Spent())
	assert.Zero(t, b.Reserved().Sign())
	assert.Empty(t, b.Outstanding())
}

func TestBudgetResolveReleasesOnlyExpiredPayments(t *testing.T) {
	t.Parallel()
	clock := &fakeNow{t: time.Unix(1_800_000_000, 0)}
	b, err := x402.NewBudget(nil, x402.WithBudgetClock(clock.now))
	require.NoError(t, err)
	ctx := t.Context()
	h, _ := b.Reserve(ctx, x402.Reservation{Amount: big.NewInt(5)})
	require.NoError(t, h.Sign(ctx, x402.Signature{ID: "sig-1", Expires: clock.now().Add(90 * time.Second)}))
	require.NoError(t, h.InDoubt(ctx))
	require.ErrorIs(t, b.Resolve(ctx, "sig-1", false), x402.ErrPaymentNotExpired, "a payment that can still settle is not released")
	clock.add(90*time.Second + x402.ExpiryMargin + time.Second)
	require.NoError(t, b.Resolve(ctx, "sig-1", false))
	assert.Zero(t, b.Reserved().Sign())
	assert.Zero(t, b.Spent().Sign())
	assert.Nil(t, b.Limit())
}

func TestBudgetRefusesBadInput(t *testing.T) {
	t.Parallel()
	_, err := x402.NewBudget(big.NewInt(-1))
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	b, err := x402.NewBudget(big.NewInt(10))
	require.NoError(t, err)
	_, err = b.Reserve(t.Context(), x402.Reservation{})
	require.ErrorAs(t, err, &ve)
	_, err = b.Reserve(t.Context(), x402.Reservation{Amount: big.NewInt(-1)})
	require.ErrorAs(t, err, &ve)
	_, err = x402.NewBudget(nil, x402.WithBudgetClock(nil))
	require.ErrorAs(t, err, &ve)
}

func TestBudgetHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	b, err := x402.NewBudget(big.NewInt(50))
	require.NoError(t, err)
	var granted atomic.Int64
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := t.Context()
			h, err := b.Reserve(ctx, x402.Reservation{Amount: big.NewInt(1)})
			if err != nil {
				return
			}
			granted.Add(1)
			assert.NoError(t, h.Sign(ctx, x402.Signature{ID: fmt.Sprint(i)}))
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
	total := new(big.Int).Add(b.Spent(), b.Reserved())
	assert.Equal(t, big.NewInt(50), total, "spent plus held is what was granted, never more than the limit")
}

// stateOf returns where h stands.
func stateOf(t *testing.T, h *x402.Hold) x402.HoldState {
	t.Helper()
	st, err := h.State(t.Context())
	require.NoError(t, err)
	return st
}

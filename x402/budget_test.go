package x402_test

import (
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

	never, err := b.Reserve(big.NewInt(100))
	require.NoError(t, err)
	require.NoError(t, never.Release(), "an authorization never signed is released at once")
	assert.Zero(t, b.Reserved().Sign())

	committed, _ := b.Reserve(big.NewInt(200))
	committed.Signed(x402.Signature{ID: "0xaa", Expires: clock.now().Add(time.Minute)})
	assert.ErrorIs(t, committed.Release(), x402.ErrHoldSigned, "a signed authorization is not given back")
	committed.Commit()
	assert.Equal(t, big.NewInt(200), b.Spent())

	refused, _ := b.Reserve(big.NewInt(300))
	refused.Signed(x402.Signature{ID: "0xbb", PayTo: "0xpayee", Expires: clock.now().Add(time.Minute)})
	refused.Refused()
	doubt, _ := b.Reserve(big.NewInt(400))
	doubt.Signed(x402.Signature{ID: "0xcc", Expires: clock.now().Add(time.Minute)})
	doubt.InDoubt()
	assert.Equal(t, big.NewInt(700), b.Reserved())
	_, err = b.Reserve(big.NewInt(101))
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
	assert.Equal(t, x402.HoldReleased, refused.State())
	assert.Equal(t, x402.HoldInDoubt, doubt.State(), "a payment in doubt is never released by time alone")

	refused.Commit()
	assert.Equal(t, big.NewInt(200), b.Spent(), "a released hold cannot be committed later")

	require.Error(t, b.Resolve("0xnone", true))
	require.NoError(t, b.Resolve("0xcc", true))
	assert.Equal(t, big.NewInt(600), b.Spent())
	assert.Zero(t, b.Reserved().Sign())
	assert.Empty(t, b.Outstanding())
}

func TestBudgetResolveReleasesOnlyExpiredPayments(t *testing.T) {
	t.Parallel()
	clock := &fakeNow{t: time.Unix(1_800_000_000, 0)}
	b, err := x402.NewBudget(nil, x402.WithBudgetClock(clock.now))
	require.NoError(t, err)
	h, _ := b.Reserve(big.NewInt(5))
	h.Signed(x402.Signature{ID: "sig-1", Expires: clock.now().Add(90 * time.Second)})
	h.InDoubt()
	require.Error(t, b.Resolve("sig-1", false), "a payment that can still settle is not released")
	clock.add(90*time.Second + x402.ExpiryMargin + time.Second)
	require.NoError(t, b.Resolve("sig-1", false))
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
	_, err = b.Reserve(nil)
	require.ErrorAs(t, err, &ve)
	_, err = b.Reserve(big.NewInt(-1))
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
			h, err := b.Reserve(big.NewInt(1))
			if err != nil {
				return
			}
			granted.Add(1)
			h.Signed(x402.Signature{ID: string(rune('a' + i%26))})
			switch i % 3 {
			case 0:
				h.Commit()
			case 1:
				h.InDoubt()
			default:
				h.Refused()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(50), granted.Load())
	total := new(big.Int).Add(b.Spent(), b.Reserved())
	assert.Equal(t, big.NewInt(50), total, "spent plus held is what was granted, never more than the limit")
}

// Package ledgertest is the conformance suite of ledger.Store: whoever writes a store proves
// it with it, as the SDK's stores (ledger.Memory, x402/budgetfile, x402/budgetpg) do.
//
// A store under test reads its time from the clock the suite gives it, an sdktest.Clock the
// suite moves, jumps and sets back, so that no test waits:
//
//	func TestMyStoreConforms(t *testing.T) {
//		open := func(t *testing.T, clock sdk.Clock) ledger.Store {
//			s := mystore.New(clock) // a new, empty store, not configured
//			t.Cleanup(func() { _ = s.Close() })
//			return s
//		}
//		ledgertest.Run(t, open)
//		for seed := range uint64(8) {
//			ledgertest.Differential(t, open, seed, 3000)
//		}
//	}
//
// Run checks the contract: every transition of the state machine, every limit and its
// refusals, the expiry of refused holds, Resolve, concurrency, caller-made hold ids (a lost
// answer found again, a duplicate refused), the clock jumping ahead and back, and limits
// changed on purpose. Differential drives the store and Reference, the obviously right
// oracle, with the same random operations and fails at the first answer that differs. A
// durable store also runs RunReopen and DifferentialReopen, which close it and open it again
// as a new process would (Reopen). Faulty wraps a store to fail operations before or after
// they reach it, as a database's lost answers do.
package ledgertest

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/ledger"
)

// Open returns a new, empty store for one test, not yet configured, that reads its time
// from clock. The store is the test's: Open registers whatever cleanup it needs with
// t.Cleanup.
type Open func(t *testing.T, clock sdk.Clock) ledger.Store

// Reopen closes s and returns the same store opened again, not yet configured, as a new
// process reading its time from clock would find it.
type Reopen func(t *testing.T, s ledger.Store, clock sdk.Clock) ledger.Store

// t0 is the time the tests start at.
var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// payee is the payee of the tests that do not care which.
const payee = "0x00000000000000000000000000000000000000aa"

// fixture is a configured store under test and the clock it reads.
type fixture struct {
	t     *testing.T
	s     ledger.Store
	ctx   context.Context
	clock *sdktest.Clock
}

// configured opens a store on a new clock at t0 and configures it with limits.
func configured(t *testing.T, open Open, limits ledger.Limits) *fixture {
	t.Helper()
	clock := sdktest.NewClock(t0)
	s := open(t, clock)
	require.NoError(t, s.Configure(t.Context(), limits))
	return &fixture{t: t, s: s, ctx: t.Context(), clock: clock}
}

// amount returns n atomic units.
func amount(n int64) *big.Int { return big.NewInt(n) }

// at sets the store's clock to now.
func (f *fixture) at(now time.Time) { f.clock.Set(now) }

// try reserves n to payTo at now under a new hold id, and returns the id.
func (f *fixture) try(n int64, payTo string, now time.Time) (ledger.HoldID, error) {
	id := ledger.NewHoldID()
	f.at(now)
	return id, f.s.Reserve(f.ctx, id, ledger.Reservation{Amount: amount(n), PayTo: payTo, Rail: "test", Resource: "/item"})
}

// reserve reserves n to payee at now, and fails the test when it is refused.
func (f *fixture) reserve(n int64, now time.Time) ledger.HoldID {
	f.t.Helper()
	id, err := f.try(n, payee, now)
	require.NoError(f.t, err)
	return id
}

// refused reserves n to payTo at now and returns the refusal it must get.
func (f *fixture) refused(n int64, payTo string, now time.Time) *ledger.Refusal {
	f.t.Helper()
	_, err := f.try(n, payTo, now)
	var r *ledger.Refusal
	require.ErrorAs(f.t, err, &r)
	return r
}

// sign signs hold id with payment id sig expiring at expires (zero: unknown) at now.
func (f *fixture) sign(id ledger.HoldID, sig string, expires, now time.Time) {
	f.t.Helper()
	f.at(now)
	require.NoError(f.t, f.s.Sign(f.ctx, id, ledger.Signature{ID: sig, Expires: expires}))
}

// mark moves hold id to state at now and returns where it is.
func (f *fixture) mark(id ledger.HoldID, to ledger.State, now time.Time) ledger.State {
	f.t.Helper()
	f.at(now)
	st, err := f.s.Mark(f.ctx, id, to)
	require.NoError(f.t, err)
	return st
}

// state returns where hold id stands at now.
func (f *fixture) state(id ledger.HoldID, now time.Time) ledger.State {
	f.t.Helper()
	f.at(now)
	st, err := f.s.HoldState(f.ctx, id)
	require.NoError(f.t, err)
	return st
}

// totals asserts the store's sums at now.
func (f *fixture) totals(now time.Time, spent, held int64, msgAndArgs ...any) {
	f.t.Helper()
	f.at(now)
	tot, err := f.s.Totals(f.ctx)
	require.NoError(f.t, err)
	assert.Equal(f.t, amount(spent).String(), tot.Spent.String(), append([]any{"spent: "}, msgAndArgs...)...)
	assert.Equal(f.t, amount(held).String(), tot.Held.String(), append([]any{"held: "}, msgAndArgs...)...)
}

// outstanding returns the listing at now.
func (f *fixture) outstanding(now time.Time) []ledger.Outstanding {
	f.t.Helper()
	f.at(now)
	out, err := f.s.Outstanding(f.ctx)
	require.NoError(f.t, err)
	return out
}

// change changes the limits on purpose at now.
func (f *fixture) change(limits ledger.Limits, now time.Time) {
	f.t.Helper()
	f.at(now)
	require.NoError(f.t, f.s.ChangeLimits(f.ctx, limits))
}

// inState reserves a hold of n at now and takes it to state, signed as sig expiring at
// expires where the state needs a signature.
func (f *fixture) inState(state ledger.State, n int64, sig string, expires, now time.Time) ledger.HoldID {
	f.t.Helper()
	id := f.reserve(n, now)
	switch state {
	case ledger.Reserved:
		return id
	case ledger.Released:
		require.Equal(f.t, ledger.Released, f.mark(id, ledger.Released, now))
		return id
	}
	f.sign(id, sig, expires, now)
	if state != ledger.Signed {
		require.Equal(f.t, state, f.mark(id, state, now))
	}
	return id
}

// assertRefusal checks a refusal's fields; retryAt zero means none.
func assertRefusal(t *testing.T, r *ledger.Refusal, kind ledger.Kind, window time.Duration, limit, left int64, retryAt time.Time) {
	t.Helper()
	assert.Equal(t, kind, r.Kind, "kind")
	assert.Equal(t, window, r.Window, "window")
	assert.Equal(t, amount(limit).String(), r.Max.String(), "max")
	assert.Equal(t, amount(left).String(), r.Left.String(), "left")
	assert.True(t, retryAt.Equal(r.RetryAt), "retry at %v, want %v", r.RetryAt, retryAt)
}

// isInput reports whether err is an *ledger.InputError.
func isInput(err error) bool {
	var ie *ledger.InputError
	return errors.As(err, &ie)
}

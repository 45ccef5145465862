// Package ledgertest is the conformance suite of ledger.Store: every store of the SDK runs
// Run, a durable store RunReopen too, and each runs Differential against Reference. The
// suite drives the store with its own times, so no test waits.
package ledgertest

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/ledger"
)

// Open returns a new, empty store for one test, not yet configured. The store is the
// test's: Open registers whatever cleanup it needs with t.Cleanup.
type Open func(t *testing.T) ledger.Store

// Reopen closes s and returns the same store opened again, not yet configured, as a new
// process would find it.
type Reopen func(t *testing.T, s ledger.Store) ledger.Store

// t0 is the time the tests start at.
var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// payee is the payee of the tests that do not care which.
const payee = "0x00000000000000000000000000000000000000Aa"

// fixture is a configured store under test.
type fixture struct {
	t   *testing.T
	s   ledger.Store
	ctx context.Context
}

// configured opens a store and configures it with limits.
func configured(t *testing.T, open Open, limits ledger.Limits) *fixture {
	t.Helper()
	s := open(t)
	require.NoError(t, s.Configure(t.Context(), limits))
	return &fixture{t: t, s: s, ctx: t.Context()}
}

// amount returns n atomic units.
func amount(n int64) *big.Int { return big.NewInt(n) }

// try reserves n to payTo at now.
func (f *fixture) try(n int64, payTo string, now time.Time) (ledger.HoldID, error) {
	return f.s.Reserve(f.ctx, ledger.Reservation{Amount: amount(n), PayTo: payTo, Rail: "test", Resource: "/item", Now: now})
}

// reserve reserves n to payee at now, and fails the test when it is refused.
func (f *fixture) reserve(n int64, now time.Time) ledger.HoldID {
	f.t.Helper()
	id, err := f.try(n, payee, now)
	require.NoError(f.t, err)
	require.Positive(f.t, int64(id))
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

// sign signs hold id with sig expiring at expires (zero: unknown) at now.
func (f *fixture) sign(id ledger.HoldID, sig string, expires, now time.Time) {
	f.t.Helper()
	require.NoError(f.t, f.s.Sign(f.ctx, id, ledger.Signing{ID: sig, Expires: expires, Now: now}))
}

// mark moves hold id to state at now and returns where it is.
func (f *fixture) mark(id ledger.HoldID, to ledger.State, now time.Time) ledger.State {
	f.t.Helper()
	st, err := f.s.Mark(f.ctx, id, to, now)
	require.NoError(f.t, err)
	return st
}

// state returns where hold id stands at now.
func (f *fixture) state(id ledger.HoldID, now time.Time) ledger.State {
	f.t.Helper()
	st, err := f.s.HoldState(f.ctx, id, now)
	require.NoError(f.t, err)
	return st
}

// totals asserts the store's sums at now.
func (f *fixture) totals(now time.Time, spent, held int64, msgAndArgs ...any) {
	f.t.Helper()
	tot, err := f.s.Totals(f.ctx, now)
	require.NoError(f.t, err)
	assert.Equal(f.t, amount(spent).String(), tot.Spent.String(), append([]any{"spent: "}, msgAndArgs...)...)
	assert.Equal(f.t, amount(held).String(), tot.Held.String(), append([]any{"held: "}, msgAndArgs...)...)
}

// outstanding returns the listing at now.
func (f *fixture) outstanding(now time.Time) []ledger.Entry {
	f.t.Helper()
	out, err := f.s.Outstanding(f.ctx, now)
	require.NoError(f.t, err)
	return out
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
	switch state {
	case ledger.Refused:
		require.Equal(f.t, ledger.Refused, f.mark(id, ledger.Refused, now))
	case ledger.InDoubt:
		require.Equal(f.t, ledger.InDoubt, f.mark(id, ledger.InDoubt, now))
	case ledger.Committed:
		require.Equal(f.t, ledger.Committed, f.mark(id, ledger.Committed, now))
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

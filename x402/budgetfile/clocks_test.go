package budgetfile_test

import (
	"crypto/rand"
	"encoding/hex"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/x402test"
)

// run is one process's run on a budget file: its store, deciding with the process's clock,
// and its payer, signing by the same clock.
type run struct {
	store *budgetfile.Store
	*budgettest.Process
}

// runOn opens the budget file at path as a process whose clock is clock, paying from a new wallet
// with funds at srv's facilitator.
func runOn(t *testing.T, path string, clock sdk.Clock, srv *x402test.Server, funds int64) *run {
	t.Helper()
	s, err := budgetfile.Open(path, budgetfile.WithClock(clock))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	b, err := budget.New(big.NewInt(100*x402test.DefaultPrice), budget.WithStore(s), budget.WithWindowLimit(time.Hour, nil, 6))
	require.NoError(t, err)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	scan.Add(hex.EncodeToString(key))
	signer, err := evm.NewPrivateKeySigner(hex.EncodeToString(key))
	require.NoError(t, err)
	srv.Facilitator().Fund(signer.Address(), big.NewInt(funds))
	scheme, err := evm.NewExact(signer)
	require.NoError(t, err)
	return &run{store: s, Process: budgettest.NewProcess(t, b, scheme, clock, srv.Client().Transport)}
}

// totals returns what r's budget spent and reserves.
func (r *run) totals(t *testing.T) (spent, reserved int64) {
	t.Helper()
	s, h, err := r.Budget.Totals(t.Context())
	require.NoError(t, err)
	return s.Int64(), h.Int64()
}

// A process whose clock reads thirty years ahead (the store decides with it, and its payer
// signs by it) pays from a budget file, then ends; the processes after it, on time, find no
// trace of that clock that frees money. What went through is Spent; the payment it left
// signed is in doubt, and the one refused still counts a day later (their authorizations
// expire thirty years on, by the clock that signed them); the holds it reserved count in the
// window until their own time has passed, however often the file is opened again; and every
// decision of the processes after it is that of the present clock: a payment refused to them
// expires at its own deadline, not at once.
func TestProcessThirtyYearsAheadLeavesNoTraceForTheNext(t *testing.T) {
	t.Parallel()
	const price = x402test.DefaultPrice
	t0 := time.Date(2031, 3, 4, 5, 6, 0, 0, time.UTC)
	ahead := t0.AddDate(30, 0, 0)
	now := sdktest.NewClock(t0) // the present, which the facilitator's clock agrees with
	srv := x402test.NewServer(x402test.WithFacilitator(x402test.NewFacilitator(x402test.WithClock(now))))
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "budget.db")
	ctx := t.Context()

	// The process ahead: two payments go through (on a rail that does not check their time), one
	// is refused by the facilitator (its authorization is not valid yet), one is reserved and
	// one signed when it ends.
	clock := sdktest.NewClock(ahead)
	first := runOn(t, path, clock, srv, 100*price)
	rej := budgettest.PayAhead(t, first.Process, clock, price, x402test.DefaultPayTo, srv.URL+"/first")
	assert.Equal(t, evm.ReasonValidAfter, rej.Reason)
	require.NoError(t, first.store.Close())

	// The next process, on time, a minute later.
	now.Set(t0.Add(time.Minute))
	next := runOn(t, path, now, srv, 0) // its wallet is empty
	out := budgettest.TraceOfAhead(t, next.Budget, price, ahead)
	for _, o := range out {
		assert.True(t, ahead.Equal(o.Reserved), "reserved at the time the process ahead read: %s", o.Reserved)
	}

	// The window of six counts the four holds of the process ahead (two committed, one refused,
	// one in doubt) until their own time has passed: the next process's own holds leave first.
	for range 2 {
		require.Zero(t, budgettest.RetryAt(t, next.Budget))
	}
	assert.Equal(t, t0.Add(time.Hour+time.Minute), budgettest.RetryAt(t, next.Budget))
	now.Set(t0.Add(time.Hour + time.Minute - time.Nanosecond))
	assert.Equal(t, t0.Add(time.Hour+time.Minute), budgettest.RetryAt(t, next.Budget), "a nanosecond before")
	now.Set(t0.Add(time.Hour + time.Minute))
	for range 2 {
		require.Zero(t, budgettest.RetryAt(t, next.Budget), "the next process's holds left the window")
	}
	assert.Equal(t, t0.Add(2*time.Hour+time.Minute), budgettest.RetryAt(t, next.Budget), "the four of the process ahead still count")

	// A day later the refused payment of the process ahead still counts: it could still settle.
	now.Set(t0.AddDate(0, 0, 1))
	require.ErrorIs(t, next.Budget.Resolve(ctx, out[0].ID, false), budget.ErrPaymentNotExpired)
	_, reserved := next.totals(t)
	assert.Equal(t, int64(2*price+4), reserved)

	// A payment the next process signs and has refused counts until its own expiry plus the
	// margin on the present clock, not a moment less.
	rej = next.Rejected(t, srv.URL+"/next")
	assert.Equal(t, evm.ReasonInsufficientBalance, rej.Reason)
	deadline := now.Now().Add(time.Minute + ledger.ExpiryMargin)
	assert.True(t, deadline.Equal(rej.HeldUntil), "held until %s", rej.HeldUntil)
	now.Set(deadline)
	_, reserved = next.totals(t)
	assert.Equal(t, int64(3*price+4), reserved, "at its deadline")
	now.Set(deadline.Add(time.Nanosecond))
	_, reserved = next.totals(t)
	assert.Equal(t, int64(2*price+4), reserved, "a nanosecond after its deadline")
	require.NoError(t, next.store.Close())

	// A third process, an hour later: the same, read back from the file again.
	now.Set(deadline.Add(time.Hour))
	third := runOn(t, path, now, srv, 0)
	spent, reserved := third.totals(t)
	assert.Equal(t, int64(2*price), spent)
	assert.Equal(t, int64(2*price), reserved, "the next process's reservations were released")
	for range 2 {
		require.Zero(t, budgettest.RetryAt(t, third.Budget))
	}
	assert.Equal(t, now.Now().Add(time.Hour), budgettest.RetryAt(t, third.Budget), "the four of the process ahead still count")
}

// A process whose clock runs ahead finds a refused payment of a process on time already
// expired and stops counting it, as its own clock says; but that is its own reading, not a
// fact: the file keeps the payment refused, and the processes after it, on time, count it
// until its deadline by their clock. A release by expiry alone is never written.
func TestExpiryByAFastClockIsNotWritten(t *testing.T) {
	t.Parallel()
	const price = x402test.DefaultPrice
	t0 := time.Date(2031, 3, 4, 5, 6, 0, 0, time.UTC)
	now := sdktest.NewClock(t0)
	srv := x402test.NewServer(x402test.WithFacilitator(x402test.NewFacilitator(x402test.WithClock(now))))
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "budget.db")

	first := runOn(t, path, now, srv, 0) // an empty wallet: the payment is refused
	rej := first.Rejected(t, srv.URL+"/first")
	assert.Equal(t, evm.ReasonInsufficientBalance, rej.Reason)
	_, reserved := first.totals(t)
	require.Equal(t, int64(price), reserved)
	require.NoError(t, first.store.Close())

	ahead := runOn(t, path, sdktest.NewClock(rej.HeldUntil.Add(time.Hour)), srv, 0)
	_, reserved = ahead.totals(t)
	assert.Zero(t, reserved, "by the clock ahead, the refused payment expired")
	out, err := ahead.Budget.Outstanding(t.Context())
	require.NoError(t, err)
	assert.Empty(t, out)
	require.NoError(t, ahead.store.Close())

	now.Set(t0.Add(2 * time.Minute))
	next := runOn(t, path, now, srv, 0)
	_, reserved = next.totals(t)
	assert.Equal(t, int64(price), reserved, "on time, the refused payment still counts")
	out, err = next.Budget.Outstanding(t.Context())
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.Refused, out[0].State)
	now.Set(rej.HeldUntil.Add(time.Nanosecond))
	_, reserved = next.totals(t)
	assert.Zero(t, reserved, "after its deadline on the present clock")
}

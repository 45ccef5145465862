package budgetfile_test

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"math/big"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/x402test"
)

// run is one process's run on a budget file: its store, deciding with the process's clock,
// its Budget and its payer, signing by the same clock.
type run struct {
	store  *budgetfile.Store
	budget *budget.Budget
	client *http.Client
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
	payer, err := x402.NewPayer(x402.Policy{}, []x402.Scheme{scheme}, x402.WithBudget(b), x402.WithClock(clock), x402.WithResend(0, 0))
	require.NoError(t, err)
	return &run{store: s, budget: b, client: &http.Client{Transport: payer.RoundTripper(srv.Client().Transport)}}
}

// rejected pays for url and returns the server's refusal, failing the test on any other
// outcome.
func (r *run) rejected(t *testing.T, url string) *x402.PaymentRejectedError {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := r.client.Do(req)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var rej *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rej)
	return rej
}

// totals returns what r's budget spent and reserves.
func (r *run) totals(t *testing.T) (spent, reserved int64) {
	t.Helper()
	s, h, err := r.budget.Totals(t.Context())
	require.NoError(t, err)
	return s.Int64(), h.Int64()
}

// retryAt reserves 1 and returns the zero time, or the time the window of a count says
// enough frees up when it refuses.
func (r *run) retryAt(t *testing.T) time.Time {
	t.Helper()
	_, err := r.budget.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xwindow"})
	if err == nil {
		return time.Time{}
	}
	var le *budget.LimitError
	require.ErrorAs(t, err, &le)
	require.ErrorIs(t, err, budget.ErrPaymentCountExceeded)
	require.False(t, le.RetryAt.IsZero())
	return le.RetryAt.UTC()
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
	for range 2 {
		h, err := first.budget.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(price), PayTo: x402test.DefaultPayTo})
		require.NoError(t, err)
		require.NoError(t, h.Sign(ctx, ledger.Signature{ID: "0x" + h.ID().String(), Expires: ahead.Add(time.Minute)}))
		require.NoError(t, h.Commit(ctx))
	}
	rej := first.rejected(t, srv.URL+"/first")
	assert.Equal(t, evm.ReasonValidAfter, rej.Reason)
	_, err := first.budget.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(price), PayTo: x402test.DefaultPayTo})
	require.NoError(t, err)
	signed, err := first.budget.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(price), PayTo: x402test.DefaultPayTo})
	require.NoError(t, err)
	require.NoError(t, signed.Sign(ctx, ledger.Signature{ID: "0xsigned", Expires: ahead.Add(time.Minute)}))
	require.NoError(t, first.store.Close())

	// The next process, on time, a minute later.
	now.Set(t0.Add(time.Minute))
	next := runOn(t, path, now, srv, 0) // its wallet is empty
	spent, reserved := next.totals(t)
	assert.Equal(t, int64(2*price), spent, "what went through")
	assert.Equal(t, int64(2*price), reserved, "the refused payment and the one in doubt; the reservation was released")
	out, err := next.budget.Outstanding(ctx)
	require.NoError(t, err)
	require.Len(t, out, 2)
	assert.Equal(t, ledger.Refused, out[0].State)
	assert.True(t, ahead.Add(time.Minute).Equal(out[0].Expires), "expires by the clock that signed it: %s", out[0].Expires)
	assert.Equal(t, ledger.InDoubt, out[1].State)
	assert.Equal(t, "0xsigned", out[1].ID)
	for _, o := range out {
		assert.True(t, ahead.Equal(o.Reserved), "reserved at the time the process ahead read: %s", o.Reserved)
	}

	// The window of six counts the four holds of the process ahead (two committed, one refused,
	// one in doubt) until their own time has passed: the next process's own holds leave first.
	for range 2 {
		require.Zero(t, next.retryAt(t))
	}
	assert.Equal(t, t0.Add(time.Hour+time.Minute), next.retryAt(t))
	now.Set(t0.Add(time.Hour + time.Minute - time.Nanosecond))
	assert.Equal(t, t0.Add(time.Hour+time.Minute), next.retryAt(t), "a nanosecond before")
	now.Set(t0.Add(time.Hour + time.Minute))
	for range 2 {
		require.Zero(t, next.retryAt(t), "the next process's holds left the window")
	}
	assert.Equal(t, t0.Add(2*time.Hour+time.Minute), next.retryAt(t), "the four of the process ahead still count")

	// A day later the refused payment of the process ahead still counts: it could still settle.
	now.Set(t0.AddDate(0, 0, 1))
	require.ErrorIs(t, next.budget.Resolve(ctx, out[0].ID, false), budget.ErrPaymentNotExpired)
	_, reserved = next.totals(t)
	assert.Equal(t, int64(2*price+4), reserved)

	// A payment the next process signs and has refused counts until its own expiry plus the
	// margin on the present clock, not a moment less.
	rej = next.rejected(t, srv.URL+"/next")
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
	spent, reserved = third.totals(t)
	assert.Equal(t, int64(2*price), spent)
	assert.Equal(t, int64(2*price), reserved, "the next process's reservations were released")
	for range 2 {
		require.Zero(t, third.retryAt(t))
	}
	assert.Equal(t, now.Now().Add(time.Hour), third.retryAt(t), "the four of the process ahead still count")
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
	rej := first.rejected(t, srv.URL+"/first")
	assert.Equal(t, evm.ReasonInsufficientBalance, rej.Reason)
	_, reserved := first.totals(t)
	require.Equal(t, int64(price), reserved)
	require.NoError(t, first.store.Close())

	ahead := runOn(t, path, sdktest.NewClock(rej.HeldUntil.Add(time.Hour)), srv, 0)
	_, reserved = ahead.totals(t)
	assert.Zero(t, reserved, "by the clock ahead, the refused payment expired")
	out, err := ahead.budget.Outstanding(t.Context())
	require.NoError(t, err)
	assert.Empty(t, out)
	require.NoError(t, ahead.store.Close())

	now.Set(t0.Add(2 * time.Minute))
	next := runOn(t, path, now, srv, 0)
	_, reserved = next.totals(t)
	assert.Equal(t, int64(price), reserved, "on time, the refused payment still counts")
	out, err = next.budget.Outstanding(t.Context())
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.Refused, out[0].State)
	now.Set(rej.HeldUntil.Add(time.Nanosecond))
	_, reserved = next.totals(t)
	assert.Zero(t, reserved, "after its deadline on the present clock")
}

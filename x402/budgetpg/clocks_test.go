package budgetpg_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/signertest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/x402test"
)

// offClock is a process's clock: base's reading moved by off (an hour ahead, thirty years
// ahead), as a machine whose clock is wrong reads it.
type offClock struct {
	base sdk.Clock
	off  time.Duration
}

// Now returns base's time moved by off.
func (c offClock) Now() time.Time { return c.base.Now().Add(c.off) }

// Sleep sleeps on base.
func (c offClock) Sleep(ctx context.Context, d time.Duration) error { return c.base.Sleep(ctx, d) }

// process is one process of a fleet in a test: its store of the shared budget and its payer,
// whose clock is the process's own.
type process struct {
	store *budgetpg.Store
	*budgettest.Process
}

// startProcess opens the budget name as a new process would, deciding with pgClock (the
// test's stand-in for PostgreSQL's clock), with a payer paying from signer on clock.
func startProcess(t *testing.T, name string, pgClock, clock sdk.Clock, signer evm.Signer, srv *x402test.Server, opts ...budget.Option) *process {
	t.Helper()
	s, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(name))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	budgetpg.SetClock(s, pgClock)
	b, err := budget.New(big.NewInt(100*x402test.DefaultPrice), append([]budget.Option{budget.WithStore(s)}, opts...)...)
	require.NoError(t, err)
	scheme, err := evm.NewExact(signer)
	require.NoError(t, err)
	return &process{store: s, Process: budgettest.NewProcess(t, b, scheme, clock, srv.Client().Transport)}
}

// windowFull pays for url and checks that the budget's window of a count refuses it, with
// enough freeing up at retryAt.
func (p *process) windowFull(t *testing.T, url string, retryAt time.Time, msgAndArgs ...any) {
	t.Helper()
	err := p.Get(t, url)
	var pe *x402.PolicyError
	require.ErrorAs(t, err, &pe, msgAndArgs...)
	require.ErrorIs(t, err, x402.ErrPaymentCountExceeded, msgAndArgs...)
	assert.True(t, retryAt.Equal(pe.RetryAt), "the window frees up at %s, not %s: %v", retryAt, pe.RetryAt, msgAndArgs)
}

// reserved returns what the process's budget holds.
func (p *process) reserved(t *testing.T) int64 {
	t.Helper()
	v, err := p.Budget.Reserved(t.Context())
	require.NoError(t, err)
	require.True(t, v.IsInt64())
	return v.Int64()
}

// Two processes share a budget in PostgreSQL, one with its clock an hour ahead: its payer
// signs by that clock, so its authorizations are valid from 50 minutes later (the
// facilitator refuses them) and expire an hour late. Nothing frees earlier than the budget's
// one clock says, whichever process acts: a refused hold stays counted until that clock passes its
// expiry plus the margin, and a rolling window lets a payment in only once that clock has
// moved it. The one clock is PostgreSQL's, stood in for by a fake clock both stores read
// (budgetpg.SetClock), so that an hour's window and the two minutes' margin run in no time.
// See TestProcessesWithClocksAnHourApartShareOneClock for the same on PostgreSQL's own clock,
// in processes of their own.
func TestFleetClockAnHourAheadFreesNothingEarly(t *testing.T) {
	t.Parallel()
	const price = x402test.DefaultPrice
	t0 := time.Date(2031, 3, 4, 5, 6, 0, 0, time.UTC)
	pg := sdktest.NewClock(t0) // PostgreSQL's clock, which the world's clocks agree with
	srv := x402test.NewServer(x402test.WithFacilitator(x402test.NewFacilitator(x402test.WithClock(pg))))
	t.Cleanup(srv.Close)
	name := budgetName(t)
	window := budget.WithWindowLimit(time.Hour, nil, 2)
	aheadSigner, rightSigner := signertest.NewEVM(t, scan), signertest.NewEVM(t, scan)
	srv.Facilitator().Fund(aheadSigner.Address(), big.NewInt(100*price))
	srv.Facilitator().Fund(rightSigner.Address(), big.NewInt(2*price)) // its third payment is refused
	ahead := startProcess(t, name, pg, offClock{pg, time.Hour}, aheadSigner, srv, window)
	right := startProcess(t, name, pg, pg, rightSigner, srv, window)
	both := map[string]*process{"the process an hour ahead": ahead, "the process on time": right}
	reservedIn := func(want int64, msg string) {
		t.Helper()
		for who, p := range both {
			assert.Equal(t, want, p.reserved(t), "%s: %s", who, msg)
		}
	}

	// At t0 the process on time pays; the one ahead signs an authorization valid from 50
	// minutes later, which the facilitator refuses: it counts until it expires, an hour later
	// than one signed on time, and in the window.
	require.NoError(t, right.Get(t, srv.URL+"/right/1"))
	rej := ahead.Rejected(t, srv.URL+"/ahead/1")
	assert.Equal(t, evm.ReasonValidAfter, rej.Reason)
	aheadExpires := t0.Add(time.Hour + time.Minute)
	assert.True(t, aheadExpires.Add(ledger.ExpiryMargin).Equal(rej.HeldUntil), "held until %s", rej.HeldUntil)
	out, err := right.Budget.Outstanding(t.Context())
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.Refused, out[0].State)
	assert.True(t, aheadExpires.Equal(out[0].Expires), "the authorization expires by the clock it was signed with: %s", out[0].Expires)
	assert.True(t, t0.Equal(out[0].Reserved), "but it was reserved at the time PostgreSQL's clock read, not %s", out[0].Reserved)

	// The window holds two payments an hour: both count until PostgreSQL's clock reads
	// t0+1h, whichever process asks (the one ahead reads t0+1h as soon as t0).
	pg.Set(t0.Add(time.Minute))
	ahead.windowFull(t, srv.URL+"/ahead/2", t0.Add(time.Hour), "a minute after the first payments")
	right.windowFull(t, srv.URL+"/right/2", t0.Add(time.Hour), "a minute after the first payments")

	// A refused authorization signed on time at t0 would have expired now; this one counts.
	pg.Set(t0.Add(time.Minute + ledger.ExpiryMargin + time.Nanosecond))
	reservedIn(price, "the authorization of the process ahead expires by its own expiry")

	pg.Set(t0.Add(time.Hour - time.Nanosecond))
	right.windowFull(t, srv.URL+"/right/3", t0.Add(time.Hour), "a nanosecond before the window moves")
	ahead.windowFull(t, srv.URL+"/ahead/3", t0.Add(time.Hour), "a nanosecond before the window moves")

	pg.Set(t0.Add(time.Hour))
	require.NoError(t, right.Get(t, srv.URL+"/right/4"), "the window moved at t0+1h on PostgreSQL's clock")
	reservedIn(price, "the refused authorization counts until its expiry plus the margin")
	pg.Set(rej.HeldUntil)
	reservedIn(price, "at its deadline it still counts")
	pg.Set(rej.HeldUntil.Add(time.Nanosecond))
	assert.Zero(t, right.reserved(t), "a nanosecond later it has expired, the process on time asking first")
	assert.Zero(t, ahead.reserved(t))

	// A payment refused on time counts until its own expiry plus the margin on PostgreSQL's
	// clock, however far ahead the process that asks reads: the one ahead asks first.
	pg.Set(t0.Add(time.Hour + 4*time.Minute))
	rej = right.Rejected(t, srv.URL+"/right/5")
	assert.Equal(t, evm.ReasonInsufficientBalance, rej.Reason)
	deadline := t0.Add(time.Hour + 5*time.Minute).Add(ledger.ExpiryMargin)
	assert.True(t, deadline.Equal(rej.HeldUntil), "held until %s", rej.HeldUntil)
	ahead.windowFull(t, srv.URL+"/ahead/4", t0.Add(2*time.Hour), "the refused payment counts in the window")
	for _, at := range []time.Time{t0.Add(time.Hour + 5*time.Minute), deadline.Add(-time.Nanosecond), deadline} {
		pg.Set(at)
		assert.Equal(t, int64(price), ahead.reserved(t), "at %s, before its deadline on PostgreSQL's clock", at)
		assert.Equal(t, int64(price), right.reserved(t), "at %s", at)
	}
	pg.Set(deadline.Add(time.Nanosecond))
	assert.Zero(t, ahead.reserved(t), "a nanosecond after the deadline it has expired")
	assert.Zero(t, right.reserved(t))

	for who, p := range both {
		spent, err := p.Budget.Spent(t.Context())
		require.NoError(t, err)
		assert.Equal(t, int64(2*price), spent.Int64(), "%s: the two payments that went through", who)
		out, err := p.Budget.Outstanding(t.Context())
		require.NoError(t, err)
		assert.Empty(t, out, who)
	}
	assert.Len(t, srv.Facilitator().Settlements(), 2)
}

// A process whose clock reads thirty years ahead pays on a budget in PostgreSQL, then ends;
// the next process, on time, finds no trace of that clock that frees money: what went
// through is Spent, the payment it left signed is in doubt and the one refused still counts
// (their authorizations expire thirty years on, by the clock that signed them), its holds
// were reserved at PostgreSQL's time and count in the window until that clock has moved past
// them, and every decision of the next process is that of the present clock. PostgreSQL's
// clock is a fake one both stores read (budgetpg.SetClock). The same with the store's own
// clock thirty years ahead is ledgertest's ClockJumpsAcrossReopenings (TestStoreReopens).
func TestProcessThirtyYearsAheadLeavesNoTraceForTheNext(t *testing.T) {
	t.Parallel()
	const price = x402test.DefaultPrice
	t0 := time.Date(2031, 3, 4, 5, 6, 0, 0, time.UTC)
	ahead := t0.AddDate(30, 0, 0)
	pg := sdktest.NewClock(t0)
	srv := x402test.NewServer(x402test.WithFacilitator(x402test.NewFacilitator(x402test.WithClock(pg))))
	t.Cleanup(srv.Close)
	name := budgetName(t)
	window := budget.WithWindowLimit(time.Hour, nil, 6)
	ctx := t.Context()

	// The first process: two payments go through, one is refused (its authorization is not
	// valid yet), one is reserved and one signed when it ends.
	signer := signertest.NewEVM(t, scan)
	srv.Facilitator().Fund(signer.Address(), big.NewInt(100*price))
	clock := offClock{pg, ahead.Sub(t0)}
	first := startProcess(t, name, pg, clock, signer, srv, window)
	rej := budgettest.PayAhead(t, first.Process, clock, price, x402test.DefaultPayTo, srv.URL+"/first")
	assert.Equal(t, evm.ReasonValidAfter, rej.Reason)
	require.NoError(t, first.store.Close())

	// The next process, on time, a minute later.
	pg.Set(t0.Add(time.Minute))
	next := startProcess(t, name, pg, pg, signertest.NewEVM(t, scan), srv, window) // its wallet is empty
	out := budgettest.TraceOfAhead(t, next.Budget, price, ahead)
	for _, o := range out {
		assert.True(t, t0.Equal(o.Reserved), "reserved at PostgreSQL's time, not %s", o.Reserved)
	}

	// The window of six counts the first process's four holds until PostgreSQL's clock reads
	// t0+1h.
	for range 2 {
		require.Zero(t, budgettest.RetryAt(t, next.Budget))
	}
	assert.Equal(t, t0.Add(time.Hour), budgettest.RetryAt(t, next.Budget))
	pg.Set(t0.Add(time.Hour - time.Nanosecond))
	assert.Equal(t, t0.Add(time.Hour), budgettest.RetryAt(t, next.Budget))
	pg.Set(t0.Add(time.Hour))
	for range 4 {
		require.Zero(t, budgettest.RetryAt(t, next.Budget), "the first process's holds left the window at t0+1h")
	}
	assert.Equal(t, t0.Add(time.Hour+time.Minute), budgettest.RetryAt(t, next.Budget))

	// A day later the refused payment still counts: it could still settle.
	pg.Set(t0.AddDate(0, 0, 1))
	require.ErrorIs(t, next.Budget.Resolve(ctx, out[0].ID, false), budget.ErrPaymentNotExpired)
	assert.Equal(t, int64(2*price+6), next.reserved(t))

	// A payment the next process signs and has refused counts until its own expiry plus the
	// margin, on the present clock.
	now := pg.Now()
	rej = next.Rejected(t, srv.URL+"/next")
	assert.Equal(t, evm.ReasonInsufficientBalance, rej.Reason)
	deadline := now.Add(time.Minute + ledger.ExpiryMargin)
	assert.True(t, deadline.Equal(rej.HeldUntil), "held until %s", rej.HeldUntil)
	pg.Set(deadline)
	assert.Equal(t, int64(3*price+6), next.reserved(t), "at its deadline")
	pg.Set(deadline.Add(time.Nanosecond))
	assert.Equal(t, int64(2*price+6), next.reserved(t), "a nanosecond after its deadline")
	spent, err := next.Budget.Spent(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2*price), spent.Int64())
}

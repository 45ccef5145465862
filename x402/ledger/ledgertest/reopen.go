package ledgertest

import (
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/ledger"
)

// RunReopen runs the reopening rules of a durable store: what a reopened store finds of each
// state; that windows, payees and totals keep counting what was recorded before; that
// Resolve, the expiry of refused holds and hold ids go on across reopenings; that a process
// whose clock was 30 years ahead frees nothing early for the processes after it; and that
// the store records its limits, changed on purpose or refused when they differ silently.
func RunReopen(t *testing.T, open Open, reopen Reopen) {
	for _, c := range []struct {
		name string
		test func(*testing.T, Open, Reopen)
	}{
		{"ReopeningRules", testReopeningRules},
		{"ClockJumpsAcrossReopenings", testClockJumpsAcrossReopenings},
		{"LimitsChangedOnPurpose", testLimitsChangedAcrossReopenings},
		{"LimitsDifferSilently", testLimitsDiffer},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t, open, reopen)
		})
	}
}

// testReopeningRules takes a hold in every state across reopenings.
func testReopeningRules(t *testing.T, open Open, reopen Reopen) {
	limits := ledger.Limits{
		Total:    amount(10_000),
		PerPayee: amount(2_500),
		Windows:  []ledger.Window{{Length: time.Hour, Count: 7}},
	}
	f := configured(t, open, limits)
	expires := t0.Add(2 * time.Hour)
	ids := map[ledger.State]ledger.HoldID{}
	states := []ledger.State{ledger.Reserved, ledger.Signed, ledger.Refused, ledger.InDoubt, ledger.Committed, ledger.Released}
	for i, st := range states {
		ids[st] = f.inState(st, int64(100*(i+1)), fmt.Sprintf("0x%02x", i), expires, t0.Add(time.Duration(i)*time.Second))
	}
	now := t0.Add(10 * time.Second)
	lost := ledger.NewHoldID() // reserved, its answer lost
	faulty := NewFaulty(f.s)
	faulty.FailAfter("reserve")
	f.at(now)
	require.ErrorIs(t, faulty.Reserve(f.ctx, lost, ledger.Reservation{Amount: amount(1), PayTo: payee}), ErrFault)
	before := f.outstanding(now)
	require.Len(t, before, 5)

	f = reopened(t, f, reopen, limits)
	want := map[ledger.State]ledger.State{
		ledger.Reserved:  ledger.Released, // never signed: it cannot have left
		ledger.Signed:    ledger.InDoubt,  // it may have left: in doubt until resolved
		ledger.Refused:   ledger.Refused,
		ledger.InDoubt:   ledger.InDoubt,
		ledger.Committed: ledger.Committed,
		ledger.Released:  ledger.Released,
	}
	for st, id := range ids {
		assert.Equal(t, want[st], f.state(id, now), "a hold %s before reopening", st)
	}
	assert.Equal(t, ledger.Released, f.state(lost, now), "a reservation whose answer was lost is found after reopening")
	for _, id := range []ledger.HoldID{lost, ids[ledger.Reserved], ids[ledger.Committed]} {
		require.ErrorIs(t, f.s.Reserve(f.ctx, id, ledger.Reservation{Amount: amount(1), PayTo: payee}), ledger.ErrDuplicateHold,
			"an id recorded before reopening is still taken")
	}
	f.totals(now, 500, 200+300+400)
	after := f.outstanding(now)
	require.Len(t, after, 3)
	for _, o := range after {
		assert.NotEqual(t, ids[ledger.Reserved], o.Hold)
		for _, b := range before {
			if b.Hold == o.Hold {
				b.State = o.State
				assert.Equal(t, b, o, "what was recorded of a hold survives")
			}
		}
	}

	// The window counts the holds recorded before: signed, refused, in doubt and
	// committed; the three released ones left it.
	first := f.reserve(1, now)
	f.reserve(1, now)
	f.reserve(1, now)
	assertRefusal(t, f.refused(1, payee, now), ledger.KindWindowCount, time.Hour, 7, 0, t0.Add(time.Hour+time.Second))
	// The payee's use survives too: 200+300+400+500 recorded before, 3 since, of 2500; the
	// refused 300 frees up when it expires.
	assertRefusal(t, f.refused(1098, payee, t0.Add(90*time.Minute)), ledger.KindPayee, 0, 2_500, 1_097,
		expires.Add(ledger.ExpiryMargin+time.Nanosecond))

	// Resolve finds the holds by their payment id, and refused holds expire, across a
	// reopening. The holds reserved since the last reopening were never signed: released.
	f = reopened(t, f, reopen, limits)
	assert.Equal(t, ledger.Released, f.state(first, now), "reserved and never signed before this reopening")
	later := t0.Add(3 * time.Hour)
	f.at(now)
	require.NoError(t, f.s.Resolve(f.ctx, "0x01", true))
	f.totals(now, 700, 300+400)
	f.totals(later, 700, 400, "the refused hold expired")
	require.NoError(t, f.s.Resolve(f.ctx, "0x03", false))
	f = reopened(t, f, reopen, limits)
	f.totals(later, 700, 0, "the reopened store finds the holds resolved and expired")
	assert.Equal(t, ledger.Committed, f.state(ids[ledger.Signed], later))
	assert.Equal(t, ledger.Released, f.state(ids[ledger.Refused], later))
	assert.Equal(t, ledger.Released, f.state(ids[ledger.InDoubt], later))
	assert.Equal(t, ledger.Committed, f.state(ids[ledger.Committed], later))
	assert.Empty(t, f.outstanding(later))
}

// testClockJumpsAcrossReopenings runs testClockJumps with a process whose clock reads 30
// years ahead between two whose clocks are right: what it recorded frees nothing early for
// the next.
func testClockJumpsAcrossReopenings(t *testing.T, open Open, reopen Reopen) {
	f := configured(t, open, jumpLimits)
	clockJumps(t, f, func(f *fixture, now time.Time) *fixture {
		f.at(now)
		return reopened(t, f, reopen, jumpLimits)
	})
}

// testLimitsChangedAcrossReopenings checks that a durable store records limits changed on
// purpose: the next process configures with the new ones, not the old ones, and finds every
// hold and Spent.
func testLimitsChangedAcrossReopenings(t *testing.T, open Open, reopen Reopen) {
	old := ledger.Limits{Total: amount(100)}
	f := configured(t, open, old)
	f.inState(ledger.Committed, 30, "0x01", t0.Add(time.Hour), t0)
	f.inState(ledger.Signed, 20, "0x02", t0.Add(time.Hour), t0)
	changed := ledger.Limits{Total: amount(60), PerPayee: amount(45)}
	f.change(changed, t0)

	s := reopen(t, f.s, f.clock)
	err := s.Configure(f.ctx, old)
	require.ErrorIs(t, err, ledger.ErrLimitsDiffer, "the old limits were replaced")
	var le *ledger.LimitsError
	require.ErrorAs(t, err, &le)
	assert.True(t, changed.Equal(le.Recorded), "the recorded limits: %v", le.Recorded)
	assert.True(t, old.Equal(le.Asked), "the limits asked for: %v", le.Asked)
	require.NoError(t, s.Configure(f.ctx, changed))
	f = &fixture{t: t, s: s, ctx: f.ctx, clock: f.clock}
	f.totals(t0, 30, 20)
	assertRefusal(t, f.refused(11, payee, t0), ledger.KindTotal, 0, 60, 10, time.Time{})

	s = reopen(t, f.s, f.clock)
	require.NoError(t, s.ChangeLimits(f.ctx, old), "ChangeLimits in place of Configure")
	s = reopen(t, s, f.clock)
	require.NoError(t, s.Configure(f.ctx, old))
}

// testLimitsDiffer checks that a durable store refuses a Configure whose limits differ from
// those it recorded, naming both, and stays unconfigured.
func testLimitsDiffer(t *testing.T, open Open, reopen Reopen) {
	limits := ledger.Limits{Total: amount(1000), PerPayment: amount(100), Payees: map[string]*big.Int{"0xbb": amount(50), "0xaa": amount(70)},
		Windows: []ledger.Window{{Length: time.Minute, Count: 5}, {Length: time.Hour, Amount: amount(500)}}}
	f := configured(t, open, limits)
	same := limits.Clone()
	same.Payees = map[string]*big.Int{"0xaa": amount(70), "0xbb": amount(50)}
	s := reopen(t, f.s, f.clock)
	require.NoError(t, s.Configure(f.ctx, same), "the same limits, payees in another order")
	for name, other := range map[string]ledger.Limits{
		"another total":    {Total: amount(2000), PerPayment: limits.PerPayment, Payees: limits.Payees, Windows: limits.Windows},
		"windows reversed": {Total: limits.Total, PerPayment: limits.PerPayment, Payees: limits.Payees, Windows: []ledger.Window{limits.Windows[1], limits.Windows[0]}},
		"a payee less":     {Total: limits.Total, PerPayment: limits.PerPayment, Payees: map[string]*big.Int{"0xaa": amount(70)}, Windows: limits.Windows},
		"a payee's case":   {Total: limits.Total, PerPayment: limits.PerPayment, Payees: map[string]*big.Int{"0xAA": amount(70), "0xbb": amount(50)}, Windows: limits.Windows},
		"no limits":        {},
	} {
		s = reopen(t, s, f.clock)
		err := s.Configure(f.ctx, other)
		require.ErrorIs(t, err, ledger.ErrLimitsDiffer, name)
		assert.Contains(t, err.Error(), "total 1000, per payment 100, payee 0xaa 70, payee 0xbb 50, "+
			"window 1m0s: 5 payments, window 1h0m0s: amount 500", "%s: the recorded limits", name)
		assert.Contains(t, err.Error(), other.String(), "%s: the limits asked for", name)
		err = s.Reserve(f.ctx, ledger.NewHoldID(), ledger.Reservation{Amount: amount(1), PayTo: payee})
		require.True(t, errors.Is(err, ledger.ErrNotConfigured), "%s: a store refused its limits stays unconfigured: %v", name, err)
	}
	require.NoError(t, s.Configure(f.ctx, limits), "the recorded limits are still accepted")
}

// reopened reopens f's store with f's clock and configures it with limits.
func reopened(t *testing.T, f *fixture, reopen Reopen, limits ledger.Limits) *fixture {
	t.Helper()
	s := reopen(t, f.s, f.clock)
	require.NoError(t, s.Configure(t.Context(), limits))
	return &fixture{t: t, s: s, ctx: t.Context(), clock: f.clock}
}

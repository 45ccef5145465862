package ledgertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/ledger"
)

// RunReopen runs the reopening rules of a durable store: what a reopened store finds of each
// state, that windows, payees and totals keep counting what was recorded before, and that
// Resolve and the expiry of refused holds go on across reopenings.
func RunReopen(t *testing.T, open Open, reopen Reopen) {
	limits := ledger.Limits{
		Total:    amount(10_000),
		PerPayee: amount(2_500),
		Windows:  []ledger.Window{{Length: time.Hour, Count: 6}},
	}
	f := configured(t, open, limits)
	expires := t0.Add(2 * time.Hour)
	ids := map[ledger.State]ledger.HoldID{}
	states := []ledger.State{ledger.Reserved, ledger.Signed, ledger.Refused, ledger.InDoubt, ledger.Committed, ledger.Released}
	for i, st := range states {
		ids[st] = f.inState(st, int64(100*(i+1)), fmt.Sprintf("0x%02x", i), expires, t0.Add(time.Duration(i)*time.Second))
	}
	before := f.outstanding(t0.Add(10 * time.Second))
	require.Len(t, before, 4)

	f = reopened(t, f, reopen, limits)
	now := t0.Add(10 * time.Second)
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
	f.totals(now, 500, 200+300+400)
	after := f.outstanding(now)
	require.Len(t, after, 3)
	for _, e := range after {
		assert.NotEqual(t, ids[ledger.Reserved], e.Hold)
		for _, b := range before {
			if b.Hold == e.Hold {
				b.State = e.State
				assert.Equal(t, b, e, "what was recorded of a hold survives")
			}
		}
	}

	// The window counts the holds recorded before: signed, refused, in doubt and
	// committed; the released two left it.
	first := f.reserve(1, now)
	for st, id := range ids {
		assert.Greater(t, first, id, "a hold reserved after reopening has a new id (after the %s one)", st)
	}
	f.reserve(1, now)
	assertRefusal(t, f.refused(1, payee, now), ledger.KindWindowCount, time.Hour, 6, 0, t0.Add(time.Hour+time.Second))
	// The payee's use survives too: 200+300+400+500 recorded before, 1+1 since, of 2500;
	// the refused 300 frees up when it expires.
	assertRefusal(t, f.refused(1099, payee, t0.Add(90*time.Minute)), ledger.KindPayee, 0, 2_500, 1_098,
		expires.Add(ledger.ExpiryMargin+time.Nanosecond))

	// Resolve finds the holds by their id, and refused holds expire, across a reopening.
	// The two holds reserved since the last reopening were never signed: released.
	f = reopened(t, f, reopen, limits)
	assert.Equal(t, ledger.Released, f.state(first, now), "reserved and never signed before this reopening")
	later := t0.Add(3 * time.Hour)
	require.NoError(t, f.s.Resolve(f.ctx, "0x01", true, now))
	f.totals(now, 700, 300+400)
	f.totals(later, 700, 400, "the refused hold expired")
	require.NoError(t, f.s.Resolve(f.ctx, "0x03", false, later))
	f = reopened(t, f, reopen, limits)
	f.totals(later, 700, 0, "the reopened store finds the holds resolved and expired")
	assert.Equal(t, ledger.Committed, f.state(ids[ledger.Signed], later))
	assert.Equal(t, ledger.Released, f.state(ids[ledger.Refused], later))
	assert.Equal(t, ledger.Released, f.state(ids[ledger.InDoubt], later))
	assert.Equal(t, ledger.Committed, f.state(ids[ledger.Committed], later))
	assert.Empty(t, f.outstanding(later))
}

// reopened reopens f's store and configures it with limits.
func reopened(t *testing.T, f *fixture, reopen Reopen, limits ledger.Limits) *fixture {
	t.Helper()
	s := reopen(t, f.s)
	require.NoError(t, s.Configure(t.Context(), limits))
	return &fixture{t: t, s: s, ctx: t.Context()}
}

package ledgertest

import (
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/ledger"
)

// Run runs the contract of ledger.Store against the stores open returns: every transition
// of the state machine, every limit with its refusals, the expiry of refused holds,
// Resolve, concurrency at a window's edge, that nothing is released on an error, hold ids
// (a duplicate refused, a lost answer found again), the clock jumping ahead and back, and
// limits changed on purpose.
func Run(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		test func(*testing.T, Open)
	}{
		{"Transitions", testTransitions},
		{"Sign", testSign},
		{"OutstandingAndTotals", testOutstandingAndTotals},
		{"LookupDataComesBack", testLookupData},
		{"PerPayment", testPerPayment},
		{"Total", testTotal},
		{"TotalRetryAtFollowsExpiries", testTotalRetryAt},
		{"Payees", testPayees},
		{"PayeesAreComparedExactly", testPayeesExact},
		{"WindowAmount", testWindowAmount},
		{"WindowCount", testWindowCount},
		{"SeveralLimits", testSeveralLimits},
		{"WindowEdgeUnderConcurrency", testWindowEdgeUnderConcurrency},
		{"TotalUnderConcurrency", testTotalUnderConcurrency},
		{"RefusedHoldsExpire", testRefusedExpire},
		{"Resolve", testResolve},
		{"NothingReleasedOnError", testNothingReleasedOnError},
		{"DuplicateHoldID", testDuplicateHold},
		{"LostReserveAnswer", testLostReserve},
		{"ClockJumpsAheadAndBack", testClockJumps},
		{"ClockGoesBackWithinAWindow", testClockBack},
		{"ChangeLimits", testChangeLimits},
		{"ConfigureAndClose", testConfigureAndClose},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t, open)
		})
	}
}

// testTransitions takes a hold in every state through every move.
func testTransitions(t *testing.T, open Open) {
	const (
		discard = -1 // the move Discard, beside the states Mark moves to
		signed  = "signed"
	)
	type move struct {
		to   ledger.State
		want ledger.State
		err  error
	}
	R, S, F, D, C, X := ledger.Reserved, ledger.Signed, ledger.Refused, ledger.InDoubt, ledger.Committed, ledger.Released
	cases := map[ledger.State][]move{
		R: {{F, R, nil}, {D, R, nil}, {C, C, nil}, {X, X, nil}, {discard, X, nil}},
		S: {{F, F, nil}, {D, D, nil}, {C, C, nil}, {X, S, ledger.ErrSigned}, {discard, X, nil}},
		F: {{F, F, nil}, {D, D, nil}, {C, C, nil}, {X, F, ledger.ErrSigned}, {discard, F, nil}},
		D: {{F, D, nil}, {D, D, nil}, {C, C, nil}, {X, D, ledger.ErrSigned}, {discard, D, nil}},
		C: {{F, C, nil}, {D, C, nil}, {C, C, nil}, {X, C, nil}, {discard, C, nil}},
		X: {{F, X, nil}, {D, X, nil}, {C, X, nil}, {X, X, nil}, {discard, X, nil}},
	}
	for from, moves := range cases {
		for _, m := range moves {
			name := "Discard"
			if m.to != discard {
				name = "Mark " + m.to.String()
			}
			t.Run(fmt.Sprintf("%s/%s", from, name), func(t *testing.T) {
				f := configured(t, open, ledger.Limits{})
				id := f.inState(from, 70, signed, t0.Add(time.Hour), t0)
				f.at(t0.Add(time.Second))
				var got ledger.State
				var err error
				if m.to == discard {
					got, err = f.s.Discard(f.ctx, id)
				} else {
					got, err = f.s.Mark(f.ctx, id, m.to)
				}
				if m.err != nil {
					require.ErrorIs(t, err, m.err)
				} else {
					require.NoError(t, err)
				}
				assert.Equal(t, m.want, got, "the state the move reports")
				assert.Equal(t, m.want, f.state(id, t0.Add(2*time.Second)), "the state the store keeps")
				var spent, held int64
				switch m.want {
				case C:
					spent = 70
				case R, S, F, D:
					held = 70
				}
				f.totals(t0.Add(2*time.Second), spent, held)
			})
		}
	}
}

// testSign checks that Sign applies to a reserved hold only, and changes nothing when it
// fails.
func testSign(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{})
	expires := t0.Add(10 * time.Minute)
	err := f.s.Sign(f.ctx, ledger.NewHoldID(), ledger.Signature{ID: "0x01", Expires: expires})
	require.ErrorIs(t, err, ledger.ErrUnknownHold)

	a := f.reserve(10, t0)
	require.True(t, isInput(f.s.Sign(f.ctx, a, ledger.Signature{ID: "", Expires: expires})), "an empty id")
	require.True(t, isInput(f.s.Sign(f.ctx, a, ledger.Signature{ID: "0x01", Expires: time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)})),
		"an expiry out of range")
	assert.Equal(t, ledger.Reserved, f.state(a, t0), "a refused Sign changes nothing")

	f.sign(a, "0x01", expires, t0)
	require.ErrorIs(t, f.s.Sign(f.ctx, a, ledger.Signature{ID: "0x02", Expires: expires}), ledger.ErrNotReserved)
	require.ErrorIs(t, f.s.Sign(f.ctx, a, ledger.Signature{ID: "0x01", Expires: expires}), ledger.ErrNotReserved,
		"signing again, even the same payment, is refused")
	b := f.reserve(20, t0)
	require.ErrorIs(t, f.s.Sign(f.ctx, b, ledger.Signature{ID: "0x01", Expires: expires}), ledger.ErrDuplicateID)
	assert.Equal(t, ledger.Reserved, f.state(b, t0))
	out := f.outstanding(t0)
	require.Len(t, out, 2)
	assert.Equal(t, "", out[0].ID, "b is still unsigned")
	assert.Equal(t, b, out[0].Hold)
	assert.Equal(t, "0x01", out[1].ID, "a keeps what it signed first")
	assert.True(t, expires.Equal(out[1].Expires))
	released, err := f.s.Mark(f.ctx, b, ledger.Released)
	require.NoError(t, err, "a hold whose Sign failed is still reserved, so it can be released")
	assert.Equal(t, ledger.Released, released)
	require.ErrorIs(t, f.s.Sign(f.ctx, b, ledger.Signature{ID: "0x03", Expires: expires}), ledger.ErrNotReserved)
	f.totals(t0, 0, 10)
}

// testOutstandingAndTotals checks the listing and the sums.
func testOutstandingAndTotals(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{})
	reserved := ledger.NewHoldID()
	require.NoError(t, f.s.Reserve(f.ctx, reserved, ledger.Reservation{Amount: amount(100), PayTo: "0xPayee", Rail: "x402 eip155:8453",
		Resource: "https://shop.example/item"}))
	second := f.reserve(60, t0.Add(500*time.Millisecond)) // unsigned too: listed in reservation order
	late := f.inState(ledger.Signed, 200, "0xbb", t0.Add(2*time.Minute), t0.Add(time.Second))
	early := f.inState(ledger.Refused, 300, "0xcc", t0.Add(time.Minute), t0.Add(2*time.Second))
	f.inState(ledger.Committed, 400, "0xdd", t0.Add(time.Minute), t0.Add(3*time.Second))
	f.inState(ledger.Released, 50, "", time.Time{}, t0.Add(4*time.Second))
	same := f.inState(ledger.InDoubt, 250, "0xaa", t0.Add(2*time.Minute), t0.Add(5*time.Second))
	third := f.reserve(70, t0.Add(6*time.Second))

	f.totals(t0.Add(6*time.Second), 400, 980)
	out := f.outstanding(t0.Add(6 * time.Second))
	require.Len(t, out, 6)
	got := make([]ledger.HoldID, len(out))
	for i, o := range out {
		got[i] = o.Hold
	}
	assert.Equal(t, []ledger.HoldID{reserved, second, third, early, same, late}, got,
		"no expiry first (in reservation order), then the oldest expiry, then by payment id")
	assert.Equal(t, ledger.Outstanding{Hold: reserved, Amount: amount(100), PayTo: "0xPayee", Rail: "x402 eip155:8453",
		Resource: "https://shop.example/item", Reserved: t0, State: ledger.Reserved}, out[0])
	assert.Equal(t, ledger.Outstanding{Hold: early, Amount: amount(300), PayTo: payee, Rail: "test", Resource: "/item",
		Reserved: t0.Add(2 * time.Second), Signature: ledger.Signature{ID: "0xcc", Expires: t0.Add(time.Minute)},
		State: ledger.Refused}, out[3])
	assert.Equal(t, ledger.InDoubt, out[4].State)
	assert.Equal(t, "0xaa", out[4].ID)
	assert.Equal(t, ledger.Signed, out[5].State)
	assert.Equal(t, time.UTC, out[5].Expires.Location(), "times come back in UTC")
	assert.Equal(t, time.UTC, out[5].Reserved.Location())
}

// testLookupData checks that what a reconciler needs to look a payment up (the payer, the
// asset, the signature's ID, expiry and Ref) comes back exactly as given.
func testLookupData(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{})
	id := ledger.NewHoldID()
	require.NoError(t, f.s.Reserve(f.ctx, id, ledger.Reservation{Amount: amount(100), PayTo: "Treasury111", Rail: "solana",
		Resource: "key pro", Payer: "Payer1111111111111111111111111111", Asset: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"}))
	const ref = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn 318274655"
	sig := ledger.Signature{ID: "5VERv8NMvzbJ", Expires: t0.Add(time.Minute), Ref: ref}
	require.NoError(t, f.s.Sign(f.ctx, id, sig))
	out := f.outstanding(t0)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.Outstanding{Hold: id, Amount: amount(100), PayTo: "Treasury111", Rail: "solana", Resource: "key pro",
		Payer: "Payer1111111111111111111111111111", Asset: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
		Reserved: t0, Signature: sig, State: ledger.Signed}, out[0])
}

// testPerPayment checks the per-payment limit.
func testPerPayment(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{PerPayment: amount(100), Total: amount(1000)})
	assertRefusal(t, f.refused(101, payee, t0), ledger.KindPerPayment, 0, 100, 100, time.Time{})
	f.reserve(100, t0)
	f.reserve(0, t0)
	f.totals(t0, 0, 100)
}

// testTotal checks the total limit, what it says is left, and when a refused hold frees it.
func testTotal(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{Total: amount(1000)})
	first := f.reserve(600, t0)
	assertRefusal(t, f.refused(401, payee, t0), ledger.KindTotal, 0, 1000, 400, time.Time{})
	f.reserve(400, t0)
	assertRefusal(t, f.refused(1, payee, t0), ledger.KindTotal, 0, 1000, 0, time.Time{})
	f.totals(t0, 0, 1000)

	// Once the first is refused, it frees up when its expiry plus the margin has passed.
	expires := t0.Add(time.Minute)
	f.sign(first, "0x01", expires, t0)
	f.mark(first, ledger.Refused, t0)
	free := expires.Add(ledger.ExpiryMargin).Add(time.Nanosecond)
	assertRefusal(t, f.refused(600, payee, t0), ledger.KindTotal, 0, 1000, 0, free)
	assertRefusal(t, f.refused(601, payee, t0), ledger.KindTotal, 0, 1000, 0, time.Time{})
	assertRefusal(t, f.refused(600, payee, free.Add(-time.Nanosecond)), ledger.KindTotal, 0, 1000, 0, free)
	f.reserve(600, free)
	f.totals(free, 0, 1000)
}

// testTotalRetryAt checks that RetryAt adds up refused holds in the order they expire.
func testTotalRetryAt(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{Total: amount(100)})
	margin := ledger.ExpiryMargin
	f.inState(ledger.Refused, 10, "0x01", t0.Add(3*time.Minute), t0)
	f.inState(ledger.Refused, 20, "0x02", t0.Add(1*time.Minute), t0)
	f.inState(ledger.Refused, 30, "0x03", t0.Add(2*time.Minute), t0)
	f.inState(ledger.InDoubt, 40, "0x04", t0.Add(time.Minute), t0)
	assertRefusal(t, f.refused(20, payee, t0), ledger.KindTotal, 0, 100, 0, t0.Add(time.Minute+margin+time.Nanosecond))
	assertRefusal(t, f.refused(45, payee, t0), ledger.KindTotal, 0, 100, 0, t0.Add(2*time.Minute+margin+time.Nanosecond))
	assertRefusal(t, f.refused(60, payee, t0), ledger.KindTotal, 0, 100, 0, t0.Add(3*time.Minute+margin+time.Nanosecond))
	assertRefusal(t, f.refused(61, payee, t0), ledger.KindTotal, 0, 100, 0, time.Time{})
}

// testPayees checks the per-payee limits: spent and held counted, a release giving room
// back, and RetryAt from that payee's refused holds only.
func testPayees(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{PerPayee: amount(100), Payees: map[string]*big.Int{"0xaa": amount(300)}})
	_, err := f.try(80, "0xbb", t0)
	require.NoError(t, err)
	r := f.refused(30, "0xbb", t0)
	assertRefusal(t, r, ledger.KindPayee, 0, 100, 20, time.Time{})
	assert.Equal(t, "0xbb", r.PayTo, "the payee of the refused reservation")
	_, err = f.try(20, "0xbb", t0)
	require.NoError(t, err)
	_, err = f.try(100, "0xcc", t0)
	require.NoError(t, err, "every payee has a limit of its own")

	large, err := f.try(250, "0xaa", t0)
	require.NoError(t, err, "a payee named in Payees has its own limit")
	assertRefusal(t, f.refused(60, "0xaa", t0), ledger.KindPayee, 0, 300, 50, time.Time{})
	f.sign(large, "0x01", t0.Add(time.Hour), t0)
	f.mark(large, ledger.Committed, t0)
	assertRefusal(t, f.refused(60, "0xaa", t0), ledger.KindPayee, 0, 300, 50, time.Time{})
	small, err := f.try(50, "0xaa", t0)
	require.NoError(t, err)
	f.mark(small, ledger.Released, t0)
	_, err = f.try(50, "0xaa", t0)
	require.NoError(t, err, "a release gives the payee's room back")

	// A refused hold to another payee does not free this one.
	other, err := f.try(40, "0xdd", t0)
	require.NoError(t, err)
	f.sign(other, "0x02", t0.Add(time.Minute), t0)
	f.mark(other, ledger.Refused, t0)
	mine, err := f.try(60, "0xee", t0)
	require.NoError(t, err)
	f.sign(mine, "0x03", t0.Add(5*time.Minute), t0)
	f.mark(mine, ledger.Refused, t0)
	assertRefusal(t, f.refused(50, "0xee", t0), ledger.KindPayee, 0, 100, 40, t0.Add(5*time.Minute+ledger.ExpiryMargin+time.Nanosecond))
	f.totals(t0, 250, 80+20+100+50+40+60)
}

// testPayeesExact checks that payees are compared exactly, as the caller gives them: two
// Solana addresses that differ only in letter case are two payees, and a payee named in
// Payees in another case is another payee.
func testPayeesExact(t *testing.T, open Open) {
	const upper, lower = "Treasury7vJzRz", "treasury7vjzrz"
	f := configured(t, open, ledger.Limits{PerPayee: amount(100), Payees: map[string]*big.Int{upper: amount(10)}})
	_, err := f.try(10, upper, t0)
	require.NoError(t, err)
	r := f.refused(1, upper, t0)
	assertRefusal(t, r, ledger.KindPayee, 0, 10, 0, time.Time{})
	_, err = f.try(100, lower, t0)
	require.NoError(t, err, "another letter case is another payee, under PerPayee")
	assertRefusal(t, f.refused(1, lower, t0), ledger.KindPayee, 0, 100, 0, time.Time{})
	_, err = f.try(100, "0xAA", t0)
	require.NoError(t, err, "no store lower-cases a payee")
	_, err = f.try(100, "0xaa", t0)
	require.NoError(t, err)
	f.totals(t0, 0, 310)
}

// testWindowAmount checks a window's amount: its edges, RetryAt, and which holds count.
func testWindowAmount(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{Windows: []ledger.Window{{Length: time.Hour, Amount: amount(100)}}})
	a := f.reserve(60, t0)
	f.reserve(30, t0.Add(10*time.Minute))
	at := t0.Add(20 * time.Minute)
	assertRefusal(t, f.refused(20, payee, at), ledger.KindWindowAmount, time.Hour, 100, 10, t0.Add(time.Hour))
	assertRefusal(t, f.refused(101, payee, at), ledger.KindWindowAmount, time.Hour, 100, 10, time.Time{})
	f.reserve(10, at)
	assertRefusal(t, f.refused(1, payee, at), ledger.KindWindowAmount, time.Hour, 100, 0, t0.Add(time.Hour))
	assertRefusal(t, f.refused(70, payee, at), ledger.KindWindowAmount, time.Hour, 100, 0, t0.Add(70*time.Minute))

	// A committed hold keeps counting; the window's edge is exact.
	f.sign(a, "0x01", t0.Add(time.Minute), at)
	f.mark(a, ledger.Committed, at)
	edge := t0.Add(time.Hour)
	assertRefusal(t, f.refused(60, payee, edge.Add(-time.Nanosecond)), ledger.KindWindowAmount, time.Hour, 100, 0, edge)
	b := f.reserve(60, edge)
	// A released hold leaves the window at once.
	f.mark(b, ledger.Released, edge)
	f.reserve(60, edge)
	assertRefusal(t, f.refused(1, payee, edge), ledger.KindWindowAmount, time.Hour, 100, 0, t0.Add(70*time.Minute))
	f.totals(edge, 60, 30+10+60)
}

// testWindowCount checks a window's count.
func testWindowCount(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{Windows: []ledger.Window{{Length: time.Minute, Count: 3}}})
	f.reserve(5, t0)
	second := f.reserve(5, t0.Add(10*time.Second))
	f.reserve(5, t0.Add(20*time.Second))
	assertRefusal(t, f.refused(1, payee, t0.Add(30*time.Second)), ledger.KindWindowCount, time.Minute, 3, 0, t0.Add(time.Minute))
	f.mark(second, ledger.Released, t0.Add(30*time.Second))
	f.reserve(0, t0.Add(30*time.Second)) // a free payment counts too
	assertRefusal(t, f.refused(1, payee, t0.Add(40*time.Second)), ledger.KindWindowCount, time.Minute, 3, 0, t0.Add(time.Minute))
	assertRefusal(t, f.refused(1, payee, t0.Add(time.Minute-time.Nanosecond)), ledger.KindWindowCount, time.Minute, 3, 0, t0.Add(time.Minute))
	f.reserve(1, t0.Add(time.Minute))
	assertRefusal(t, f.refused(1, payee, t0.Add(time.Minute)), ledger.KindWindowCount, time.Minute, 3, 0, t0.Add(80*time.Second))
	f.totals(t0.Add(time.Minute), 0, 5+5+0+1)
}

// testSeveralLimits checks which refusal is reported when several limits refuse.
func testSeveralLimits(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{Windows: []ledger.Window{
		{Length: time.Minute, Count: 1}, {Length: time.Hour, Count: 1}, {Length: 10 * time.Minute, Count: 1},
	}})
	f.reserve(1, t0)
	r := f.refused(1, payee, t0.Add(time.Second))
	assertRefusal(t, r, ledger.KindWindowCount, time.Hour, 1, 0, t0.Add(time.Hour))

	g := configured(t, open, ledger.Limits{Total: amount(10), Windows: []ledger.Window{{Length: time.Hour, Amount: amount(5)}}})
	g.reserve(5, t0)
	assertRefusal(t, g.refused(5, payee, t0), ledger.KindWindowAmount, time.Hour, 5, 0, t0.Add(time.Hour))
	g.reserve(5, t0.Add(time.Hour))
	assertRefusal(t, g.refused(5, payee, t0.Add(time.Hour)), ledger.KindTotal, 0, 10, 0, time.Time{})

	h := configured(t, open, ledger.Limits{PerPayee: amount(10), Windows: []ledger.Window{{Length: time.Hour, Count: 1}}})
	h.reserve(10, t0)
	r = h.refused(1, payee, t0)
	assertRefusal(t, r, ledger.KindPayee, 0, 10, 0, time.Time{})
	assert.Equal(t, payee, r.PayTo)
}

// testWindowEdgeUnderConcurrency reserves from many goroutines at once at a window's edge:
// the window never holds more than it allows, and no refusal was needless.
func testWindowEdgeUnderConcurrency(t *testing.T, open Open) {
	limits := ledger.Limits{Windows: []ledger.Window{{Length: time.Minute, Count: 10}, {Length: time.Hour, Amount: amount(300)}}}
	f := configured(t, open, limits)
	for range 10 {
		f.reserve(1, t0)
	}
	edge := t0.Add(time.Minute) // the first ten leave the minute at its edge, not before
	granted, refused := concurrently(t, f, 32, edge.Add(-time.Nanosecond), func(int) int64 { return 1 })
	assert.Empty(t, granted, "a nanosecond before the edge, the minute is full")
	assert.Len(t, refused, 32)
	granted, _ = concurrently(t, f, 64, edge, func(int) int64 { return 1 })
	assert.Len(t, granted, 10, "at the edge, exactly ten fit")
	f.totals(edge, 0, 20)

	g := configured(t, open, limits)
	for range 10 {
		g.reserve(1, t0)
	}
	granted, refused = concurrently(t, g, 64, edge, func(i int) int64 { return int64(20 + i%37) })
	sum := int64(10)
	for _, n := range granted {
		sum += n
	}
	assert.LessOrEqual(t, len(granted), 10, "the minute holds 10 payments at most")
	assert.LessOrEqual(t, sum, int64(300), "the hour holds 300 at most")
	if len(granted) < 10 { // the count refused nothing: every refusal was the amount's
		for _, n := range refused {
			assert.Greater(t, sum+n, int64(300), "a payment of %d was refused while it fitted", n)
		}
	}
	g.totals(edge, 0, sum)
}

// concurrently reserves from n goroutines at once, at now, goroutine i reserving
// amountOf(i), and returns the amounts granted and refused.
func concurrently(t *testing.T, f *fixture, n int, now time.Time, amountOf func(int) int64) (granted, refused []int64) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	start := make(chan struct{})
	f.at(now)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			a := amountOf(i)
			err := f.s.Reserve(f.ctx, ledger.NewHoldID(), ledger.Reservation{Amount: amount(a), PayTo: payee, Rail: "test", Resource: "/item"})
			mu.Lock()
			defer mu.Unlock()
			var r *ledger.Refusal
			switch {
			case err == nil:
				granted = append(granted, a)
			case assert.ErrorAs(t, err, &r):
				refused = append(refused, a)
			}
		}()
	}
	close(start)
	wg.Wait()
	return granted, refused
}

// testTotalUnderConcurrency pays from many goroutines sharing a total.
func testTotalUnderConcurrency(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{Total: amount(50)})
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := ledger.NewHoldID()
			if err := f.s.Reserve(f.ctx, id, ledger.Reservation{Amount: amount(1), PayTo: payee}); err != nil {
				return
			}
			mu.Lock()
			granted++
			mu.Unlock()
			if !assert.NoError(t, f.s.Sign(f.ctx, id, ledger.Signature{ID: fmt.Sprintf("0x%04x", i), Expires: t0.Add(time.Hour)})) {
				return
			}
			_, err := f.s.Mark(f.ctx, id, []ledger.State{ledger.Committed, ledger.InDoubt, ledger.Refused}[i%3])
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	assert.Equal(t, 50, granted)
	tot, err := f.s.Totals(f.ctx)
	require.NoError(t, err)
	assert.Equal(t, "50", new(big.Int).Add(tot.Spent, tot.Held).String(), "spent plus held is what was granted")
}

// testRefusedExpire checks that a refused hold counts until its expiry plus the margin, and
// that nothing else is released by time.
func testRefusedExpire(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{})
	expires := t0.Add(time.Minute)
	refused := f.inState(ledger.Refused, 100, "0x01", expires, t0)
	unknown := f.inState(ledger.Refused, 10, "0x02", time.Time{}, t0)
	doubt := f.inState(ledger.InDoubt, 20, "0x03", expires, t0)
	signed := f.inState(ledger.Signed, 40, "0x04", expires, t0)
	deadline := expires.Add(ledger.ExpiryMargin)
	f.totals(deadline, 0, 170, "until the margin has passed, a refused hold counts")
	assert.Equal(t, ledger.Refused, f.state(refused, deadline))
	after := deadline.Add(time.Nanosecond)
	f.totals(after, 0, 70, "then it is released")
	assert.Equal(t, ledger.Released, f.state(refused, after))
	for _, o := range f.outstanding(after) {
		assert.NotEqual(t, refused, o.Hold)
	}
	later := t0.AddDate(10, 0, 0)
	assert.Equal(t, ledger.Refused, f.state(unknown, later), "a refused hold without an expiry counts until resolved")
	assert.Equal(t, ledger.InDoubt, f.state(doubt, later), "a hold in doubt is never released by time")
	assert.Equal(t, ledger.Signed, f.state(signed, later), "nor a signed one")
	assert.Equal(t, ledger.Released, f.mark(refused, ledger.Committed, later), "an expired hold cannot be committed later")
	f.totals(later, 0, 70)
}

// testResolve checks Resolve's rules.
func testResolve(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{})
	expires := t0.Add(90 * time.Second)
	deadline := expires.Add(ledger.ExpiryMargin)
	doubt := f.inState(ledger.InDoubt, 5, "sig-1", expires, t0)
	settled := f.inState(ledger.InDoubt, 7, "sig-2", expires, t0)
	refused := f.inState(ledger.Refused, 11, "sig-3", expires, t0)
	signed := f.inState(ledger.Signed, 13, "sig-4", expires, t0)
	unknown := f.inState(ledger.InDoubt, 17, "sig-5", time.Time{}, t0)
	reserved := f.reserve(19, t0)

	resolve := func(id string, settled bool, now time.Time) error {
		f.at(now)
		return f.s.Resolve(f.ctx, id, settled)
	}
	require.ErrorIs(t, resolve("sig-none", true, t0), ledger.ErrUnknownID)
	require.ErrorIs(t, resolve("", true, t0), ledger.ErrUnknownID, "a reserved hold has no id")
	require.ErrorIs(t, resolve("sig-1", false, t0), ledger.ErrNotExpired)
	require.ErrorIs(t, resolve("sig-1", false, deadline), ledger.ErrNotExpired, "the margin is part of it")
	assert.Equal(t, ledger.InDoubt, f.state(doubt, deadline))
	require.NoError(t, resolve("sig-2", true, t0))
	assert.Equal(t, ledger.Committed, f.state(settled, t0))
	require.NoError(t, resolve("sig-3", true, t0), "a receipt may come after a refusal")
	assert.Equal(t, ledger.Committed, f.state(refused, t0))
	require.NoError(t, resolve("sig-4", true, t0))
	assert.Equal(t, ledger.Committed, f.state(signed, t0))
	require.ErrorIs(t, resolve("sig-2", true, t0), ledger.ErrUnknownID, "a committed payment is no longer outstanding")
	require.ErrorIs(t, resolve("sig-5", false, t0.AddDate(1, 0, 0)), ledger.ErrNotExpired,
		"a payment without an expiry could always still settle")
	assert.Equal(t, ledger.InDoubt, f.state(unknown, t0))

	after := deadline.Add(time.Nanosecond)
	require.NoError(t, resolve("sig-1", false, after))
	assert.Equal(t, ledger.Released, f.state(doubt, after))
	assert.Equal(t, ledger.Reserved, f.state(reserved, after))
	f.totals(after, 7+11+13, 17+19)
}

// testNothingReleasedOnError checks that failed calls change nothing.
func testNothingReleasedOnError(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{Total: amount(100), Windows: []ledger.Window{{Length: time.Hour, Count: 4}}})
	ids := map[ledger.State]ledger.HoldID{}
	for i, st := range []ledger.State{ledger.Signed, ledger.Refused, ledger.InDoubt} {
		ids[st] = f.inState(st, 30, fmt.Sprintf("0x%02x", i), t0.Add(time.Hour), t0)
	}
	for st, id := range ids {
		got, err := f.s.Mark(f.ctx, id, ledger.Released)
		require.ErrorIs(t, err, ledger.ErrSigned)
		assert.Equal(t, st, got)
		assert.Equal(t, st, f.state(id, t0))
	}
	f.totals(t0, 0, 90)

	_, err := f.try(11, payee, t0)
	require.Error(t, err)
	require.True(t, isInput(f.s.Reserve(f.ctx, ledger.NewHoldID(), ledger.Reservation{Amount: nil})), "a missing amount")
	require.True(t, isInput(f.s.Reserve(f.ctx, ledger.NewHoldID(), ledger.Reservation{Amount: amount(-1)})), "a negative amount")
	require.True(t, isInput(f.s.Reserve(f.ctx, ledger.HoldID{}, ledger.Reservation{Amount: amount(1)})), "the zero hold id")
	_, err = f.s.Mark(f.ctx, ids[ledger.Signed], ledger.Signed)
	require.True(t, isInput(err), "Mark does not sign")
	_, err = f.s.HoldState(f.ctx, ledger.NewHoldID())
	require.ErrorIs(t, err, ledger.ErrUnknownHold)
	_, err = f.s.HoldState(f.ctx, ledger.HoldID{})
	require.ErrorIs(t, err, ledger.ErrUnknownHold)
	_, err = f.s.Mark(f.ctx, ledger.NewHoldID(), ledger.Committed)
	require.ErrorIs(t, err, ledger.ErrUnknownHold)
	_, err = f.s.Discard(f.ctx, ledger.NewHoldID())
	require.ErrorIs(t, err, ledger.ErrUnknownHold)
	f.totals(t0, 0, 90, "no failed call recorded or released anything")
	assert.Len(t, f.outstanding(t0), 3)
	f.reserve(10, t0) // the refused reservations did not take the window's last place
}

// testDuplicateHold checks that a hold id is recorded once: a Reserve with an id the store
// has recorded, whatever its state, is ErrDuplicateHold and changes nothing.
func testDuplicateHold(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{Total: amount(100), Windows: []ledger.Window{{Length: time.Hour, Count: 3}}})
	reserved := f.reserve(10, t0)
	committed := f.inState(ledger.Committed, 20, "0x01", t0.Add(time.Hour), t0)
	released := f.inState(ledger.Released, 30, "", time.Time{}, t0)
	for name, id := range map[string]ledger.HoldID{"reserved": reserved, "committed": committed, "released": released} {
		err := f.s.Reserve(f.ctx, id, ledger.Reservation{Amount: amount(1), PayTo: payee})
		require.ErrorIs(t, err, ledger.ErrDuplicateHold, "the id of a %s hold", name)
	}
	assert.Equal(t, ledger.Reserved, f.state(reserved, t0))
	assert.Equal(t, ledger.Committed, f.state(committed, t0))
	assert.Equal(t, ledger.Released, f.state(released, t0))
	f.totals(t0, 20, 10, "the refused duplicates changed no sum")
	f.reserve(1, t0)
	assertRefusal(t, f.refused(1, payee, t0), ledger.KindWindowCount, time.Hour, 3, 0, t0.Add(time.Hour))
}

// testLostReserve checks that a caller whose Reserve lost its answer finds out with
// HoldState whether the reservation was made: the lost answer of a reservation the store
// recorded (Faulty.FailAfter) is found, and one that never reached it (Faulty.Fail) is not.
func testLostReserve(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{Total: amount(100)})
	faulty := NewFaulty(f.s)
	faulty.FailAfter("reserve")
	landed := ledger.NewHoldID()
	err := faulty.Reserve(f.ctx, landed, ledger.Reservation{Amount: amount(60), PayTo: payee})
	require.ErrorIs(t, err, ErrFault)
	st, err := faulty.HoldState(f.ctx, landed)
	require.NoError(t, err, "the reservation landed although its answer was lost")
	assert.Equal(t, ledger.Reserved, st)
	require.ErrorIs(t, f.s.Reserve(f.ctx, landed, ledger.Reservation{Amount: amount(60), PayTo: payee}), ledger.ErrDuplicateHold,
		"reserving again under the same id does not hold twice")
	f.totals(t0, 0, 60)

	faulty = NewFaulty(f.s)
	faulty.Fail("reserve")
	lost := ledger.NewHoldID()
	require.ErrorIs(t, faulty.Reserve(f.ctx, lost, ledger.Reservation{Amount: amount(40), PayTo: payee}), ErrFault)
	_, err = faulty.HoldState(f.ctx, lost)
	require.ErrorIs(t, err, ledger.ErrUnknownHold, "the reservation never reached the store")
	require.NoError(t, f.s.Reserve(f.ctx, lost, ledger.Reservation{Amount: amount(40), PayTo: payee}), "so it can be made again")
	f.totals(t0, 0, 100)
	require.NoError(t, f.s.Sign(f.ctx, landed, ledger.Signature{ID: "0x01", Expires: t0.Add(time.Minute)}))
}

// testClockJumps checks that the store's clock jumping 30 years ahead and coming back frees
// nothing early: a hold reserved before the jump counts in the windows again, one reserved
// while the clock was ahead counts until its own time has passed, and a refused hold made
// after the correction expires by the corrected clock, not by the time it once read.
func testClockJumps(t *testing.T, open Open) {
	f := configured(t, open, jumpLimits)
	clockJumps(t, f, func(f *fixture, now time.Time) *fixture {
		f.at(now)
		return f
	})
}

// jumpLimits are the limits of clockJumps.
var jumpLimits = ledger.Limits{Windows: []ledger.Window{{Length: time.Hour, Amount: amount(100)}}}

// clockJumps runs testClockJumps on f, configured with jumpLimits. Each time the test sets
// the clock, next returns the fixture to go on with: the same store, or for a durable store
// the same store reopened by a process whose clock reads the time next was given.
func clockJumps(t *testing.T, f *fixture, next func(f *fixture, now time.Time) *fixture) {
	before := f.inState(ledger.Signed, 40, "0x01", t0.Add(time.Hour), t0)
	ahead := t0.AddDate(30, 0, 0)
	f = next(f, ahead)
	f.inState(ledger.Signed, 70, "0x02", ahead.Add(time.Hour), ahead) // the first hold left the hour at the time the clock reads
	assertRefusal(t, f.refused(31, payee, ahead), ledger.KindWindowAmount, time.Hour, 100, 30, ahead.Add(time.Hour))

	back := t0.Add(time.Minute)
	f = next(f, back)
	assertRefusal(t, f.refused(1, payee, back), ledger.KindWindowAmount, time.Hour, 100, 0, t0.Add(time.Hour))
	assert.NotEqual(t, ledger.Released, f.state(before, back))
	f.totals(back, 0, 110, "both holds count again in the hour")

	later := t0.Add(time.Hour) // the first hold left the hour
	refused := f.inState(ledger.Refused, 20, "0x03", later.Add(time.Minute), later)
	check := later.Add(2 * time.Minute) // before the refused hold's deadline
	assertRefusal(t, f.refused(11, payee, check), ledger.KindWindowAmount, time.Hour, 100, 10, later.Add(time.Hour))
	require.ErrorIs(t, f.s.Resolve(f.ctx, "0x03", false), ledger.ErrNotExpired)
	assert.Equal(t, ledger.Refused, f.state(refused, check), "the refused hold counts until its deadline on the corrected clock")
	f.totals(check, 0, 40+70+20)
	f.totals(later.Add(ledger.ExpiryMargin+time.Minute+time.Nanosecond), 0, 40+70, "then it expires")
}

// testClockBack checks that a window whose clock goes back by less than its length counts
// again the holds that had left it, and those reserved at the later readings.
func testClockBack(t *testing.T, open Open) {
	f := configured(t, open, ledger.Limits{Windows: []ledger.Window{{Length: time.Minute, Count: 2}}})
	f.reserve(1, t0)
	f.reserve(1, t0.Add(50*time.Second))
	f.reserve(1, t0.Add(70*time.Second)) // the first left the minute
	back := t0.Add(55 * time.Second)
	assertRefusal(t, f.refused(1, payee, back), ledger.KindWindowCount, time.Minute, 2, 0, t0.Add(110*time.Second))
	assertRefusal(t, f.refused(1, payee, t0.Add(time.Minute)), ledger.KindWindowCount, time.Minute, 2, 0, t0.Add(110*time.Second))
	f.reserve(1, t0.Add(110*time.Second))
}

// testChangeLimits checks limits changed on purpose: Spent and every hold stay, later
// reservations are checked against the new limits, a new payee limit counts what was
// already spent with the payee, and a longer or shorter window counts the holds of its
// length.
func testChangeLimits(t *testing.T, open Open) {
	hour := ledger.Window{Length: time.Hour, Count: 10}
	f := configured(t, open, ledger.Limits{Total: amount(100), Windows: []ledger.Window{hour}})
	f.inState(ledger.Committed, 30, "0x01", t0.Add(time.Hour), t0)
	f.reserve(20, t0.Add(10*time.Minute))
	now := t0.Add(20 * time.Minute)
	f.change(ledger.Limits{Total: amount(60), Windows: []ledger.Window{hour}}, now)
	f.totals(now, 30, 20, "a change of limits keeps Spent and every hold")
	assertRefusal(t, f.refused(11, payee, now), ledger.KindTotal, 0, 60, 10, time.Time{})
	f.reserve(10, now)

	f.change(ledger.Limits{PerPayee: amount(70), Windows: []ledger.Window{hour}}, now)
	assertRefusal(t, f.refused(11, payee, now), ledger.KindPayee, 0, 70, 10, time.Time{})
	_, err := f.try(11, "0xother", now)
	require.NoError(t, err)

	f.change(ledger.Limits{Windows: []ledger.Window{{Length: 2 * time.Hour, Count: 4}}}, now)
	assertRefusal(t, f.refused(1, payee, now), ledger.KindWindowCount, 2*time.Hour, 4, 0, t0.Add(2*time.Hour))
	f.change(ledger.Limits{Windows: []ledger.Window{{Length: 15 * time.Minute, Count: 2}}}, now)
	assertRefusal(t, f.refused(1, payee, now), ledger.KindWindowCount, 15*time.Minute, 2, 0, t0.Add(35*time.Minute))
	f.reserve(1, t0.Add(35*time.Minute))

	f.at(now)
	require.True(t, isInput(f.s.ChangeLimits(f.ctx, ledger.Limits{Total: amount(-1)})), "invalid limits change nothing")
	require.ErrorIs(t, f.s.Configure(f.ctx, ledger.Limits{}), ledger.ErrConfigured)
	f.reserve(1, t0.Add(35*time.Minute))
	assertRefusal(t, f.refused(1, payee, t0.Add(35*time.Minute)), ledger.KindWindowCount, 15*time.Minute, 2, 0, t0.Add(50*time.Minute))
	f.totals(t0.Add(35*time.Minute), 30, 20+10+11+1+1)
}

// testConfigureAndClose checks Configure's, ChangeLimits' and Close's rules.
func testConfigureAndClose(t *testing.T, open Open) {
	clock := sdktest.NewClock(t0)
	s := open(t, clock)
	ctx := t.Context()
	err := s.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: amount(1)})
	require.ErrorIs(t, err, ledger.ErrNotConfigured)
	_, err = s.Totals(ctx)
	require.ErrorIs(t, err, ledger.ErrNotConfigured)
	_, err = s.HoldState(ctx, ledger.NewHoldID())
	require.ErrorIs(t, err, ledger.ErrNotConfigured)
	for _, bad := range []ledger.Limits{
		{Total: amount(-1)},
		{PerPayment: amount(-1)},
		{PerPayee: amount(-1)},
		{Windows: []ledger.Window{{Length: 0, Count: 1}}},
		{Windows: []ledger.Window{{Length: time.Minute}}},
		{Windows: []ledger.Window{{Length: time.Minute, Count: -1}}},
		{Windows: []ledger.Window{{Length: time.Minute, Amount: amount(-1)}}},
		{Payees: map[string]*big.Int{"": amount(1)}},
		{Payees: map[string]*big.Int{"0xaa": nil}},
	} {
		assert.True(t, isInput(s.Configure(ctx, bad)), "%+v", bad)
		assert.True(t, isInput(s.ChangeLimits(ctx, bad)), "%+v", bad)
	}
	total := amount(10)
	require.NoError(t, s.Configure(ctx, ledger.Limits{Total: total, Payees: map[string]*big.Int{"0xAA": amount(5)}}),
		"a payee limit may name a payee in any letter case")
	total.SetInt64(1000) // the store keeps its own copy
	require.ErrorIs(t, s.Configure(ctx, ledger.Limits{}), ledger.ErrConfigured)
	err = s.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: amount(11), PayTo: payee})
	var r *ledger.Refusal
	require.ErrorAs(t, err, &r)
	assert.Contains(t, r.Error(), "total")
	assert.False(t, strings.Contains(r.Error(), "1000"))

	require.NoError(t, s.Close())
	err = s.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: amount(1)})
	require.ErrorIs(t, err, ledger.ErrClosed)
	_, err = s.Totals(ctx)
	require.ErrorIs(t, err, ledger.ErrClosed)
	require.ErrorIs(t, s.ChangeLimits(ctx, ledger.Limits{}), ledger.ErrClosed)

	// ChangeLimits in place of Configure configures the store.
	u := open(t, clock)
	require.NoError(t, u.ChangeLimits(ctx, ledger.Limits{Total: amount(5)}))
	require.NoError(t, u.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: amount(5), PayTo: payee}))
	require.ErrorAs(t, u.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: amount(1), PayTo: payee}), &r)
	require.ErrorIs(t, u.Configure(ctx, ledger.Limits{Total: amount(5)}), ledger.ErrConfigured)
}

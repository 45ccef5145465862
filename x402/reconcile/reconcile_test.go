package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
)

// The reconciler's tests against a chain's node, through evm.Lookup, are in package evm
// (lookup_test.go), beside the fake node they need; these use lookups of their own.

// rt0 is when the reconciliation tests start.
var rt0 = time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)

// clockedBudget returns a budget of 1,000,000 kept in the store budgettest.EnvStore names,
// deciding on clock.
func clockedBudget(t *testing.T, clock *sdktest.Clock) *budget.Budget {
	t.Helper()
	return budgettest.NewBudget(t, budgettest.Selected(t), big.NewInt(1_000_000), clock)
}

// newReconciler returns a reconciler of b, a budget made by clockedBudget on clock, with
// opts. A reconciler's clock is by default its budget's, which is clock in memory; a budget
// kept in a durable store has the store's clock, so the reconciler is given clock too.
func newReconciler(t *testing.T, b *budget.Budget, clock *sdktest.Clock, opts ...reconcile.Option) *reconcile.Reconciler {
	t.Helper()
	if budgettest.Selected(t) != budgettest.Memory {
		opts = append([]reconcile.Option{reconcile.WithClock(clock)}, opts...)
	}
	r, err := reconcile.New(b, opts...)
	require.NoError(t, err)
	return r
}

// fixedLookup is a reconcile.Lookup of the "test" rail that answers what it is told, and
// records what it was asked.
type fixedLookup struct {
	results func(payments []ledger.Outstanding) ([]reconcile.Result, error)
	mu      sync.Mutex
	asked   [][]string
}

func (f *fixedLookup) Handles(rail string) bool { return rail == "test" }

func (f *fixedLookup) Lookup(_ context.Context, payments []ledger.Outstanding) ([]reconcile.Result, error) {
	f.mu.Lock()
	f.asked = append(f.asked, budgettest.IDs(resolutionsOf(payments)))
	f.mu.Unlock()
	return f.results(payments)
}

// resolutionsOf wraps payments, for ids.
func resolutionsOf(payments []ledger.Outstanding) []reconcile.Resolution {
	out := make([]reconcile.Resolution, len(payments))
	for i, p := range payments {
		out[i].Outstanding = p
	}
	return out
}

// testHold records a payment of the "test" rail in doubt.
func testHold(t *testing.T, b *budget.Budget, id string, amount int64, expires time.Time) {
	t.Helper()
	h, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(amount), PayTo: "treasury", Rail: "test"})
	require.NoError(t, err)
	require.NoError(t, h.Sign(t.Context(), ledger.Signature{ID: id, Expires: expires}))
	require.NoError(t, h.InDoubt(t.Context()))
}

func TestReconcilePacesEveryLookup(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	for _, id := range []string{"a", "b", "c", "d"} {
		testHold(t, b, id, 1, rt0.Add(time.Hour))
	}
	var mu sync.Mutex
	var at []time.Time
	lookup := &fixedLookup{results: func(payments []ledger.Outstanding) ([]reconcile.Result, error) {
		mu.Lock()
		at = append(at, clock.Now())
		mu.Unlock()
		return []reconcile.Result{{ID: payments[0].ID}}, nil
	}}
	const perSecond = 40
	r := newReconciler(t, b, clock, reconcile.WithLookup(lookup), reconcile.WithBatch(1), reconcile.WithRate(perSecond))

	start := clock.Now()
	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Len(t, rep.Pending, 4)
	require.Len(t, at, 4)
	assert.Equal(t, [][]string{{"a"}, {"b"}, {"c"}, {"d"}}, lookup.asked, "one payment a lookup")
	// The pace is kept on the reconciler's clock, which here waits no time.
	assert.GreaterOrEqual(t, at[3].Sub(start), 3*time.Second/perSecond-5*time.Millisecond, "the fourth lookup waited for three intervals")
	assert.Len(t, clock.Waits(), 3, "one wait before each lookup but the first")
}

func TestReconcileTrustsALookupOnlyForWhatItWasAsked(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	past := rt0.Add(-time.Hour)
	testHold(t, b, "a", 1, past)
	testHold(t, b, "b", 2, past)
	testHold(t, b, "c", 4, past)
	testHold(t, b, "d", 8, past)
	testHold(t, b, "e", 16, time.Time{}.Add(0)) // no expiry known: never released by time
	lookup := &fixedLookup{results: func([]ledger.Outstanding) ([]reconcile.Result, error) {
		return []reconcile.Result{
			{ID: "a", State: reconcile.Failed},
			{ID: "a", State: reconcile.Settled}, // a second answer for the same payment is ignored
			{ID: "b", State: reconcile.Settled, Err: errors.New("unreadable")},
			{ID: "z", State: reconcile.Settled}, // not asked
			{ID: "e", State: reconcile.NotSettled},
			// nothing about c, and d is pending
			{ID: "d", State: reconcile.Pending},
		}, nil
	}}
	r := newReconciler(t, b, clock, reconcile.WithLookup(lookup), reconcile.WithRate(1000))

	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, budgettest.IDs(rep.Released), "failed on chain, and expired")
	assert.Empty(t, rep.Committed)
	assert.ElementsMatch(t, []string{"b", "c", "d", "e"}, budgettest.IDs(rep.Pending))
	for _, p := range rep.Pending {
		switch p.ID {
		case "b", "c":
			assert.Error(t, p.Err, p.ID)
		default:
			assert.NoError(t, p.Err, p.ID)
		}
	}
	assert.Len(t, rep.Failures, 2)
	budgettest.AssertTotals(t, b, 0, 2+4+8+16)
	require.Len(t, lookup.asked, 1)
	assert.ElementsMatch(t, []string{"a", "b", "c", "d", "e"}, lookup.asked[0])
}

func TestReconcileLeavesEverythingWhenALookupFails(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	testHold(t, b, "a", 1, rt0.Add(-time.Hour))
	testHold(t, b, "b", 2, rt0.Add(-time.Hour))
	lookup := &fixedLookup{results: func([]ledger.Outstanding) ([]reconcile.Result, error) {
		return []reconcile.Result{{ID: "a", State: reconcile.Settled}, {ID: "b", State: reconcile.NotSettled}},
			errors.New("the node went away mid-answer")
	}}
	r := newReconciler(t, b, clock, reconcile.WithLookup(lookup), reconcile.WithRate(1000))

	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Empty(t, rep.Committed, "what came with an error is not trusted")
	assert.Empty(t, rep.Released)
	assert.Len(t, rep.Pending, 2)
	require.Len(t, rep.Failures, 1)
	assert.Equal(t, 2, rep.Failures[0].Payments)
	assert.ErrorContains(t, rep.Err(), "the node went away mid-answer")
	budgettest.AssertTotals(t, b, 0, 3)
}

func TestReconcileStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	for _, id := range []string{"a", "b", "c"} {
		testHold(t, b, id, 1, rt0.Add(-time.Hour))
	}
	ctx, cancel := context.WithCancel(t.Context())
	lookup := &fixedLookup{results: func(payments []ledger.Outstanding) ([]reconcile.Result, error) {
		cancel() // the caller gives up during the first lookup, which still answers
		return []reconcile.Result{{ID: payments[0].ID, State: reconcile.Settled}}, nil
	}}
	r := newReconciler(t, b, clock, reconcile.WithLookup(lookup), reconcile.WithBatch(1), reconcile.WithRate(1000))

	rep, err := r.Reconcile(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, rep)
	assert.Equal(t, []string{"a"}, budgettest.IDs(rep.Committed), "the answer that came is booked")
	assert.Equal(t, []string{"b", "c"}, budgettest.IDs(rep.Pending))
	assert.Len(t, lookup.asked, 1, "no lookup after the context ended")
	budgettest.AssertTotals(t, b, 1, 2)
}

// The first lookup given for a rail answers for it. (The reconciler made its EVM lookups
// itself before the split, and refused a second one for the same network; a lookup is now
// the caller's, given with WithLookup.)
func TestReconcileAsksTheFirstLookupOfARail(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	testHold(t, b, "a", 1, rt0.Add(-time.Hour))
	answer := func(state reconcile.ChainState) *fixedLookup {
		return &fixedLookup{results: func(payments []ledger.Outstanding) ([]reconcile.Result, error) {
			return []reconcile.Result{{ID: payments[0].ID, State: state}}, nil
		}}
	}
	first, second := answer(reconcile.Settled), answer(reconcile.NotSettled)
	r := newReconciler(t, b, clock, reconcile.WithLookup(first), reconcile.WithLookup(second), reconcile.WithRate(1000))

	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, budgettest.IDs(rep.Committed))
	assert.Len(t, first.asked, 1)
	assert.Empty(t, second.asked)
	budgettest.AssertTotals(t, b, 1, 0)
}

func TestReconcilerOptionsAreChecked(t *testing.T) {
	t.Parallel()
	b, err := budget.New(budget.Unlimited)
	require.NoError(t, err)
	for name, opt := range map[string]reconcile.Option{
		"a nil lookup":             reconcile.WithLookup(nil),
		"a rate of zero":           reconcile.WithRate(0),
		"a rate that is no number": reconcile.WithRate(nan()),
		"a batch of zero":          reconcile.WithBatch(0),
		"a timeout of zero":        reconcile.WithLookupTimeout(0),
		"a nil clock":              reconcile.WithClock(nil),
	} {
		_, err := reconcile.New(b, opt)
		var ve *sdk.ValidationError
		assert.ErrorAs(t, err, &ve, name)
	}
	_, err = reconcile.New(nil)
	assert.Error(t, err)
}

// nan returns a NaN, which no constant expression may hold.
func nan() float64 {
	zero := 0.0
	return zero / zero
}

// railLookup is a fixedLookup of another rail, which may say what it trusts.
type railLookup struct {
	fixedLookup
	rail    string
	caveats []string
}

func (l *railLookup) Handles(rail string) bool { return rail == l.rail }

// Caveats returns the caveats it was given.
func (l *railLookup) Caveats() []string { return l.caveats }

// holdOn records a payment of rail in doubt.
func holdOn(t *testing.T, b *budget.Budget, rail, id string, amount int64, expires time.Time) {
	t.Helper()
	h, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(amount), PayTo: "treasury", Rail: rail})
	require.NoError(t, err)
	require.NoError(t, h.Sign(t.Context(), ledger.Signature{ID: id, Expires: expires}))
	require.NoError(t, h.InDoubt(t.Context()))
}

// A lookup whose node is unreachable, or that outlives its timeout, is asked once in a
// reconciliation: the rest of its rail's payments stay pending with its failure, and the
// other rails are still looked up. A lookup that fails otherwise is asked for every batch.
func TestReconcileAsksAnUnreachableLookupOnce(t *testing.T) {
	t.Parallel()
	unreachable := fmt.Errorf("dial tcp: connection refused: %w", reconcile.ErrUnreachable)
	for name, tc := range map[string]struct {
		fail  func(ctx context.Context) error
		asked int
	}{
		"a lookup whose node is unreachable": {fail: func(context.Context) error { return unreachable }, asked: 1},
		"a lookup that outlives its timeout": {fail: func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		}, asked: 1},
		"a lookup that fails otherwise": {fail: func(context.Context) error { return errors.New("HTTP 429") }, asked: 5},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := sdktest.NewClock(rt0)
			b := clockedBudget(t, clock)
			for _, id := range []string{"a", "b", "c", "d", "e"} {
				testHold(t, b, id, 1, rt0.Add(-time.Hour))
			}
			holdOn(t, b, "other", "z", 100, rt0.Add(time.Hour))
			var asked atomic.Int32
			failing := &ctxLookup{lookup: func(ctx context.Context, _ []ledger.Outstanding) ([]reconcile.Result, error) {
				asked.Add(1)
				return nil, tc.fail(ctx)
			}}
			other := &railLookup{rail: "other", fixedLookup: fixedLookup{results: func(p []ledger.Outstanding) ([]reconcile.Result, error) {
				return []reconcile.Result{{ID: p[0].ID, State: reconcile.Settled}}, nil
			}}}
			r := newReconciler(t, b, clock, reconcile.WithLookup(failing), reconcile.WithLookup(other), reconcile.WithBatch(1),
				reconcile.WithRate(1000), reconcile.WithLookupTimeout(20*time.Millisecond))

			rep, err := r.Reconcile(t.Context())
			require.NoError(t, err)
			assert.Equal(t, tc.asked, int(asked.Load()))
			assert.Equal(t, []string{"z"}, budgettest.IDs(rep.Committed), "the other rail is still looked up")
			assert.ElementsMatch(t, []string{"a", "b", "c", "d", "e"}, budgettest.IDs(rep.Pending))
			for _, p := range rep.Pending {
				var le *reconcile.LookupError
				require.ErrorAs(t, p.Err, &le, p.ID)
			}
			payments := 0
			for _, f := range rep.Failures {
				payments += f.Payments
			}
			assert.Equal(t, 5, payments, "every payment of the rail is in a failure")
			if tc.asked == 1 {
				require.Len(t, rep.Failures, 2, "the first lookup's failure, and the rest of the rail's")
				assert.Equal(t, 4, rep.Failures[1].Payments)
				assert.Equal(t, rep.Failures[0].Err, rep.Failures[1].Err)
			}
			budgettest.AssertTotals(t, b, 100, 5)
		})
	}
}

// ctxLookup is a reconcile.Lookup of the "test" rail that calls lookup.
type ctxLookup struct {
	lookup func(ctx context.Context, payments []ledger.Outstanding) ([]reconcile.Result, error)
}

func (l *ctxLookup) Handles(rail string) bool { return rail == "test" }

func (l *ctxLookup) Lookup(ctx context.Context, payments []ledger.Outstanding) ([]reconcile.Result, error) {
	return l.lookup(ctx, payments)
}

// A report carries the caveats of the lookups the reconciliation used, each once, in the
// order the lookups were given; a lookup no payment needed adds none.
func TestReconcileReportsTheCaveatsOfTheLookupsItUsed(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	holdOn(t, b, "first", "a", 1, rt0.Add(time.Hour))
	holdOn(t, b, "second", "b", 1, rt0.Add(2*time.Hour))
	pending := func(p []ledger.Outstanding) ([]reconcile.Result, error) {
		return []reconcile.Result{{ID: p[0].ID}}, nil
	}
	first := &railLookup{rail: "first", caveats: []string{"one node decides", "plain HTTP"}, fixedLookup: fixedLookup{results: pending}}
	second := &railLookup{rail: "second", caveats: []string{"plain HTTP", "a clock of its own"}, fixedLookup: fixedLookup{results: pending}}
	unused := &railLookup{rail: "third", caveats: []string{"never asked"}, fixedLookup: fixedLookup{results: pending}}
	r := newReconciler(t, b, clock, reconcile.WithLookup(unused), reconcile.WithLookup(second), reconcile.WithLookup(first),
		reconcile.WithRate(1000))

	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"plain HTTP", "a clock of its own", "one node decides"}, rep.Caveats)
	assert.Len(t, rep.Pending, 2)
}

// valueLookup is a lookup of the "value" rail whose values cannot be compared (it holds a
// slice): what a reconciler does with the lookups it used must not compare them.
type valueLookup struct{ caveats []string }

func (v valueLookup) Handles(rail string) bool { return rail == "value" }

func (v valueLookup) Lookup(_ context.Context, payments []ledger.Outstanding) ([]reconcile.Result, error) {
	return []reconcile.Result{{ID: payments[0].ID, State: reconcile.Settled}}, nil
}

func (v valueLookup) Caveats() []string { return v.caveats }

func TestReconcileTakesLookupsThatAreNotComparable(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	holdOn(t, b, "value", "a", 1, rt0.Add(time.Hour))
	r := newReconciler(t, b, clock, reconcile.WithLookup(valueLookup{caveats: []string{"by value"}}), reconcile.WithRate(1000))

	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, budgettest.IDs(rep.Committed))
	assert.Equal(t, []string{"by value"}, rep.Caveats)
}

package evm_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/reconcile"
)

// The tests of what a release rests on: no single node's word, no batch answered under
// other ids, no state its own events contradict, a finalized block past the expiry.

// twoExpired makes the payments the tests below look up: nonce 1 (100), settled in the
// block before node's finalized one, and nonce 2 (200), never settled; both expired an hour
// before rt0, the clock's time, and reserved a minute before they expired.
func twoExpired(t *testing.T, node *evmNode) (*budget.Budget, *sdktest.Clock) {
	t.Helper()
	expires := rt0.Add(-time.Hour)
	clock := sdktest.NewClock(expires.Add(-time.Minute))
	b := clockedBudget(t, clock)
	inDoubt(t, b, nonceHex(1), 100, expires)
	inDoubt(t, b, nonceHex(2), 200, expires)
	node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
	clock.Set(rt0)
	return b, clock
}

// requireNotReleased checks that the settled payment, nonce 1, was not released, and that
// what was released is only what never settled.
func requireNotReleased(t *testing.T, rep *reconcile.Report) {
	t.Helper()
	assert.NotContains(t, budgettest.IDs(rep.Released), nonceHex(1), "the payment that settled is not released")
	for _, r := range rep.Released {
		assert.Equal(t, nonceHex(2), r.ID)
	}
}

// A node that lies after the payments expired releases nothing that settled: whether it
// says "unused" of a used authorization while its events tell the truth, repeats or
// rotates the ids of a batch's answers, or names a latest block in the future.
func TestReconcileReleasesNothingThatSettledOnALyingNode(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		method  string
		fault   nodeFault
		whole   bool // through a client given whole, whose batches go-ethereum matches
		settled bool // nonce 1 is still committed, on the word of the node's answers that hold
		freed   bool // nonce 2 is released: nothing the node said of it was wrong
		check   func(t *testing.T, rep *reconcile.Report)
	}{
		"unused for a used nonce, its events true": {method: "eth_call", fault: faultLie, freed: true,
			check: func(t *testing.T, rep *reconcile.Report) {
				var conflict *evm.ConflictError
				require.ErrorAs(t, pendingOf(t, rep, nonceHex(1)).Err, &conflict)
				assert.Equal(t, 1, conflict.Endpoint)
				assert.Contains(t, conflict.Reason, "reads unused, but the node has its AuthorizationUsed event")
			}},
		"an answer repeated in a batch": {method: "eth_call", fault: faultBatchRepeat,
			check: func(t *testing.T, rep *reconcile.Report) {
				var be *evm.BatchError
				require.ErrorAs(t, rep.Err(), &be)
				assert.Equal(t, &evm.BatchError{Sent: 4, Missing: 1, Repeated: 1}, be)
			}},
		"answers under ids that were never sent": {method: "eth_call", fault: faultBatchWrongIDs,
			check: func(t *testing.T, rep *reconcile.Report) {
				var be *evm.BatchError
				require.ErrorAs(t, rep.Err(), &be)
				assert.Equal(t, &evm.BatchError{Sent: 4, Missing: 4, Unknown: 4}, be)
			}},
		"answers under rotated ids": {method: "eth_call", fault: faultBatchRotate},
		"answers under rotated ids, through a client given whole": {method: "eth_call", fault: faultBatchRotate,
			whole: true},
		"an answer repeated, through a client given whole": {method: "eth_call", fault: faultBatchRepeat, whole: true,
			settled: true},
		"a latest block in the future": {method: "eth_getBlockByNumber", fault: faultFutureLatest},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			node := startEVMNode(t, rt0)
			b, clock := twoExpired(t, node)
			node.fail(tc.method, tc.fault)
			lookup := dial(t, node)
			if tc.whole {
				client, err := rpc.Dial(node.URL)
				require.NoError(t, err)
				t.Cleanup(client.Close)
				l, err := evm.NewLookup(evm.NetworkBase, client)
				require.NoError(t, err)
				lookup = l
			}

			rep := reconcileOnce(t, reconcilerOf(t, b, clock, lookup))
			requireNotReleased(t, rep)
			var spent, held int64 = 0, 300
			if tc.settled {
				assert.Equal(t, []string{nonceHex(1)}, budgettest.IDs(rep.Committed))
				spent, held = 100, 200
			} else {
				assert.Empty(t, rep.Committed)
			}
			if tc.freed {
				assert.Equal(t, []string{nonceHex(2)}, budgettest.IDs(rep.Released), "what never settled is still released")
				held -= 200
			} else {
				assert.Empty(t, rep.Released)
			}
			if tc.check != nil {
				tc.check(t, rep)
			}
			budgettest.AssertTotals(t, b, spent, held)
		})
	}
}

// A node that says "used" commits nothing without the AuthorizationUsed event that proves
// it; a node that hides its events commits nothing either.
func TestReconcileCommitsNothingWithoutItsEvent(t *testing.T) {
	t.Parallel()
	t.Run("used for an unused nonce", func(t *testing.T) {
		t.Parallel()
		node := startEVMNode(t, rt0)
		b, clock := twoExpired(t, node)
		node.fail("eth_call", faultLieUsed)

		rep := reconcileOnce(t, newReconciler(t, b, clock, node))
		assert.Equal(t, []string{nonceHex(1)}, budgettest.IDs(rep.Committed), "the one whose event is there")
		assert.Equal(t, txHex(1), rep.Committed[0].Transaction)
		assert.Empty(t, rep.Released)
		var conflict *evm.ConflictError
		require.ErrorAs(t, pendingOf(t, rep, nonceHex(2)).Err, &conflict)
		assert.Contains(t, conflict.Reason, "reads used, but the node has no AuthorizationUsed event")
		budgettest.AssertTotals(t, b, 100, 200)
	})
	t.Run("events hidden", func(t *testing.T) {
		t.Parallel()
		node := startEVMNode(t, rt0)
		b, clock := twoExpired(t, node)
		node.fail("eth_getLogs", faultHideLogs)

		rep := reconcileOnce(t, newReconciler(t, b, clock, node))
		assert.Empty(t, rep.Committed)
		assert.Equal(t, []string{nonceHex(2)}, budgettest.IDs(rep.Released), "unused, and no event says otherwise")
		var conflict *evm.ConflictError
		require.ErrorAs(t, pendingOf(t, rep, nonceHex(1)).Err, &conflict)
		budgettest.AssertTotals(t, b, 0, 100)
	})
}

// What one endpoint still trusts, and what a second one lifts: a node that lies
// consistently (state, events and time) has a settled payment released when it is the
// lookup's only endpoint, as its caveat says; beside an honest endpoint, in either order, it
// releases nothing that settled, and what never settled is still released.
func TestSeveralEndpointsOutvoteAConsistentLiar(t *testing.T) {
	t.Parallel()
	liar := func(t *testing.T) *evmNode {
		node := startEVMNode(t, rt0)
		node.fail("", faultLie, faultHideLogs, faultFutureTime)
		return node
	}
	t.Run("alone", func(t *testing.T) {
		t.Parallel()
		node := liar(t)
		b, clock := twoExpired(t, node)
		lookup := dial(t, node)
		require.Len(t, lookup.Caveats(), 1)
		assert.Contains(t, lookup.Caveats()[0], "one RPC endpoint decides every release")

		rep := reconcileOnce(t, reconcilerOf(t, b, clock, lookup))
		assert.ElementsMatch(t, []string{nonceHex(1), nonceHex(2)}, budgettest.IDs(rep.Released), "the limit of one endpoint")
		assert.Equal(t, lookup.Caveats(), rep.Caveats, "the report says what the release trusted")
	})
	for name, liarFirst := range map[string]bool{"liar first": true, "liar second": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			honest, lying := startEVMNode(t, rt0), liar(t)
			b, clock := twoExpired(t, honest)
			first, second := honest, lying
			if liarFirst {
				first, second = lying, honest
			}
			lookup := dial(t, first, evm.WithEndpoint(second.URL))
			assert.Empty(t, lookup.Caveats(), "no single endpoint decides")
			r := reconcilerOf(t, b, clock, lookup)

			rep := reconcileOnce(t, r)
			assert.Equal(t, []string{nonceHex(1)}, budgettest.IDs(rep.Committed), "the honest endpoint proves it settled")
			assert.Equal(t, txHex(1), rep.Committed[0].Transaction)
			assert.Equal(t, []string{nonceHex(2)}, budgettest.IDs(rep.Released), "both say it can no longer settle")
			assert.Empty(t, rep.Caveats)
			budgettest.AssertTotals(t, b, 100, 0)

			inDoubt(t, b, nonceHex(3), 300, rt0.Add(-time.Hour))
			reconcileOnce(t, r)
			for _, node := range []*evmNode{honest, lying} {
				assert.Len(t, node.calls("eth_chainId"), 1, "each endpoint's chain id is kept once read")
			}
		})
	}
}

// Every endpoint must agree to a release; any one proves a commit.
func TestSeveralEndpointsMustAllAgreeToRelease(t *testing.T) {
	t.Parallel()
	t.Run("a stale endpoint", func(t *testing.T) {
		t.Parallel()
		honest, stale := startEVMNode(t, rt0), startEVMNode(t, rt0.Add(-time.Hour-time.Minute))
		b, clock := twoExpired(t, honest)
		r := reconcilerOf(t, b, clock, dial(t, honest, evm.WithEndpoint(stale.URL)))

		rep := reconcileOnce(t, r)
		assert.Equal(t, []string{nonceHex(1)}, budgettest.IDs(rep.Committed))
		assert.Empty(t, rep.Released, "the stale endpoint's finalized block is before the expiry")
		assert.Equal(t, reconcile.Pending, pendingOf(t, rep, nonceHex(2)).Chain)
		assert.NoError(t, pendingOf(t, rep, nonceHex(2)).Err)

		stale.mine(3600 / blockSeconds)
		rep = reconcileOnce(t, r)
		assert.Equal(t, []string{nonceHex(2)}, budgettest.IDs(rep.Released), "once both are past it")
		budgettest.AssertTotals(t, b, 100, 0)
	})
	t.Run("an endpoint that fails", func(t *testing.T) {
		t.Parallel()
		honest, failing := startEVMNode(t, rt0), startEVMNode(t, rt0)
		b, clock := twoExpired(t, honest)
		failing.fail("", faultHTTP500)

		rep := reconcileOnce(t, reconcilerOf(t, b, clock, dial(t, failing, evm.WithEndpoint(honest.URL))))
		assert.Equal(t, []string{nonceHex(1)}, budgettest.IDs(rep.Committed), "any endpoint proves a commit")
		assert.Empty(t, rep.Released)
		err := pendingOf(t, rep, nonceHex(2)).Err
		require.Error(t, err)
		assert.Contains(t, err.Error(), "RPC endpoint 1: ")
		budgettest.AssertTotals(t, b, 100, 200)
	})
	t.Run("an endpoint that says used", func(t *testing.T) {
		t.Parallel()
		honest, lying := startEVMNode(t, rt0), startEVMNode(t, rt0)
		b, clock := twoExpired(t, honest)
		lying.fail("eth_call", faultLieUsed)

		rep := reconcileOnce(t, reconcilerOf(t, b, clock, dial(t, honest, evm.WithEndpoint(lying.URL))))
		assert.Equal(t, []string{nonceHex(1)}, budgettest.IDs(rep.Committed))
		assert.Empty(t, rep.Released, "one endpoint's contradiction holds the release back")
		var conflict *evm.ConflictError
		require.ErrorAs(t, pendingOf(t, rep, nonceHex(2)).Err, &conflict)
		assert.Equal(t, 2, conflict.Endpoint)
		budgettest.AssertTotals(t, b, 100, 200)
	})
}

// An old settlement is found however far back it lies: the events are searched from the
// first block the payment could settle in, found by its time, in ranges the node accepts,
// halved each time it refuses one; the range it accepted is kept for the next lookups.
func TestReconcileSearchesEventsInRangesTheNodeAllows(t *testing.T) {
	t.Parallel()
	node := startEVMNode(t, rt0)
	const maxRange = 5_000
	node.refuseRangesOver(maxRange)
	reserved := rt0.Add(-24 * time.Hour) // some 43,000 blocks back
	clock := sdktest.NewClock(reserved)
	b := clockedBudget(t, clock)
	inDoubt(t, b, nonceHex(1), 100, reserved.Add(time.Minute))
	inDoubt(t, b, nonceHex(2), 200, reserved.Add(time.Minute))
	settledIn := node.blockAt(reserved.Add(30 * time.Second))
	require.Less(t, settledIn, uint64(headBlock-10_000), "older than the last 10,000 blocks")
	node.settleAt(evm.USDCBase, payerAddress, nonceHex(1), txHex(1), settledIn)
	clock.Set(rt0)
	r := newReconciler(t, b, clock, node)

	rep := reconcileOnce(t, r)
	assert.Equal(t, []string{nonceHex(1)}, budgettest.IDs(rep.Committed))
	assert.Equal(t, txHex(1), rep.Committed[0].Transaction)
	assert.Equal(t, []string{nonceHex(2)}, budgettest.IDs(rep.Released))
	budgettest.AssertTotals(t, b, 100, 0)

	from := node.blockAt(reserved.Add(-settleSlack))
	calls := node.calls("eth_getLogs")
	refused, next := 0, from
	for _, c := range calls {
		start, end, _, _ := logFilterOf(t, c)
		if end-start+1 > maxRange {
			refused++
			assert.Zero(t, next-from, "the node refuses the first ranges, before any is accepted")
			continue
		}
		assert.Equal(t, next, start, "the accepted ranges follow each other")
		next = end + 1
	}
	assert.Equal(t, uint64(headBlock+1), next, "the accepted ranges cover every block up to the latest")
	assert.LessOrEqual(t, refused, 5, "the range is halved until the node accepts it")

	inDoubt(t, b, nonceHex(3), 300, reserved.Add(time.Minute))
	before := len(calls)
	reconcileOnce(t, r)
	for _, c := range node.calls("eth_getLogs")[before:] {
		start, end, _, _ := logFilterOf(t, c)
		assert.LessOrEqual(t, end-start+1, uint64(maxRange), "the accepted range is kept")
	}
}

// A node that names no finalized block is read at its safe block; it is asked for its
// finalized block first at every lookup.
func TestReconcileReadsTheSafeBlockWhereThereIsNoFinalized(t *testing.T) {
	t.Parallel()
	node := startEVMNode(t, rt0)
	node.fail("eth_getBlockByNumber", faultNoFinalized)
	b, clock := twoExpired(t, node)
	r := newReconciler(t, b, clock, node)

	rep := reconcileOnce(t, r)
	assert.Equal(t, []string{nonceHex(1)}, budgettest.IDs(rep.Committed))
	assert.Equal(t, []string{nonceHex(2)}, budgettest.IDs(rep.Released))
	var atSafe int
	for _, c := range node.calls("eth_call") {
		if _, _, _, block := callOf(t, c); block == blockHex(headBlock-safeLag) {
			atSafe++
		}
	}
	assert.Equal(t, 2, atSafe, "both expired payments read at the safe block")
	heads := node.batches("eth_getBlockByNumber")
	require.GreaterOrEqual(t, len(heads), 2)
	for i, tag := range []string{`"finalized"`, `"safe"`} {
		require.Len(t, heads[i].Calls, 2)
		assert.JSONEq(t, `"latest"`, string(heads[i].Calls[0].Params[0]))
		assert.JSONEq(t, tag, string(heads[i].Calls[1].Params[0]))
	}

	inDoubt(t, b, nonceHex(3), 300, rt0.Add(-time.Hour))
	before := len(node.batches("eth_getBlockByNumber"))
	rep = reconcileOnce(t, r)
	assert.Equal(t, []string{nonceHex(3)}, budgettest.IDs(rep.Released))
	assert.JSONEq(t, `"finalized"`, string(node.batches("eth_getBlockByNumber")[before].Calls[1].Params[0]),
		"the finalized block first again")
}

// A dead node costs one bounded wait per reconciliation, not one per batch: once a lookup
// fails because its node does not answer, the rest of its rail's payments are reported with
// that failure without asking again.
func TestADeadNodeCostsOneBoundedWait(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	refusing := httptest.NewServer(http.NotFoundHandler())
	refusing.Close()
	for name, tc := range map[string]struct {
		stalled bool   // the node holds requests until the client gives up
		extra   string // an endpoint given before it, "" for none
	}{
		"a stalled node":                   {stalled: true},
		"a stalled node beside a live one": {stalled: true, extra: "live"},
		"a node that refuses connections":  {},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := sdktest.NewClock(rt0)
			b := clockedBudget(t, clock)
			for i := range 5 {
				inDoubt(t, b, nonceHex(i), 10, rt0.Add(-time.Hour))
			}
			dead := startEVMNode(t, rt0)
			dead.fail("", faultStall)
			url := dead.URL
			if !tc.stalled {
				url = refusing.URL
			}
			var opts []evm.LookupOption
			first := url
			live := startEVMNode(t, rt0)
			if tc.extra != "" {
				first, opts = live.URL, []evm.LookupOption{evm.WithEndpoint(url)}
			}
			lookup, err := evm.DialLookup(evm.NetworkBase, first, opts...)
			require.NoError(t, err)
			t.Cleanup(func() { _ = lookup.Close() })
			r := reconcilerOf(t, b, clock, lookup, reconcile.WithBatch(1), reconcile.WithLookupTimeout(timeout))

			start := time.Now()
			rep := reconcileOnce(t, r)
			elapsed := time.Since(start)
			assert.Less(t, elapsed, 2*timeout, "one wait, not one per batch of one")
			require.Len(t, rep.Pending, 5)
			for _, p := range rep.Pending {
				assert.ErrorIs(t, p.Err, reconcile.ErrUnreachable, "payment %s", p.ID)
			}
			require.Len(t, rep.Failures, 2, "the first lookup's failure, and the rest of the rail's")
			assert.Equal(t, 4, rep.Failures[1].Payments)
			if tc.stalled {
				assert.GreaterOrEqual(t, elapsed, timeout, "the wait is the lookup's bound")
				assert.Equal(t, 1, dead.requests(), "the dead node was asked once")
			}
			if tc.extra != "" {
				assert.Len(t, live.calls("eth_chainId"), 1, "the live endpoint was asked by one lookup only")
			}
			budgettest.AssertTotals(t, b, 0, 50)
		})
	}
}

// A reconciliation of 10,000 payments in doubt, half settled and half expired unused, takes
// under a minute against a healthy node with the batch and the rate a caller sets for its
// own node (WithBatch(500), WithRate(100)); the pace is kept on the wall clock. It runs
// 2,000 payments (against a fifth of the minute) unless SDK_TEST_FULL=1; the budget is kept
// in memory, since what is measured is the lookups.
func TestReconcileManyPaymentsInUnderAMinute(t *testing.T) {
	t.Parallel()
	n := 2_000
	if testenv.Full() {
		n = 10_000
	}
	now := time.Now()
	node := startEVMNode(t, now)
	b, err := budget.New(budget.Unlimited)
	require.NoError(t, err)
	expired := now.Add(-time.Hour)
	for i := range n {
		inDoubt(t, b, nonceHex(i), 1, expired)
		if i%2 == 0 {
			node.settle(evm.USDCBase, payerAddress, nonceHex(i), txHex(i))
		}
	}
	r, err := reconcile.New(b, reconcile.WithLookup(dial(t, node)), reconcile.WithBatch(500), reconcile.WithRate(100))
	require.NoError(t, err)

	start := time.Now()
	rep, err := r.Reconcile(t.Context())
	elapsed := time.Since(start)
	require.NoError(t, err)
	require.NoError(t, rep.Err())
	assert.Len(t, rep.Committed, n/2)
	assert.Len(t, rep.Released, n/2)
	assert.Less(t, elapsed, time.Minute*time.Duration(n)/10_000)
	t.Logf("%d payments reconciled in %s", n, elapsed)
	assert.Empty(t, budgettest.Outstanding(t, b))
}

// A lookup's error never lets the caller mistake a refused batch for an unreachable node.
func TestABatchErrorIsNoUnreachableNode(t *testing.T) {
	t.Parallel()
	node := startEVMNode(t, rt0)
	b, clock := twoExpired(t, node)
	node.fail("eth_call", faultBatchRepeat)
	r := newReconciler(t, b, clock, node, reconcile.WithBatch(1))

	rep := reconcileOnce(t, r)
	assert.False(t, errors.Is(rep.Err(), reconcile.ErrUnreachable))
	assert.Len(t, node.batches("eth_call"), 2, "the node answered: each batch is asked")
}

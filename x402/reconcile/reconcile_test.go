package reconcile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
)

// The reconciliation tests' parties and times.
const (
	payerAddress = "0x8ba1f109551bD432803012645Ac136ddd64DBA72"
	baseRail     = "x402 " + evm.NetworkBase
)

// rt0 is when the reconciliation tests start.
var rt0 = time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)

// testClock is a clock a test moves.
type testClock struct{ now atomic.Int64 }

func sdktest.NewClock(at time.Time) *testClock {
	c := &testClock{}
	c.set(at)
	return c
}

func (c *testClock) Now() time.Time   { return time.Unix(0, c.now.Load()).UTC() }
func (c *testClock) set(at time.Time) { c.now.Store(at.UnixNano()) }

// nonceHex returns the i-th test nonce, 0x hex.
func nonceHex(i int) string {
	return hexutil.Encode(common.LeftPadBytes(big.NewInt(int64(1000+i)).Bytes(), 32))
}

// txHex returns the i-th test transaction hash, 0x hex.
func txHex(i int) string {
	return hexutil.Encode(common.LeftPadBytes(big.NewInt(int64(7000+i)).Bytes(), 32))
}

// inDoubt reserves amount on budget for an x402 payment on Base with nonce, signs it to
// expire at expires and marks it in doubt, as a payer does when the answer is lost.
func inDoubt(t *testing.T, b *budget.Budget, nonce string, amount int64, expires time.Time) *budget.Hold {
	t.Helper()
	h := signedHold(t, b, nonce, amount, expires)
	require.NoError(t, h.InDoubt(t.Context()))
	return h
}

// signedHold reserves and signs an x402 payment on Base with nonce.
func signedHold(t *testing.T, b *budget.Budget, nonce string, amount int64, expires time.Time) *budget.Hold {
	t.Helper()
	h, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(amount), PayTo: shopAddress, Rail: baseRail,
		Resource: "https://shop.example/report", Payer: payerAddress, Asset: evm.USDCBase})
	require.NoError(t, err)
	require.NoError(t, h.Sign(t.Context(), ledger.Signature{ID: nonce, Expires: expires}))
	return h
}

// clockedBudget returns a budget of 1,000,000 on clock.
func clockedBudget(t *testing.T, clock *testClock) *budget.Budget {
	t.Helper()
	b, err := budget.New(big.NewInt(1_000_000), budget.WithClock(clock))
	require.NoError(t, err)
	return b
}

// newReconciler returns a reconciler of b through node, fast-paced, with opts after.
func newReconciler(t *testing.T, b *budget.Budget, node *evmNode, opts ...reconcile.Option) *reconcile.Reconciler {
	t.Helper()
	all := append([]reconcile.Option{x402.WithEVMRPC(evm.NetworkBase, node.URL), reconcile.WithRate(1000),
		reconcile.WithLogger(scan.Logger())}, opts...)
	r, err := reconcile.New(b, all...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// totals checks what a budget has spent and holds.
func totals(t *testing.T, b *budget.Budget, spent, reserved int64) {
	t.Helper()
	s, r, err := b.Totals(t.Context())
	require.NoError(t, err)
	assert.Equal(t, big.NewInt(spent).String(), s.String(), "spent")
	assert.Equal(t, big.NewInt(reserved).String(), r.String(), "reserved")
}

// ids returns the payment ids of resolutions.
func ids(rs []reconcile.Resolution) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestReconcileCommitsTheSettledAndReleasesTheExpired(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	expired, valid := rt0.Add(-10*time.Minute), rt0.Add(10*time.Minute)

	inDoubt(t, b, nonceHex(1), 100, expired) // settled before it expired
	inDoubt(t, b, nonceHex(2), 200, expired) // never settled, expired
	inDoubt(t, b, nonceHex(3), 300, valid)   // not settled yet, still valid
	refused := signedHold(t, b, nonceHex(4), 400, valid)
	require.NoError(t, refused.Refused(t.Context())) // refused, but the payee settled it anyway
	signedHold(t, b, nonceHex(5), 500, valid)        // in flight: not the reconciler's
	_, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(600), PayTo: shopAddress, Rail: baseRail})
	require.NoError(t, err) // reserved, nothing signed
	node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
	node.settle(evm.USDCBase, payerAddress, nonceHex(4), txHex(4))
	clock.set(expired.Add(ledger.ExpiryMargin + time.Second))
	totals(t, b, 0, 2100)

	rep, err := newReconciler(t, b, node).Reconcile(t.Context())
	require.NoError(t, err)
	require.NoError(t, rep.Err())

	require.Len(t, rep.Committed, 2)
	assert.ElementsMatch(t, []string{nonceHex(1), nonceHex(4)}, ids(rep.Committed))
	for _, c := range rep.Committed {
		want := map[string]string{nonceHex(1): txHex(1), nonceHex(4): txHex(4)}[c.ID]
		assert.Equal(t, want, c.Transaction, "the settling transaction of %s, from its AuthorizationUsed event", c.ID)
		assert.Equal(t, reconcile.Settled, c.Chain)
	}
	assert.Equal(t, []string{nonceHex(2)}, ids(rep.Released))
	assert.Equal(t, reconcile.NotSettled, rep.Released[0].Chain)
	require.Equal(t, []string{nonceHex(3)}, ids(rep.Pending))
	assert.Equal(t, valid.Add(ledger.ExpiryMargin), rep.Pending[0].Until, "in doubt until it can no longer settle")
	assert.NoError(t, rep.Pending[0].Err)
	assert.Empty(t, rep.Failures)
	totals(t, b, 100+400, 300+500+600)

	// What was sent: the chain id once, the latest block, one batch of the four payments
	// in doubt or refused at that block, and one log query for the two settled.
	assert.Len(t, node.calls("eth_chainId"), 1)
	require.Len(t, node.calls("eth_getBlockByNumber"), 1)
	assert.JSONEq(t, `"latest"`, string(node.calls("eth_getBlockByNumber")[0].Params[0]))
	batches := node.batches("eth_call")
	require.Len(t, batches, 1)
	assert.True(t, batches[0].Batch, "the calls travel as one JSON-RPC batch")
	var asked []string
	for _, c := range batches[0].Calls {
		token, payer, nonce, block := callOf(t, c)
		assert.Equal(t, evm.USDCBase, token)
		assert.Equal(t, payerAddress, payer)
		assert.Equal(t, "0xf4240", block, "read at the block whose time was checked")
		asked = append(asked, nonce)
	}
	assert.ElementsMatch(t, []string{nonceHex(1), nonceHex(2), nonceHex(3), nonceHex(4)}, asked)
	logs := node.calls("eth_getLogs")
	require.Len(t, logs, 1)
	var filter struct {
		FromBlock, ToBlock string
		Address            []common.Address
		Topics             [][]common.Hash
	}
	require.NoError(t, json.Unmarshal(logs[0].Params[0], &filter))
	assert.Equal(t, "0xf4240", filter.ToBlock)
	assert.Equal(t, hexutil.EncodeUint64(1_000_000-10_000), filter.FromBlock)
	assert.Equal(t, []common.Address{common.HexToAddress(evm.USDCBase)}, filter.Address)
	require.Len(t, filter.Topics, 3)
	assert.Equal(t, []common.Hash{authorizationUsedTopic}, filter.Topics[0])
	assert.Equal(t, []common.Hash{common.BytesToHash(common.HexToAddress(payerAddress).Bytes())}, filter.Topics[1])
	assert.ElementsMatch(t, []common.Hash{common.HexToHash(nonceHex(1)), common.HexToHash(nonceHex(4))}, filter.Topics[2])

	// A second pass finds only the one still pending, and keeps it.
	rep, err = newReconciler(t, b, node).Reconcile(t.Context())
	require.NoError(t, err)
	assert.Empty(t, rep.Committed)
	assert.Empty(t, rep.Released)
	assert.Equal(t, []string{nonceHex(3)}, ids(rep.Pending))
}

func TestReconcileCommitsWithoutTheTransactionWhenLogsAreRefused(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	inDoubt(t, b, nonceHex(1), 100, rt0.Add(time.Minute))
	node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
	node.fail("eth_getLogs", faultLogsRefused)

	rep, err := newReconciler(t, b, node).Reconcile(t.Context())
	require.NoError(t, err)
	require.Equal(t, []string{nonceHex(1)}, ids(rep.Committed))
	assert.Empty(t, rep.Committed[0].Transaction, "a missing log never holds a commit back")
	assert.NoError(t, rep.Err())
	assert.Len(t, node.calls("eth_getLogs"), 1)
	totals(t, b, 100, 0)
}

// A node that says "unused" releases nothing that could still settle: not before the
// payment's expiry plus ExpiryMargin on the reconciler's clock, and not while the node's
// latest block is before the payment's validBefore.
func TestReconcileReleasesNothingThatCouldStillSettle(t *testing.T) {
	t.Parallel()
	expires := rt0.Add(5 * time.Minute)
	for name, tc := range map[string]struct {
		clock, block time.Time
		chain        reconcile.ChainState
	}{
		"neither has passed the expiry": {clock: rt0, block: rt0, chain: reconcile.Pending},
		"the clock is within the margin": {clock: expires.Add(ledger.ExpiryMargin), block: expires.Add(time.Hour),
			chain: reconcile.NotSettled},
		"the node's block is before validBefore": {clock: expires.Add(time.Hour), block: expires.Add(-time.Second),
			chain: reconcile.Pending},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := sdktest.NewClock(tc.clock)
			b := clockedBudget(t, clock)
			node := startEVMNode(t, tc.block)
			inDoubt(t, b, nonceHex(1), 100, expires)
			inDoubt(t, b, nonceHex(2), 200, expires)
			node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
			node.fail("", faultLie) // it settled, but the node says it did not

			rep, err := newReconciler(t, b, node).Reconcile(t.Context())
			require.NoError(t, err)
			assert.Empty(t, rep.Committed)
			assert.Empty(t, rep.Released)
			require.Len(t, rep.Pending, 2)
			for _, p := range rep.Pending {
				assert.Equal(t, tc.chain, p.Chain)
				assert.Equal(t, expires.Add(ledger.ExpiryMargin), p.Until)
				assert.NoError(t, p.Err)
			}
			totals(t, b, 0, 300)
			assert.Len(t, budgettest.Outstanding(t, b), 2)
		})
	}
}

// Whatever a failing node answers, nothing is committed on a word it did not say and
// nothing is released: every payment the failure covers stays as it is.
func TestReconcileLeavesEverythingAsItIsOnNodeFailures(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		method string
		fault  nodeFault
	}{
		"HTTP 500":                         {"", faultHTTP500},
		"a stalled node":                   {"", faultStall},
		"a body that is not JSON":          {"", faultGarbage},
		"a batch without answers":          {"eth_call", faultBatchEmpty},
		"a batch answered under other ids": {"eth_call", faultBatchWrongIDs},
		"calls that fail":                  {"eth_call", faultCallError},
		"an answer too short":              {"eth_call", faultShortResult},
		"an answer that is not a bool":     {"eth_call", faultNotBool},
		"no latest block":                  {"eth_getBlockByNumber", faultNullHeader},
		"a garbled latest block":           {"eth_getBlockByNumber", faultGarbage},
		"a garbled chain id":               {"eth_chainId", faultGarbage},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			expires := rt0.Add(-time.Hour)
			clock := sdktest.NewClock(rt0) // both payments expired long ago
			b := clockedBudget(t, clock)
			node := startEVMNode(t, rt0)
			inDoubt(t, b, nonceHex(1), 100, expires)
			inDoubt(t, b, nonceHex(2), 200, expires)
			node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
			node.fail(tc.method, tc.fault)

			r := newReconciler(t, b, node, reconcile.WithLookupTimeout(200*time.Millisecond))
			rep, err := r.Reconcile(t.Context())
			require.NoError(t, err)
			assert.Empty(t, rep.Committed)
			assert.Empty(t, rep.Released)
			require.Len(t, rep.Pending, 2)
			for _, p := range rep.Pending {
				var le *reconcile.LookupError
				require.ErrorAs(t, p.Err, &le, "payment %s", p.ID)
				assert.Equal(t, baseRail, le.Rail)
			}
			require.NotEmpty(t, rep.Failures)
			require.Error(t, rep.Err())
			assert.NotContains(t, rep.Err().Error(), node.URL, "the node's URL is not quoted")
			totals(t, b, 0, 300)
			if tc.fault == faultStall {
				assert.ErrorIs(t, rep.Err(), context.DeadlineExceeded, "the lookup's bound ended it")
			}
		})
	}
}

func TestReconcileKeepsThePaymentsABatchLeftUnanswered(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	inDoubt(t, b, nonceHex(1), 100, rt0.Add(-2*time.Hour))
	inDoubt(t, b, nonceHex(2), 200, rt0.Add(-time.Hour)) // listed last: its answer is dropped
	node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
	node.fail("eth_call", faultDropLast)

	rep, err := newReconciler(t, b, node).Reconcile(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{nonceHex(1)}, ids(rep.Committed))
	assert.Empty(t, rep.Released, "the unanswered payment is not released")
	require.Equal(t, []string{nonceHex(2)}, ids(rep.Pending))
	assert.ErrorIs(t, rep.Pending[0].Err, rpc.ErrMissingBatchResponse)
	require.Len(t, rep.Failures, 1)
	assert.Equal(t, 1, rep.Failures[0].Payments)
	totals(t, b, 100, 200)
}

func TestReconcileRefusesANodeOfAnotherChain(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	node.serveChain(84532) // Base Sepolia, where no authorization of Base was ever used
	inDoubt(t, b, nonceHex(1), 100, rt0.Add(-time.Hour))

	rep, err := newReconciler(t, b, node).Reconcile(t.Context())
	require.NoError(t, err)
	assert.Empty(t, rep.Released)
	require.Len(t, rep.Failures, 1)
	assert.ErrorContains(t, rep.Failures[0], "the node serves chain 84532, not 8453")
	assert.Empty(t, node.calls("eth_call"), "nothing is read from the wrong chain")
	totals(t, b, 0, 100)
}

func TestReconcileBatchesAndPacesItsLookups(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	for i := range 7 {
		inDoubt(t, b, nonceHex(i), 10, rt0.Add(time.Duration(i+1)*time.Minute))
	}
	const perSecond = 20
	r := newReconciler(t, b, node, reconcile.WithBatch(3), reconcile.WithRate(perSecond))

	start := time.Now()
	rep, err := r.Reconcile(t.Context())
	elapsed := time.Since(start)
	require.NoError(t, err)
	assert.Len(t, rep.Pending, 7)
	batches := node.batches("eth_call")
	require.Len(t, batches, 3)
	var sizes []int
	for _, batch := range batches {
		assert.True(t, batch.Batch)
		sizes = append(sizes, len(batch.Calls))
	}
	assert.Equal(t, []int{3, 3, 1}, sizes, "chunks of the batch size")
	var order []string
	for _, batch := range batches {
		for _, c := range batch.Calls {
			_, _, nonce, _ := callOf(t, c)
			order = append(order, nonce)
		}
	}
	assert.Equal(t, []string{nonceHex(0), nonceHex(1), nonceHex(2), nonceHex(3), nonceHex(4), nonceHex(5), nonceHex(6)}, order,
		"oldest expiry first")
	assert.Len(t, node.calls("eth_chainId"), 1, "the chain is checked once")
	assert.Len(t, node.calls("eth_getBlockByNumber"), 3, "one latest block per lookup")
	// The first lookup goes at once, each further one a 1/perSecond later.
	assert.GreaterOrEqual(t, elapsed, 2*time.Second/perSecond-5*time.Millisecond, "the lookups are paced")
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
		at = append(at, time.Now())
		mu.Unlock()
		return []reconcile.Result{{ID: payments[0].ID}}, nil
	}}
	const perSecond = 40
	r, err := reconcile.New(b, reconcile.WithLookup(lookup), reconcile.WithBatch(1), reconcile.WithRate(perSecond))
	require.NoError(t, err)

	start := time.Now()
	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Len(t, rep.Pending, 4)
	require.Len(t, at, 4)
	assert.Equal(t, [][]string{{"a"}, {"b"}, {"c"}, {"d"}}, lookup.asked, "one payment a lookup")
	assert.GreaterOrEqual(t, at[3].Sub(start), 3*time.Second/perSecond-5*time.Millisecond, "the fourth lookup waited for three intervals")
}

func TestReconcileReportsPaymentsNoLookupHandles(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	h, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(100), PayTo: shopAddress, Rail: "x402 " + evm.NetworkBaseSepolia,
		Payer: payerAddress, Asset: evm.USDCBaseSepolia})
	require.NoError(t, err)
	require.NoError(t, h.Sign(t.Context(), ledger.Signature{ID: nonceHex(1), Expires: rt0.Add(-time.Hour)}))
	require.NoError(t, h.InDoubt(t.Context()))

	rep, err := newReconciler(t, b, node).Reconcile(t.Context())
	require.NoError(t, err)
	require.Len(t, rep.Failures, 1)
	assert.ErrorIs(t, rep.Failures[0], reconcile.ErrNoLookup)
	assert.Equal(t, "x402 "+evm.NetworkBaseSepolia, rep.Failures[0].Rail)
	require.Len(t, rep.Pending, 1)
	assert.ErrorIs(t, rep.Pending[0].Err, reconcile.ErrNoLookup)
	assert.Empty(t, node.calls("eth_call"))
	totals(t, b, 0, 100)
}

// fixedLookup is a PaymentLookup of the "test" rail that answers what it is told, and
// records what it was asked.
type fixedLookup struct {
	results func(payments []ledger.Outstanding) ([]reconcile.Result, error)
	mu      sync.Mutex
	asked   [][]string
}

func (f *fixedLookup) Handles(rail string) bool { return rail == "test" }

func (f *fixedLookup) Lookup(_ context.Context, payments []ledger.Outstanding) ([]reconcile.Result, error) {
	f.mu.Lock()
	f.asked = append(f.asked, ids(resolutionsOf(payments)))
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
	r, err := reconcile.New(b, reconcile.WithLookup(lookup), reconcile.WithRate(1000))
	require.NoError(t, err)

	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, ids(rep.Released), "failed on chain, and expired")
	assert.Empty(t, rep.Committed)
	assert.ElementsMatch(t, []string{"b", "c", "d", "e"}, ids(rep.Pending))
	for _, p := range rep.Pending {
		switch p.ID {
		case "b", "c":
			assert.Error(t, p.Err, p.ID)
		default:
			assert.NoError(t, p.Err, p.ID)
		}
	}
	assert.Len(t, rep.Failures, 2)
	totals(t, b, 0, 2+4+8+16)
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
	r, err := reconcile.New(b, reconcile.WithLookup(lookup), reconcile.WithRate(1000))
	require.NoError(t, err)

	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Empty(t, rep.Committed, "what came with an error is not trusted")
	assert.Empty(t, rep.Released)
	assert.Len(t, rep.Pending, 2)
	require.Len(t, rep.Failures, 1)
	assert.Equal(t, 2, rep.Failures[0].Payments)
	assert.ErrorContains(t, rep.Err(), "the node went away mid-answer")
	totals(t, b, 0, 3)
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
	r, err := reconcile.New(b, reconcile.WithLookup(lookup), reconcile.WithBatch(1), reconcile.WithRate(1000))
	require.NoError(t, err)

	rep, err := r.Reconcile(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, rep)
	assert.Equal(t, []string{"a"}, ids(rep.Committed), "the answer that came is booked")
	assert.Equal(t, []string{"b", "c"}, ids(rep.Pending))
	assert.Len(t, lookup.asked, 1, "no lookup after the context ended")
	totals(t, b, 1, 2)
}

func TestReconcileRunsInTheBackground(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	inDoubt(t, b, nonceHex(1), 100, rt0.Add(time.Hour))
	r := newReconciler(t, b, node)

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	reports := make(chan *reconcile.Report, 100)
	done := make(chan error, 1)
	go func() {
		done <- r.Run(ctx, 10*time.Millisecond, func(rep *reconcile.Report, err error) {
			if err == nil {
				reports <- rep
			}
		})
	}()
	first := <-reports
	assert.Empty(t, first.Committed, "not settled yet")
	assert.Len(t, first.Pending, 1)

	node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
	for rep := range reports {
		if len(rep.Committed) > 0 {
			assert.Equal(t, []string{nonceHex(1)}, ids(rep.Committed))
			break
		}
	}
	totals(t, b, 100, 0)
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return once its context ended")
	}

	err := r.Run(t.Context(), 0, nil)
	var ve *sdk.ValidationError
	assert.ErrorAs(t, err, &ve)
}

// The RPC URL may carry a provider's key, and a Solana payment's identifier redeems a key:
// neither reaches an error or a log line.
func TestReconcileKeepsSecretsOutOfErrorsAndLogs(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	const key = "k3y-0f-the-pr0vider-5ecret"
	scan.Add(key)
	inDoubt(t, b, nonceHex(1), 100, rt0.Add(-time.Hour))
	inDoubt(t, b, nonceHex(2), 200, rt0.Add(-time.Hour))
	node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

	good := newReconciler(t, b, node, reconcile.WithLogger(logger))
	_, err := good.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Contains(t, logs.String(), "outcome=committed")
	assert.Contains(t, logs.String(), "outcome=released")
	assert.Contains(t, logs.String(), "payee="+shopAddress)
	assert.Contains(t, logs.String(), "amount=100")
	assert.Contains(t, logs.String(), "rail=\""+baseRail+"\"")

	inDoubt(t, b, nonceHex(3), 300, rt0.Add(-time.Hour))
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // a node that refuses connections: net/http quotes the URL in its error
	bad, err := reconcile.New(b, x402.WithEVMRPC(evm.NetworkBase, gone.URL+"/v2/"+key), reconcile.WithLogger(logger),
		reconcile.WithRate(1000))
	require.NoError(t, err)
	defer bad.Close()
	rep, err := bad.Reconcile(t.Context())
	require.NoError(t, err)
	require.Error(t, rep.Err())
	scan.Record(rep.Err())
	assert.NotContains(t, rep.Err().Error(), key)
	assert.Contains(t, logs.String(), "payment lookup failed")

	for i := 1; i <= 3; i++ {
		assert.NotContains(t, strings.ToLower(logs.String()), lower(nonceHex(i))[2:], "no payment id is logged")
	}
	assert.NotContains(t, logs.String(), key)
}

func TestReconcilerOptionsAreChecked(t *testing.T) {
	t.Parallel()
	b, err := budget.New(budget.Unlimited)
	require.NoError(t, err)
	client, err := rpc.Dial("http://127.0.0.1:1")
	require.NoError(t, err)
	defer client.Close()
	for name, opt := range map[string]reconcile.Option{
		"an RPC URL that is not http":  x402.WithEVMRPC(evm.NetworkBase, "ftp://node.example"),
		"a relative RPC URL":           x402.WithEVMRPC(evm.NetworkBase, "/rpc"),
		"a network that is not EVM":    x402.WithEVMRPC("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "https://node.example"),
		"a network that is not CAIP-2": x402.WithEVMClient("base mainnet", client),
		"a nil client":                 x402.WithEVMClient(evm.NetworkBase, nil),
		"a nil lookup":                 reconcile.WithLookup(nil),
		"a rate of zero":               reconcile.WithRate(0),
		"a rate that is no number":     reconcile.WithRate(nan()),
		"a batch of zero":              reconcile.WithBatch(0),
		"a timeout of zero":            reconcile.WithLookupTimeout(0),
		"a nil clock":                  reconcile.WithClock(nil),
	} {
		_, err := reconcile.New(b, opt)
		var ve *sdk.ValidationError
		assert.ErrorAs(t, err, &ve, name)
	}
	_, err = reconcile.New(b, x402.WithEVMClient(evm.NetworkBase, client), x402.WithEVMRPC("base", "https://node.example"))
	assert.ErrorContains(t, err, "has an EVM RPC already", "the v1 name of the same network")
	_, err = reconcile.New(nil)
	assert.Error(t, err)
}

// nan returns a NaN, which no constant expression may hold.
func nan() float64 {
	zero := 0.0
	return zero / zero
}

func TestReconcilerClockDecidesTheExpiry(t *testing.T) {
	t.Parallel()
	budgetClock := sdktest.NewClock(rt0.Add(time.Hour))
	b := clockedBudget(t, budgetClock)
	node := startEVMNode(t, rt0.Add(time.Hour))
	inDoubt(t, b, nonceHex(1), 100, rt0)
	own := sdktest.NewClock(rt0) // behind: the payment has not expired on it

	rep, err := newReconciler(t, b, node, reconcile.WithClock(own)).Reconcile(t.Context())
	require.NoError(t, err)
	assert.Empty(t, rep.Released)
	assert.Len(t, rep.Pending, 1)

	own.set(rt0.Add(time.Hour))
	rep, err = newReconciler(t, b, node, reconcile.WithClock(own)).Reconcile(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{nonceHex(1)}, ids(rep.Released))
	totals(t, b, 0, 0)
}

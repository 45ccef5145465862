package evm_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
)

// The reconciliation tests' parties and times.
const (
	payerAddress = "0x8ba1f109551bD432803012645Ac136ddd64DBA72"
	payeeAddress = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	baseRail     = "x402 " + evm.NetworkBase
)

// rt0 is when the reconciliation tests start.
var rt0 = time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)

// settleSlack is how long before its reservation the lookup looks for a payment's
// settlement: the payer back-dates validAfter by ten minutes, and the store's clock may run
// ExpiryMargin ahead of the payer's.
const settleSlack = 10*time.Minute + ledger.ExpiryMargin

// nonceHex returns the i-th test nonce, 0x hex; the secret scan watches for it.
func nonceHex(i int) string {
	n := hexutil.Encode(common.LeftPadBytes(big.NewInt(int64(1000+i)).Bytes(), 32))
	scan.Add(n[2:])
	return n
}

// txHex returns the i-th test transaction hash, 0x hex.
func txHex(i int) string {
	return hexutil.Encode(common.LeftPadBytes(big.NewInt(int64(7000+i)).Bytes(), 32))
}

// inDoubt reserves amount on budget for an x402 payment on Base with nonce, signs it to
// expire at expires and marks it in doubt, as a payer does when the answer is lost.
func inDoubt(t testing.TB, b *budget.Budget, nonce string, amount int64, expires time.Time) *budget.Hold {
	t.Helper()
	h := signedHold(t, b, nonce, amount, expires)
	require.NoError(t, h.InDoubt(t.Context()))
	return h
}

// signedHold reserves and signs an x402 payment on Base with nonce.
func signedHold(t testing.TB, b *budget.Budget, nonce string, amount int64, expires time.Time) *budget.Hold {
	t.Helper()
	h, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(amount), PayTo: payeeAddress, Rail: baseRail,
		Resource: "https://shop.example/report", Payer: payerAddress, Asset: evm.USDCBase})
	require.NoError(t, err)
	require.NoError(t, h.Sign(t.Context(), ledger.Signature{ID: nonce, Expires: expires}))
	return h
}

// clockedBudget returns a budget of 1,000,000 kept in the store budgettest.EnvStore names,
// deciding on clock.
func clockedBudget(t *testing.T, clock *sdktest.Clock) *budget.Budget {
	t.Helper()
	return budgettest.NewBudget(t, budgettest.Selected(t), big.NewInt(1_000_000), clock)
}

// dial returns the lookup of Base through node and the endpoints opts add, closed when the
// test ends.
func dial(t *testing.T, node *evmNode, opts ...evm.LookupOption) *evm.Lookup {
	t.Helper()
	lookup, err := evm.DialLookup(evm.NetworkBase, node.URL, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = lookup.Close() })
	return lookup
}

// newReconciler returns a reconciler of b, a budget on clock, through a lookup of Base
// dialled at node, fast-paced, with opts after.
func newReconciler(t *testing.T, b *budget.Budget, clock *sdktest.Clock, node *evmNode, opts ...reconcile.Option) *reconcile.Reconciler {
	t.Helper()
	return reconcilerOf(t, b, clock, dial(t, node), opts...)
}

// reconcilerOf returns a reconciler of b, a budget on clock, through lookup, fast-paced,
// logging to the secret scan, with opts after. A reconciler's clock is by default its
// budget's, which is clock in memory; a budget kept in a durable store has the store's
// clock, so the reconciler is given clock too.
func reconcilerOf(t *testing.T, b *budget.Budget, clock *sdktest.Clock, lookup reconcile.Lookup, opts ...reconcile.Option) *reconcile.Reconciler {
	t.Helper()
	all := append(budgetClock(t, clock), reconcile.WithLookup(lookup), reconcile.WithRate(1000), reconcile.WithLogger(scan.Logger()))
	r, err := reconcile.New(b, append(all, opts...)...)
	require.NoError(t, err)
	return r
}

// reconcile runs one reconciliation of r, which must not fail, and hands its failures to
// the secret scan.
func reconcileOnce(t *testing.T, r *reconcile.Reconciler) *reconcile.Report {
	t.Helper()
	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	scan.Record(rep.Err())
	return rep
}

// budgetClock returns the option that gives a reconciler the clock of a budget made by
// clockedBudget: none in memory, where the reconciler takes its budget's by default.
func budgetClock(t *testing.T, clock *sdktest.Clock) []reconcile.Option {
	t.Helper()
	if budgettest.Selected(t) == budgettest.Memory {
		return nil
	}
	return []reconcile.Option{reconcile.WithClock(clock)}
}

// pendingOf returns what a report says of the pending payment id.
func pendingOf(t *testing.T, rep *reconcile.Report, id string) reconcile.Resolution {
	t.Helper()
	for _, p := range rep.Pending {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("payment %s is not pending", id)
	return reconcile.Resolution{}
}

// blockHex returns block as a JSON-RPC quantity.
func blockHex(block uint64) string { return hexutil.EncodeUint64(block) }

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
	_, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(600), PayTo: payeeAddress, Rail: baseRail})
	require.NoError(t, err) // reserved, nothing signed
	node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
	node.settle(evm.USDCBase, payerAddress, nonceHex(4), txHex(4))
	clock.Set(expired.Add(ledger.ExpiryMargin + time.Second))
	budgettest.AssertTotals(t, b, 0, 2100)

	r := newReconciler(t, b, clock, node)
	rep := reconcileOnce(t, r)
	require.NoError(t, rep.Err())

	require.Len(t, rep.Committed, 2)
	assert.ElementsMatch(t, []string{nonceHex(1), nonceHex(4)}, budgettest.IDs(rep.Committed))
	for _, c := range rep.Committed {
		want := map[string]string{nonceHex(1): txHex(1), nonceHex(4): txHex(4)}[c.ID]
		assert.Equal(t, want, c.Transaction, "the settling transaction of %s, from its AuthorizationUsed event", c.ID)
		assert.Equal(t, reconcile.Settled, c.Chain)
	}
	assert.Equal(t, []string{nonceHex(2)}, budgettest.IDs(rep.Released))
	assert.Equal(t, reconcile.NotSettled, rep.Released[0].Chain)
	require.Equal(t, []string{nonceHex(3)}, budgettest.IDs(rep.Pending))
	assert.Equal(t, valid.Add(ledger.ExpiryMargin), rep.Pending[0].Until, "in doubt until it can no longer settle")
	assert.NoError(t, rep.Pending[0].Err)
	assert.Empty(t, rep.Failures)
	assert.Len(t, rep.Caveats, 1, "one endpoint decides: the report says what that trusts")
	budgettest.AssertTotals(t, b, 100+400, 300+500+600)

	// What was sent: the chain id once; the latest and the finalized block in one batch;
	// one batch of the four payments' state at the latest block and of the two expired at
	// the finalized block; a few headers to find the first block the payments could settle
	// in; one log query for the three whose events decide.
	assert.Len(t, node.calls("eth_chainId"), 1)
	heads := node.batches("eth_getBlockByNumber")
	require.NotEmpty(t, heads)
	assert.True(t, heads[0].Batch)
	require.Len(t, heads[0].Calls, 2)
	assert.JSONEq(t, `["latest", false]`, "["+string(heads[0].Calls[0].Params[0])+","+string(heads[0].Calls[0].Params[1])+"]")
	assert.JSONEq(t, `"finalized"`, string(heads[0].Calls[1].Params[0]))
	assert.LessOrEqual(t, len(heads)-1, 3, "the first block by time in a few headers on a chain of regular blocks")
	batches := node.batches("eth_call")
	require.Len(t, batches, 1)
	assert.True(t, batches[0].Batch, "the calls travel as one JSON-RPC batch")
	asked := map[string][]string{}
	for _, c := range batches[0].Calls {
		token, payer, nonce, block := callOf(t, c)
		assert.Equal(t, evm.USDCBase, token)
		assert.Equal(t, payerAddress, payer)
		asked[nonce] = append(asked[nonce], block)
	}
	latest, final := blockHex(headBlock), blockHex(headBlock-finalizedLag)
	assert.Equal(t, map[string][]string{
		nonceHex(1): {latest, final}, nonceHex(2): {latest, final}, nonceHex(3): {latest}, nonceHex(4): {latest},
	}, asked, "each at the latest block; the expired at the finalized block too")
	logs := node.calls("eth_getLogs")
	require.Len(t, logs, 1)
	from, to, addresses, topics := logFilterOf(t, logs[0])
	assert.Equal(t, node.blockAt(rt0.Add(-settleSlack)), from, "from the first block the payments could settle in")
	assert.Equal(t, uint64(headBlock), to)
	assert.Equal(t, []common.Address{common.HexToAddress(evm.USDCBase)}, addresses)
	require.Len(t, topics, 3)
	assert.Equal(t, []common.Hash{authorizationUsedTopic}, topics[0])
	assert.Equal(t, []common.Hash{common.BytesToHash(common.HexToAddress(payerAddress).Bytes())}, topics[1])
	assert.ElementsMatch(t, []common.Hash{common.HexToHash(nonceHex(1)), common.HexToHash(nonceHex(2)), common.HexToHash(nonceHex(4))},
		topics[2])

	// A second pass finds only the one still pending, and keeps it.
	rep = reconcileOnce(t, r)
	assert.Empty(t, rep.Committed)
	assert.Empty(t, rep.Released)
	assert.Equal(t, []string{nonceHex(3)}, budgettest.IDs(rep.Pending))
	assert.Len(t, node.calls("eth_chainId"), 1, "the chain id is kept once read")
}

// A node that says "unused" releases nothing that could still settle: not before the
// payment's expiry plus ExpiryMargin on the reconciler's clock, and not while the node's
// finalized block is before the payment's validBefore plus the margin, wherever its latest
// block is. The node lies about the one that settled, and its events give it away.
func TestReconcileReleasesNothingThatCouldStillSettle(t *testing.T) {
	t.Parallel()
	expires := rt0.Add(5 * time.Minute)
	finalLag := finalizedLag * blockSeconds * time.Second
	for name, tc := range map[string]struct {
		clock, head time.Time
		chain       reconcile.ChainState // of the one that never settled
		caught      bool                 // the lie about the one that settled is caught
	}{
		"neither has passed the expiry": {clock: rt0, head: rt0, chain: reconcile.Pending},
		"the clock is within the margin": {clock: expires.Add(ledger.ExpiryMargin), head: expires.Add(time.Hour),
			chain: reconcile.NotSettled, caught: true},
		"the finalized block is within the margin": {clock: expires.Add(time.Hour),
			head: expires.Add(ledger.ExpiryMargin + finalLag - time.Second), chain: reconcile.Pending},
		"the latest block only is past the margin": {clock: expires.Add(time.Hour),
			head: expires.Add(ledger.ExpiryMargin + time.Minute), chain: reconcile.Pending},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := sdktest.NewClock(rt0)
			b := clockedBudget(t, clock)
			node := startEVMNode(t, tc.head)
			inDoubt(t, b, nonceHex(1), 100, expires)
			inDoubt(t, b, nonceHex(2), 200, expires)
			node.settleAt(evm.USDCBase, payerAddress, nonceHex(1), txHex(1), node.blockAt(rt0.Add(time.Minute)))
			node.fail("eth_call", faultLie) // it settled, but the node says it did not
			clock.Set(tc.clock)

			rep := reconcileOnce(t, newReconciler(t, b, clock, node))
			assert.Empty(t, rep.Committed)
			assert.Empty(t, rep.Released)
			require.Len(t, rep.Pending, 2)
			for _, p := range rep.Pending {
				assert.Equal(t, expires.Add(ledger.ExpiryMargin), p.Until)
			}
			var conflict *evm.ConflictError
			if tc.caught {
				assert.ErrorAs(t, pendingOf(t, rep, nonceHex(1)).Err, &conflict, "its state and its event disagree")
			} else {
				assert.NoError(t, pendingOf(t, rep, nonceHex(1)).Err)
			}
			assert.NoError(t, pendingOf(t, rep, nonceHex(2)).Err)
			assert.Equal(t, tc.chain, pendingOf(t, rep, nonceHex(2)).Chain)
			budgettest.AssertTotals(t, b, 0, 300)
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
		batch  bool // the failure is a batch answered under other ids than it sent
	}{
		"HTTP 500":                                 {"", faultHTTP500, false},
		"a stalled node":                           {"", faultStall, false},
		"a body that is not JSON":                  {"", faultGarbage, false},
		"a batch without answers":                  {"eth_call", faultBatchEmpty, true},
		"a batch answered under other ids":         {"eth_call", faultBatchWrongIDs, true},
		"a batch with an answer repeated":          {"eth_call", faultBatchRepeat, true},
		"a batch answered under rotated ids":       {"eth_call", faultBatchRotate, false}, // caught by the events
		"a batch without its last answer":          {"eth_call", faultDropLast, true},
		"heads answered under rotated ids":         {"eth_getBlockByNumber", faultBatchRotate, false},
		"calls that fail":                          {"eth_call", faultCallError, false},
		"an answer too short":                      {"eth_call", faultShortResult, false},
		"an answer that is not a bool":             {"eth_call", faultNotBool, false},
		"no latest block":                          {"eth_getBlockByNumber", faultNullHeader, false},
		"a garbled latest block":                   {"eth_getBlockByNumber", faultGarbage, false},
		"a finalized block ahead of the latest":    {"eth_getBlockByNumber", faultFinalAhead, false},
		"a garbled chain id":                       {"eth_chainId", faultGarbage, false},
		"events refused whatever the range":        {"eth_getLogs", faultLogsRefused, false},
		"events that are not JSON":                 {"eth_getLogs", faultGarbage, false},
		"a latest block a thousand blocks too far": {"eth_getBlockByNumber", faultFutureLatest, false},
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

			r := newReconciler(t, b, clock, node, reconcile.WithLookupTimeout(200*time.Millisecond))
			rep := reconcileOnce(t, r)
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
			var be *evm.BatchError
			assert.Equal(t, tc.batch, errors.As(rep.Err(), &be), "a *BatchError: %v", rep.Err())
			budgettest.AssertTotals(t, b, 0, 300)
			if tc.fault == faultStall {
				assert.ErrorIs(t, rep.Err(), context.DeadlineExceeded, "the lookup's bound ended it")
				assert.ErrorIs(t, rep.Err(), reconcile.ErrUnreachable)
			}
		})
	}
}

func TestReconcileRefusesANodeOfAnotherChain(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	node.serveChain(84532) // Base Sepolia, where no authorization of Base was ever used
	inDoubt(t, b, nonceHex(1), 100, rt0.Add(-time.Hour))

	rep := reconcileOnce(t, newReconciler(t, b, clock, node))
	assert.Empty(t, rep.Released)
	require.Len(t, rep.Failures, 1)
	assert.ErrorContains(t, rep.Failures[0], "the node serves chain 84532, not 8453")
	assert.Empty(t, node.calls("eth_call"), "nothing is read from the wrong chain")
	budgettest.AssertTotals(t, b, 0, 100)
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
	r := newReconciler(t, b, clock, node, reconcile.WithBatch(3), reconcile.WithRate(perSecond))

	start := clock.Now()
	rep := reconcileOnce(t, r)
	elapsed := clock.Now().Sub(start)
	assert.Len(t, rep.Pending, 7)
	batches := node.batches("eth_call")
	require.Len(t, batches, 3)
	var sizes []int
	for _, batch := range batches {
		assert.True(t, batch.Batch)
		sizes = append(sizes, len(batch.Calls))
	}
	assert.Equal(t, []int{3, 3, 1}, sizes, "chunks of the batch size, read at the latest block only: none has expired")
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
	assert.Len(t, node.batches("eth_getBlockByNumber"), 3, "one batch of the latest and the finalized block per lookup")
	assert.Empty(t, node.calls("eth_getLogs"), "no event decides anything of payments unused and unexpired")
	// The first lookup goes at once, each further one a 1/perSecond later, on the
	// reconciler's clock.
	assert.GreaterOrEqual(t, elapsed, 2*time.Second/perSecond-5*time.Millisecond, "the lookups are paced")
	waits := clock.Waits()
	require.Len(t, waits, 2, "no wait before the first lookup, one before each further one")
	for _, w := range waits {
		assert.InDelta(t, float64(time.Second/perSecond), float64(w), float64(time.Microsecond))
	}
}

func TestReconcileReportsPaymentsNoLookupHandles(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	h, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(100), PayTo: payeeAddress, Rail: "x402 " + evm.NetworkBaseSepolia,
		Payer: payerAddress, Asset: evm.USDCBaseSepolia})
	require.NoError(t, err)
	require.NoError(t, h.Sign(t.Context(), ledger.Signature{ID: nonceHex(1), Expires: rt0.Add(-time.Hour)}))
	require.NoError(t, h.InDoubt(t.Context()))

	rep := reconcileOnce(t, newReconciler(t, b, clock, node))
	require.Len(t, rep.Failures, 1)
	assert.ErrorIs(t, rep.Failures[0], reconcile.ErrNoLookup)
	assert.Equal(t, "x402 "+evm.NetworkBaseSepolia, rep.Failures[0].Rail)
	require.Len(t, rep.Pending, 1)
	assert.ErrorIs(t, rep.Pending[0].Err, reconcile.ErrNoLookup)
	assert.Empty(t, node.calls("eth_call"))
	assert.Empty(t, rep.Caveats, "no lookup was used")
	budgettest.AssertTotals(t, b, 0, 100)
}

func TestReconcileRunsInTheBackground(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(rt0)
	b := clockedBudget(t, clock)
	node := startEVMNode(t, rt0)
	inDoubt(t, b, nonceHex(1), 100, rt0.Add(time.Hour))
	r := newReconciler(t, b, clock, node)

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	reports := make(chan *reconcile.Report, 100)
	done := make(chan error, 1)
	go func() {
		done <- r.Run(ctx, 10*time.Millisecond, func(rep *reconcile.Report, err error) {
			if err == nil {
				select { // the fake clock waits no time: Run may report faster than the test reads
				case reports <- rep:
				case <-ctx.Done():
				}
			}
		})
	}()
	first := <-reports
	assert.Empty(t, first.Committed, "not settled yet")
	assert.Len(t, first.Pending, 1)

	node.settleAt(evm.USDCBase, payerAddress, nonceHex(1), txHex(1), headBlock) // in the latest block
	for committed := false; !committed; {
		select {
		case rep := <-reports:
			if committed = len(rep.Committed) > 0; committed {
				assert.Equal(t, []string{nonceHex(1)}, budgettest.IDs(rep.Committed))
				assert.Equal(t, txHex(1), rep.Committed[0].Transaction)
			}
		case <-ctx.Done():
			t.Fatal("Run never committed the payment that settled")
		}
	}
	budgettest.AssertTotals(t, b, 100, 0)
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return once its context ended")
	}
	assert.Contains(t, clock.Waits(), 10*time.Millisecond, "Run waits its interval on the reconciler's clock")

	err := r.Run(t.Context(), 0, nil)
	var ve *sdk.ValidationError
	assert.ErrorAs(t, err, &ve)
}

// The RPC URL may carry a provider's key, and a payment's nonce is a secret: neither
// reaches an error or a log line.
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

	good := newReconciler(t, b, clock, node, reconcile.WithLogger(logger))
	_, err := good.Reconcile(t.Context())
	require.NoError(t, err)
	assert.Contains(t, logs.String(), "outcome=committed")
	assert.Contains(t, logs.String(), "outcome=released")
	assert.Contains(t, logs.String(), "payee="+lower(payeeAddress), "the budget keeps an EVM payee in lower case")
	assert.Contains(t, logs.String(), "amount=100")
	assert.Contains(t, logs.String(), "rail=\""+baseRail+"\"")

	inDoubt(t, b, nonceHex(3), 300, rt0.Add(-time.Hour))
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // a node that refuses connections: net/http quotes the URL in its error
	lookup, err := evm.DialLookup(evm.NetworkBase, gone.URL+"/v2/"+key, evm.WithEndpoint(node.URL+"/v2/"+key))
	require.NoError(t, err)
	defer lookup.Close()
	bad, err := reconcile.New(b, append(budgetClock(t, clock), reconcile.WithLookup(lookup), reconcile.WithLogger(logger),
		reconcile.WithRate(1000))...)
	require.NoError(t, err)
	rep, err := bad.Reconcile(t.Context())
	require.NoError(t, err)
	require.Error(t, rep.Err())
	scan.Record(rep.Err())
	assert.NotContains(t, rep.Err().Error(), key)
	assert.Contains(t, rep.Err().Error(), "RPC endpoint 1: ", "an endpoint of several is named by its place")
	assert.ErrorIs(t, rep.Err(), reconcile.ErrUnreachable)
	assert.Contains(t, logs.String(), "payment lookup failed")
	for _, c := range lookup.Caveats() {
		assert.NotContains(t, c, key)
	}

	for i := 1; i <= 3; i++ {
		assert.NotContains(t, strings.ToLower(logs.String()), lower(nonceHex(i))[2:], "no payment id is logged")
	}
	assert.NotContains(t, logs.String(), key)
}

func TestLookupOptionsAreChecked(t *testing.T) {
	t.Parallel()
	client, err := rpc.Dial("http://127.0.0.1:1")
	require.NoError(t, err)
	defer client.Close()
	for name, open := range map[string]func() (*evm.Lookup, error){
		"an RPC URL that is not http": func() (*evm.Lookup, error) { return evm.DialLookup(evm.NetworkBase, "ftp://node.example") },
		"a relative RPC URL":          func() (*evm.Lookup, error) { return evm.DialLookup(evm.NetworkBase, "/rpc") },
		"plain HTTP to a remote node": func() (*evm.Lookup, error) { return evm.DialLookup(evm.NetworkBase, "http://node.example/v2/key") },
		"plain HTTP to a remote endpoint": func() (*evm.Lookup, error) {
			return evm.DialLookup(evm.NetworkBase, "https://node.example", evm.WithEndpoint("http://10.0.0.7:8545"))
		},
		"plain HTTP to a name ending in localhost": func() (*evm.Lookup, error) {
			return evm.DialLookup(evm.NetworkBase, "http://localhost.node.example")
		},
		"an endpoint that is not a URL": func() (*evm.Lookup, error) {
			return evm.NewLookup(evm.NetworkBase, client, evm.WithEndpoint("node.example:8545"))
		},
		"a network that is not EVM": func() (*evm.Lookup, error) {
			return evm.DialLookup("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "https://node.example")
		},
		"a network that is not CAIP-2": func() (*evm.Lookup, error) { return evm.NewLookup("base mainnet", client) },
		"a nil client":                 func() (*evm.Lookup, error) { return evm.NewLookup(evm.NetworkBase, nil) },
		"a nil further client": func() (*evm.Lookup, error) {
			return evm.DialLookup(evm.NetworkBase, "https://node.example", evm.WithClient(nil))
		},
	} {
		l, err := open()
		var ve *sdk.ValidationError
		assert.ErrorAs(t, err, &ve, name)
		assert.Nil(t, l, name)
		if err != nil {
			assert.NotContains(t, err.Error(), "key", "%s: the URL is not quoted", name)
		}
	}
	// https anywhere, plain http on the loopback interface, and elsewhere on request.
	for _, u := range []string{"https://node.example/v2/key", "http://127.0.0.1:8545", "http://127.3.4.5", "http://[::1]:8545",
		"http://localhost:8545", "http://LOCALHOST"} {
		l, err := evm.DialLookup(evm.NetworkBase, u)
		require.NoError(t, err, u)
		assert.Len(t, l.Caveats(), 1, "%s: one endpoint decides", u)
		require.NoError(t, l.Close())
	}
	insecure, err := evm.DialLookup(evm.NetworkBase, "https://node.example/v2/key",
		evm.WithEndpoint("http://10.0.0.7:8545/v2/key"), evm.WithInsecureHTTP())
	require.NoError(t, err)
	defer insecure.Close()
	require.Len(t, insecure.Caveats(), 1, "two endpoints: no single one decides")
	assert.Contains(t, insecure.Caveats()[0], "RPC endpoint 2 is plain HTTP")
	assert.NotContains(t, insecure.Caveats()[0], "10.0.0.7")

	// The v1 name of a network is the same network: its lookup handles the CAIP-2 rail.
	v1, err := evm.DialLookup("base", "https://node.example")
	require.NoError(t, err)
	defer v1.Close()
	caip2, err := evm.NewLookup(evm.NetworkBase, client)
	require.NoError(t, err)
	defer caip2.Close()
	for _, l := range []*evm.Lookup{v1, caip2} {
		assert.True(t, l.Handles(baseRail))
		assert.False(t, l.Handles("x402 "+evm.NetworkBaseSepolia))
	}
}

func TestReconcilerClockDecidesTheExpiry(t *testing.T) {
	t.Parallel()
	budgetsClock := sdktest.NewClock(rt0.Add(time.Hour))
	b := clockedBudget(t, budgetsClock)
	node := startEVMNode(t, rt0.Add(time.Hour))
	inDoubt(t, b, nonceHex(1), 100, rt0)
	own := sdktest.NewClock(rt0) // behind: the payment has not expired on it

	rep := reconcileOnce(t, newReconciler(t, b, budgetsClock, node, reconcile.WithClock(own)))
	assert.Empty(t, rep.Released)
	assert.Len(t, rep.Pending, 1)

	own.Set(rt0.Add(time.Hour))
	rep = reconcileOnce(t, newReconciler(t, b, budgetsClock, node, reconcile.WithClock(own)))
	assert.Equal(t, []string{nonceHex(1)}, budgettest.IDs(rep.Released))
	budgettest.AssertTotals(t, b, 0, 0)
}

// lower returns s in lower case.
func lower(s string) string { return strings.ToLower(s) }

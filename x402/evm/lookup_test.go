package evm_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
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

// newReconciler returns a reconciler of b, a budget on clock, through a lookup of Base
// dialled at node, fast-paced, with opts after. A reconciler's clock is by default its
// budget's, which is clock in memory; a budget kept in a durable store has the store's
// clock, so the reconciler is given clock too.
func newReconciler(t *testing.T, b *budget.Budget, clock *sdktest.Clock, node *evmNode, opts ...reconcile.Option) *reconcile.Reconciler {
	t.Helper()
	lookup, err := evm.DialLookup(evm.NetworkBase, node.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = lookup.Close() })
	all := append(budgetClock(t, clock), reconcile.WithLookup(lookup), reconcile.WithRate(1000), reconcile.WithLogger(scan.Logger()))
	r, err := reconcile.New(b, append(all, opts...)...)
	require.NoError(t, err)
	return r
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
	_, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(600), PayTo: payeeAddress, Rail: baseRail})
	require.NoError(t, err) // reserved, nothing signed
	node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
	node.settle(evm.USDCBase, payerAddress, nonceHex(4), txHex(4))
	clock.Set(expired.Add(ledger.ExpiryMargin + time.Second))
	totals(t, b, 0, 2100)

	rep, err := newReconciler(t, b, clock, node).Reconcile(t.Context())
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
	rep, err = newReconciler(t, b, clock, node).Reconcile(t.Context())
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

	rep, err := newReconciler(t, b, clock, node).Reconcile(t.Context())
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

			rep, err := newReconciler(t, b, clock, node).Reconcile(t.Context())
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

			r := newReconciler(t, b, clock, node, reconcile.WithLookupTimeout(200*time.Millisecond))
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

	rep, err := newReconciler(t, b, clock, node).Reconcile(t.Context())
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

	rep, err := newReconciler(t, b, clock, node).Reconcile(t.Context())
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
	r := newReconciler(t, b, clock, node, reconcile.WithBatch(3), reconcile.WithRate(perSecond))

	start := clock.Now()
	rep, err := r.Reconcile(t.Context())
	elapsed := clock.Now().Sub(start)
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

	rep, err := newReconciler(t, b, clock, node).Reconcile(t.Context())
	require.NoError(t, err)
	require.Len(t, rep.Failures, 1)
	assert.ErrorIs(t, rep.Failures[0], reconcile.ErrNoLookup)
	assert.Equal(t, "x402 "+evm.NetworkBaseSepolia, rep.Failures[0].Rail)
	require.Len(t, rep.Pending, 1)
	assert.ErrorIs(t, rep.Pending[0].Err, reconcile.ErrNoLookup)
	assert.Empty(t, node.calls("eth_call"))
	totals(t, b, 0, 100)
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

	node.settle(evm.USDCBase, payerAddress, nonceHex(1), txHex(1))
	for committed := false; !committed; {
		select {
		case rep := <-reports:
			if committed = len(rep.Committed) > 0; committed {
				assert.Equal(t, []string{nonceHex(1)}, ids(rep.Committed))
			}
		case <-ctx.Done():
			t.Fatal("Run never committed the payment that settled")
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
	assert.Contains(t, clock.Waits(), 10*time.Millisecond, "Run waits its interval on the reconciler's clock")

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
	lookup, err := evm.DialLookup(evm.NetworkBase, gone.URL+"/v2/"+key)
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
	assert.Contains(t, logs.String(), "payment lookup failed")

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
		"a network that is not EVM": func() (*evm.Lookup, error) {
			return evm.DialLookup("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "https://node.example")
		},
		"a network that is not CAIP-2": func() (*evm.Lookup, error) { return evm.NewLookup("base mainnet", client) },
		"a nil client":                 func() (*evm.Lookup, error) { return evm.NewLookup(evm.NetworkBase, nil) },
	} {
		l, err := open()
		var ve *sdk.ValidationError
		assert.ErrorAs(t, err, &ve, name)
		assert.Nil(t, l, name)
	}
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

	rep, err := newReconciler(t, b, budgetsClock, node, reconcile.WithClock(own)).Reconcile(t.Context())
	require.NoError(t, err)
	assert.Empty(t, rep.Released)
	assert.Len(t, rep.Pending, 1)

	own.Set(rt0.Add(time.Hour))
	rep, err = newReconciler(t, b, budgetsClock, node, reconcile.WithClock(own)).Reconcile(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{nonceHex(1)}, ids(rep.Released))
	totals(t, b, 0, 0)
}

// What the fake node knows of EIP-3009, computed here from the signatures rather than
// taken from the package under test.
var (
	authorizationStateSelector = crypto.Keccak256([]byte("authorizationState(address,bytes32)"))[:4]
	authorizationUsedTopic     = common.BytesToHash(crypto.Keccak256([]byte("AuthorizationUsed(address,bytes32)")))
)

// nodeFault is a failure the fake EVM node answers with.
type nodeFault int

// The faults of the fake EVM node.
const (
	noFault nodeFault = iota
	faultHTTP500
	faultStall         // hold the request until the client gives up
	faultGarbage       // a body that is not JSON
	faultBatchEmpty    // a batch answered with no answers
	faultBatchWrongIDs // a batch answered under other ids
	faultDropLast      // a batch answered without its last answer
	faultShortResult   // eth_call answers one byte
	faultNotBool       // eth_call answers 32 bytes that are no bool
	faultCallError     // eth_call answers a JSON-RPC error
	faultNullHeader    // eth_getBlockByNumber answers null
	faultLogsRefused   // eth_getLogs answers a range error
	faultLie           // eth_call answers false for every authorization
)

// rpcCall is one JSON-RPC call the fake node received.
type rpcCall struct {
	Method string
	Params []json.RawMessage
}

// rpcExchange is one HTTP request the fake node received: its calls, whether it was a
// batch, and when it came.
type rpcExchange struct {
	Calls []rpcCall
	Batch bool
	At    time.Time
}

// authKey identifies an authorization on the fake chain.
type authKey struct {
	asset, payer common.Address
	nonce        common.Hash
}

// evmNode is a fake EVM JSON-RPC node holding one chain's used EIP-3009 authorizations,
// with faults on demand. It answers eth_chainId, eth_getBlockByNumber, eth_call of
// authorizationState and eth_getLogs of AuthorizationUsed, singly or in batches, and
// records every request.
type evmNode struct {
	URL string

	mu        sync.Mutex
	chainID   uint64
	block     uint64
	blockTime time.Time
	used      map[authKey]common.Hash // -> settling transaction
	faults    map[string]nodeFault    // method -> fault ("" for every request)
	exchanges []rpcExchange
}

// startEVMNode starts a fake node of Base (chain 8453) at block 1,000,000 whose time is at;
// it stops when the test ends.
func startEVMNode(t *testing.T, at time.Time) *evmNode {
	t.Helper()
	n := &evmNode{chainID: 8453, block: 1_000_000, blockTime: at, used: map[authKey]common.Hash{}, faults: map[string]nodeFault{}}
	srv := httptest.NewServer(http.HandlerFunc(n.serve))
	t.Cleanup(srv.Close)
	n.URL = srv.URL
	return n
}

// settle records the authorization of payer with nonce on asset as used by transaction tx.
func (n *evmNode) settle(asset, payer, nonce, tx string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.used[authKey{common.HexToAddress(asset), common.HexToAddress(payer), common.HexToHash(nonce)}] = common.HexToHash(tx)
}

// fail makes every call of method ("" for every request) answer with fault.
func (n *evmNode) fail(method string, fault nodeFault) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.faults[method] = fault
}

// serveChain makes the node answer eth_chainId with id.
func (n *evmNode) serveChain(id uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.chainID = id
}

// calls returns the calls of method received so far, in order.
func (n *evmNode) calls(method string) []rpcCall {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []rpcCall
	for _, e := range n.exchanges {
		for _, c := range e.Calls {
			if c.Method == method {
				out = append(out, c)
			}
		}
	}
	return out
}

// batches returns the requests that carried calls of method, in order.
func (n *evmNode) batches(method string) []rpcExchange {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []rpcExchange
	for _, e := range n.exchanges {
		if len(e.Calls) > 0 && e.Calls[0].Method == method {
			out = append(out, e)
		}
	}
	return out
}

// rpcMessage is a JSON-RPC request or answer.
type rpcMessage struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  []json.RawMessage `json:"params,omitempty"`
	Result  any               `json:"result,omitempty"`
	Error   *rpcErrorObject   `json:"error,omitempty"`
}

// rpcErrorObject is a JSON-RPC error.
type rpcErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (n *evmNode) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	batch := bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))
	var reqs []rpcMessage
	if batch {
		err = json.Unmarshal(body, &reqs)
	} else {
		reqs = make([]rpcMessage, 1)
		err = json.Unmarshal(body, &reqs[0])
	}
	if err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ex := rpcExchange{Batch: batch, At: time.Now()}
	for _, req := range reqs {
		ex.Calls = append(ex.Calls, rpcCall{Method: req.Method, Params: req.Params})
	}
	n.mu.Lock()
	n.exchanges = append(n.exchanges, ex)
	fault := n.faults[""]
	if f, ok := n.faults[reqs[0].Method]; ok && fault == noFault {
		fault = f
	}
	answers := make([]rpcMessage, len(reqs))
	for i, req := range reqs {
		answers[i] = n.answer(req, fault)
	}
	n.mu.Unlock()

	switch fault {
	case faultHTTP500:
		http.Error(w, "upstream unavailable", http.StatusInternalServerError)
		return
	case faultStall:
		<-r.Context().Done()
		return
	case faultGarbage:
		_, _ = io.WriteString(w, "<html>rate limited</html>")
		return
	case faultBatchEmpty:
		answers = answers[:0]
	case faultBatchWrongIDs:
		for i := range answers {
			answers[i].ID = json.RawMessage(strconv.Itoa(1000 + i))
		}
	case faultDropLast:
		answers = answers[:len(answers)-1]
	}
	w.Header().Set("Content-Type", "application/json")
	if batch {
		_ = json.NewEncoder(w).Encode(answers)
	} else {
		_ = json.NewEncoder(w).Encode(answers[0])
	}
}

// answer answers one call; n.mu is held.
func (n *evmNode) answer(req rpcMessage, fault nodeFault) rpcMessage {
	out := rpcMessage{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "eth_chainId":
		out.Result = hexutil.EncodeUint64(n.chainID)
	case "eth_getBlockByNumber":
		if fault == faultNullHeader {
			out.Result = json.RawMessage("null")
			break
		}
		out.Result = &types.Header{Number: new(big.Int).SetUint64(n.block), Time: uint64(n.blockTime.Unix()), Difficulty: new(big.Int)}
	case "eth_call":
		out.Result, out.Error = n.authorizationState(req.Params, fault)
	case "eth_getLogs":
		if fault == faultLogsRefused {
			out.Error = &rpcErrorObject{Code: -32005, Message: "query exceeds max block range 500"}
			break
		}
		out.Result = n.logs(req.Params)
	default:
		out.Error = &rpcErrorObject{Code: -32601, Message: "the method " + req.Method + " does not exist"}
	}
	return out
}

// authorizationState answers an eth_call of authorizationState(payer, nonce).
func (n *evmNode) authorizationState(params []json.RawMessage, fault nodeFault) (any, *rpcErrorObject) {
	var call struct {
		To   common.Address `json:"to"`
		Data hexutil.Bytes  `json:"data"`
	}
	if len(params) != 2 || json.Unmarshal(params[0], &call) != nil || len(call.Data) != 68 ||
		!bytes.Equal(call.Data[:4], authorizationStateSelector) {
		return nil, &rpcErrorObject{Code: -32602, Message: "not an authorizationState call"}
	}
	switch fault {
	case faultCallError:
		return nil, &rpcErrorObject{Code: -32000, Message: "execution reverted"}
	case faultShortResult:
		return hexutil.Bytes{1}, nil
	case faultNotBool:
		return hexutil.Bytes(common.LeftPadBytes([]byte{2}, 32)), nil
	}
	key := authKey{call.To, common.BytesToAddress(call.Data[4:36]), common.BytesToHash(call.Data[36:68])}
	_, used := n.used[key]
	result := make([]byte, 32)
	if used && fault != faultLie {
		result[31] = 1
	}
	return hexutil.Bytes(result), nil
}

// logs answers an eth_getLogs of AuthorizationUsed events.
func (n *evmNode) logs(params []json.RawMessage) any {
	var filter struct {
		Address []common.Address `json:"address"`
		Topics  [][]common.Hash  `json:"topics"`
	}
	if len(params) != 1 || json.Unmarshal(params[0], &filter) != nil || len(filter.Topics) != 3 {
		return []types.Log{}
	}
	in := func(list []common.Hash, h common.Hash) bool {
		for _, x := range list {
			if x == h {
				return true
			}
		}
		return false
	}
	out := []types.Log{}
	for key, tx := range n.used {
		payer := common.BytesToHash(key.payer[:])
		if !in(filter.Topics[0], authorizationUsedTopic) || !in(filter.Topics[1], payer) || !in(filter.Topics[2], key.nonce) {
			continue
		}
		out = append(out, types.Log{Address: key.asset, Topics: []common.Hash{authorizationUsedTopic, payer, key.nonce},
			Data: []byte{}, BlockNumber: n.block - 1, TxHash: tx})
	}
	return out
}

// callOf decodes what an eth_call of authorizationState asked: the token, the payer and the
// nonce (0x hex, lower case), and the block.
func callOf(t *testing.T, c rpcCall) (token, payer, nonce, block string) {
	t.Helper()
	require.Equal(t, "eth_call", c.Method)
	require.Len(t, c.Params, 2)
	var call struct {
		To   common.Address `json:"to"`
		Data hexutil.Bytes  `json:"data"`
	}
	require.NoError(t, json.Unmarshal(c.Params[0], &call))
	require.NoError(t, json.Unmarshal(c.Params[1], &block))
	require.Len(t, []byte(call.Data), 68)
	require.Equal(t, authorizationStateSelector, []byte(call.Data[:4]), "the selector of authorizationState(address,bytes32)")
	require.Equal(t, make([]byte, 12), []byte(call.Data[4:16]), "an ABI address is padded on the left")
	return call.To.Hex(), common.BytesToAddress(call.Data[16:36]).Hex(), "0x" + hex.EncodeToString(call.Data[36:68]), block
}

// lower returns s in lower case.
func lower(s string) string { return strings.ToLower(s) }

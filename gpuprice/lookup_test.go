package gpuprice_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// The client's lookup is a reconcile.Lookup.
var _ reconcile.Lookup = (*svm.Lookup)(nil)

// nodeReply is how a lookupNode answers a method instead of the fake node.
type nodeReply int

// The replies of a lookupNode.
const (
	replyForward        nodeReply = iota
	replyDrop                     // the connection fails
	reply500                      // an HTTP 500
	replyGarbage                  // a body that is not JSON
	replyStall                    // no answer until the client gives up
	replyNoStatus                 // every status null: the node lies that it never saw them
	replyOneStatusShort           // one status fewer than asked
	replyStatusNotAList           // "value" is not a list
	replyQuoteSignature           // a JSON-RPC error that quotes the signatures it was given
)

// lookupNode is a transport to the fake node that records each JSON-RPC call and can
// answer a method itself.
type lookupNode struct {
	mu      sync.Mutex
	calls   []rpcRecord
	replies map[string]nodeReply
}

// rpcRecord is one call the lookupNode saw.
type rpcRecord struct {
	Method string
	Params []json.RawMessage
}

// reply makes the node answer method as r says.
func (n *lookupNode) reply(method string, r nodeReply) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.replies == nil {
		n.replies = map[string]nodeReply{}
	}
	n.replies[method] = r
}

// called returns the calls of method, in order.
func (n *lookupNode) called(method string) []rpcRecord {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []rpcRecord
	for _, c := range n.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// RoundTrip records the call and forwards it, or answers as told.
func (n *lookupNode) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	var call struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &call)
	n.mu.Lock()
	n.calls = append(n.calls, rpcRecord{Method: call.Method, Params: call.Params})
	r := n.replies[call.Method]
	n.mu.Unlock()

	answer := func(status int, text string) (*http.Response, error) {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(text)), Request: req}, nil
	}
	var sigs []string
	if len(call.Params) > 0 {
		_ = json.Unmarshal(call.Params[0], &sigs)
	}
	switch r {
	case replyDrop:
		return nil, errDropped
	case reply500:
		return answer(http.StatusInternalServerError, "upstream unavailable")
	case replyGarbage:
		return answer(http.StatusOK, "<html>rate limited</html>")
	case replyStall:
		<-req.Context().Done()
		return nil, req.Context().Err()
	case replyNoStatus:
		values := strings.TrimSuffix(strings.Repeat("null,", len(sigs)), ",")
		return answer(http.StatusOK, `{"jsonrpc":"2.0","id":`+string(call.ID)+`,"result":{"context":{"slot":1},"value":[`+values+`]}}`)
	case replyOneStatusShort:
		values := strings.TrimSuffix(strings.Repeat("null,", len(sigs)-1), ",")
		return answer(http.StatusOK, `{"jsonrpc":"2.0","id":`+string(call.ID)+`,"result":{"context":{"slot":1},"value":[`+values+`]}}`)
	case replyStatusNotAList:
		return answer(http.StatusOK, `{"jsonrpc":"2.0","id":`+string(call.ID)+`,"result":{"context":{"slot":1},"value":"finalized"}}`)
	case replyQuoteSignature:
		return answer(http.StatusOK, `{"jsonrpc":"2.0","id":`+string(call.ID)+`,"error":{"code":-32602,"message":"Invalid param: `+
			strings.Join(sigs, ", ")+` at `+req.URL.String()+`"}}`)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// lookupBudget returns a budget of 10 USDC kept in the store budgettest.EnvStore names,
// deciding on a fake clock that starts at the wall clock's time, which it returns too: the
// clock BuyKey dates its payments on.
func lookupBudget(t *testing.T) (*budget.Budget, *sdktest.Clock) {
	t.Helper()
	clock := sdktest.NewClock(time.Now())
	return budgettest.NewBudget(t, budgettest.Selected(t), usdc.Dollars(10), clock), clock
}

// startNode starts a fake whose clock, returned too, stands at t0 until the test moves it:
// the node produces its blocks on it.
func startNode(t *testing.T, opts ...gpupricetest.Option) (*gpupricetest.Server, *sdktest.Clock) {
	t.Helper()
	clock := sdktest.NewClock(t0)
	return startFake(t, append(opts, gpupricetest.WithClock(clock))...), clock
}

// reconcileOnce runs one reconciliation of b on clock (the one its store decides on) with
// the lookup of c's node.
func reconcileOnce(t *testing.T, b *budget.Budget, clock sdk.Clock, c *gpuprice.Client) *reconcile.Report {
	t.Helper()
	lookup, err := c.PurchaseLookup()
	require.NoError(t, err)
	r, err := reconcile.New(b, reconcile.WithLookup(lookup), reconcile.WithRate(1000), reconcile.WithClock(clock),
		reconcile.WithLookupTimeout(time.Second), reconcile.WithLogger(scan.Logger()))
	require.NoError(t, err)
	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	for _, f := range rep.Failures {
		scan.Record(f)
	}
	return rep
}

// boughtInDoubt buys a key on clock with the sendTransaction of the purchase failing as
// fault says, and returns the signature of the purchase left in doubt.
func boughtInDoubt(t *testing.T, srv *gpupricetest.Server, budget *budget.Budget, clock sdk.Clock, fault *faultyNode) string {
	t.Helper()
	c := newClient(t, srv, gpuprice.WithRPCClient(nodeThrough(srv, fault)), gpuprice.WithClock(clock))
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	require.ErrorIs(t, err, gpuprice.ErrPaymentInDoubt)
	sig := testkit.As[*gpuprice.PaymentError](t, err).Signature.Reveal()
	scan.Add(sig)
	return sig
}

func TestPurchaseLookupCommitsAPurchaseThatLanded(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	budget, clock := lookupBudget(t)
	sig := boughtInDoubt(t, srv, budget, clock, &faultyNode{method: "sendTransaction", forward: true})
	assertBudget(t, budget, 0, 5_000_000)

	node := &lookupNode{}
	rep := reconcileOnce(t, budget, clock, newClient(t, srv, gpuprice.WithRPCClient(nodeThrough(srv, node))))
	require.Len(t, rep.Committed, 1)
	assert.Equal(t, sig, rep.Committed[0].ID)
	assert.Equal(t, reconcile.Settled, rep.Committed[0].Chain)
	assert.Empty(t, rep.Committed[0].Transaction, "a Solana payment's id is its transaction")
	assert.Empty(t, rep.Pending)
	assertBudget(t, budget, 5_000_000, 0)

	// The finalized height first, then the statuses, searching the whole history.
	heights := node.called("getBlockHeight")
	require.Len(t, heights, 1)
	assert.JSONEq(t, `{"commitment":"finalized"}`, string(heights[0].Params[0]))
	statuses := node.called("getSignatureStatuses")
	require.Len(t, statuses, 1)
	require.Len(t, statuses[0].Params, 2)
	assert.JSONEq(t, `["`+sig+`"]`, string(statuses[0].Params[0]))
	assert.JSONEq(t, `{"searchTransactionHistory":true}`, string(statuses[0].Params[1]))
	assert.Equal(t, []string{"getBlockHeight", "getSignatureStatuses"}, []string{node.calls[0].Method, node.calls[1].Method})
}

func TestPurchaseLookupReleasesAPurchaseThatCanNoLongerLand(t *testing.T) {
	t.Parallel()
	srv, chain := startNode(t)
	budget, clock := lookupBudget(t)
	sig := boughtInDoubt(t, srv, budget, clock, &faultyNode{method: "sendTransaction"}) // it never reached the node
	c := newClient(t, srv)
	out := budgettest.Outstanding(t, budget)
	require.Len(t, out, 1)
	expires := out[0].Expires

	// Neither the node's height nor the clock has passed the blockhash's end.
	rep := reconcileOnce(t, budget, clock, c)
	require.Len(t, rep.Pending, 1)
	assert.Equal(t, reconcile.Pending, rep.Pending[0].Chain)
	assert.Equal(t, expires.Add(ledger.ExpiryMargin), rep.Pending[0].Until)

	// The clock has, the node has not: the node's word is needed.
	clock.Advance(time.Hour)
	rep = reconcileOnce(t, budget, clock, c)
	require.Len(t, rep.Pending, 1)
	assert.Equal(t, reconcile.Pending, rep.Pending[0].Chain)
	assertBudget(t, budget, 0, 5_000_000)

	// The node has (151 blocks later), the clock has not: the clock's word is needed.
	clock.Advance(-time.Hour)
	chain.Advance(2 * time.Minute)
	rep = reconcileOnce(t, budget, clock, c)
	require.Len(t, rep.Pending, 1)
	assert.Equal(t, reconcile.NotSettled, rep.Pending[0].Chain)
	assertBudget(t, budget, 0, 5_000_000)

	// Both have.
	clock.Advance(time.Hour)
	rep = reconcileOnce(t, budget, clock, c)
	require.Len(t, rep.Released, 1)
	assert.Equal(t, sig, rep.Released[0].ID)
	assertBudget(t, budget, 0, 0)
}

// failedPurchase sends, without preflight, a purchase its payer cannot cover, which lands
// with an error, and records it in budget in doubt, dated on clock, as BuyKey would have.
func failedPurchase(t *testing.T, srv *gpupricetest.Server, budget *budget.Budget, clock sdk.Clock) string {
	t.Helper()
	payer, key := newPayer(t, srv, usdc.Dollars(1)) // short of the 5 USDC
	node := rpc.New(srv.RPCURL)
	bh, err := node.GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
	require.NoError(t, err)
	p := purchase(srv, payer, nil)
	tx, err := gpuprice.BuildKeyPayment(p, bh.Value.Blockhash)
	require.NoError(t, err)
	sig := tx.Signatures[0].String()
	scan.Add(sig)
	h, err := budget.Reserve(t.Context(), ledger.Reservation{Amount: usdc.Dollars(5), PayTo: srv.Treasury.String(),
		Rail: gpuprice.PaymentRail, Payer: key.PublicKey().String(), Asset: gpuprice.USDCMint.String()})
	require.NoError(t, err)
	require.NoError(t, h.Sign(t.Context(), ledger.Signature{ID: sig, Expires: clock.Now().Add(time.Minute),
		Ref: bh.Value.Blockhash.String() + " " + strconv.FormatUint(bh.Value.LastValidBlockHeight, 10)}))
	_, err = node.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{SkipPreflight: true})
	require.NoError(t, err)
	require.NoError(t, h.InDoubt(t.Context()))
	require.Equal(t, gpupricetest.OutcomeFailed, srv.Transactions()[len(srv.Transactions())-1].Outcome)
	return sig
}

func TestPurchaseLookupReleasesAPurchaseThatFailedOnceItExpires(t *testing.T) {
	t.Parallel()
	srv, chain := startNode(t)
	budget, clock := lookupBudget(t)
	sig := failedPurchase(t, srv, budget, clock)
	c := newClient(t, srv)

	// Its failure is confirmed, not finalized: the release of a failed purchase rests on a
	// finalized read, so the lookup says nothing final yet, even once expired on the clock.
	clock.Advance(time.Hour)
	rep := reconcileOnce(t, budget, clock, c)
	require.Len(t, rep.Pending, 1)
	assert.Equal(t, reconcile.Pending, rep.Pending[0].Chain, "a failure not yet finalized")
	assertBudget(t, budget, 0, 5_000_000)
	clock.Advance(-time.Hour)

	// 32 blocks later the failure is finalized.
	chain.Advance(solanafake.FinalityDepth * solanafake.BlockInterval)
	rep = reconcileOnce(t, budget, clock, c)
	require.Len(t, rep.Pending, 1, "failed, but not yet expired on the clock")
	assert.Equal(t, reconcile.Failed, rep.Pending[0].Chain)
	assertBudget(t, budget, 0, 5_000_000)

	clock.Advance(time.Hour)
	rep = reconcileOnce(t, budget, clock, c)
	require.Len(t, rep.Released, 1)
	assert.Equal(t, sig, rep.Released[0].ID)
	assert.Equal(t, reconcile.Failed, rep.Released[0].Chain)
	assertBudget(t, budget, 0, 0)
}

func TestPurchaseLookupKeepsAPurchaseOnlyProcessed(t *testing.T) {
	t.Parallel()
	srv, chain := startNode(t, gpupricetest.WithConfirmAfter(1_000_000))
	budget, clock := lookupBudget(t)
	sig := boughtInDoubt(t, srv, budget, clock, &faultyNode{method: "sendTransaction", forward: true})
	clock.Advance(time.Hour)
	chain.Advance(2 * time.Minute)

	rep := reconcileOnce(t, budget, clock, newClient(t, srv))
	require.Len(t, rep.Pending, 1)
	assert.Equal(t, sig, rep.Pending[0].ID)
	assert.Equal(t, reconcile.Pending, rep.Pending[0].Chain, "processed, not confirmed: its fork may still be dropped")
	assertBudget(t, budget, 0, 5_000_000)
}

// Whatever a failing node answers, nothing is committed or released, and its errors quote
// neither the signatures nor the node's URL.
func TestPurchaseLookupLeavesEverythingAsItIsOnNodeFailures(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		method string
		reply  nodeReply
	}{
		"the height call fails":                 {"getBlockHeight", replyDrop},
		"the status call fails":                 {"getSignatureStatuses", replyDrop},
		"an HTTP 500":                           {"getSignatureStatuses", reply500},
		"a body that is not JSON":               {"getSignatureStatuses", replyGarbage},
		"a garbled height":                      {"getBlockHeight", replyGarbage},
		"a stalled node":                        {"getSignatureStatuses", replyStall},
		"one status fewer than asked":           {"getSignatureStatuses", replyOneStatusShort},
		"statuses that are not a list":          {"getSignatureStatuses", replyStatusNotAList},
		"an error quoting the signatures":       {"getSignatureStatuses", replyQuoteSignature},
		"a node that says it never saw them":    {"getSignatureStatuses", replyNoStatus},
		"a height error quoting the signatures": {"getBlockHeight", replyQuoteSignature},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startFake(t)
			budget, clock := lookupBudget(t)
			landed := boughtInDoubt(t, srv, budget, clock, &faultyNode{method: "sendTransaction", forward: true})
			failed := failedPurchase(t, srv, budget, clock)
			clock.Advance(time.Hour) // both expired on the clock; the node's height has not passed them
			node := &lookupNode{}
			node.reply(tc.method, tc.reply)

			rep := reconcileOnce(t, budget, clock, newClient(t, srv, gpuprice.WithRPCClient(nodeThrough(srv, node))))
			assert.Empty(t, rep.Committed)
			assert.Empty(t, rep.Released)
			require.Len(t, rep.Pending, 2)
			assertBudget(t, budget, 0, 10_000_000)
			if tc.reply == replyNoStatus {
				assert.NoError(t, rep.Err(), "a lie is not an error, but it releases nothing before the blockhash's end")
				return
			}
			require.Len(t, rep.Failures, 1)
			text := rep.Err().Error()
			for _, secret := range []string{landed, failed, srv.RPCURL} {
				assert.NotContains(t, text, secret)
				assert.NotContains(t, sprintf("%#v", rep.Failures[0].Err), secret)
			}
			if tc.reply == replyStall {
				assert.ErrorIs(t, rep.Err(), context.DeadlineExceeded)
			}
		})
	}
}

func TestPurchaseLookupAsksForAtMost256SignaturesACall(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	node := &lookupNode{}
	solanaNode, err := svm.NewNode(nodeThrough(srv, node))
	require.NoError(t, err)
	lookup, err := svm.NewLookup(solanaNode)
	require.NoError(t, err)
	height, err := rpc.New(srv.RPCURL).GetBlockHeight(t.Context(), rpc.CommitmentFinalized)
	require.NoError(t, err)
	expiredRef := solana.Hash{1}.String() + " " + strconv.FormatUint(height-1, 10)
	validRef := solana.Hash{1}.String() + " " + strconv.FormatUint(height, 10)

	var payments []ledger.Outstanding
	add := func(id, ref string) {
		payments = append(payments, ledger.Outstanding{Rail: gpuprice.PaymentRail, Signature: ledger.Signature{ID: id, Ref: ref}})
	}
	for range 299 {
		add(solana.SignatureFromBytes(randomBytes(t, 64)).String(), expiredRef)
	}
	add(solana.SignatureFromBytes(randomBytes(t, 64)).String(), validRef) // its blockhash still valid
	add(solana.SignatureFromBytes(randomBytes(t, 64)).String(), "")       // no Ref recorded
	add("not a signature", expiredRef)

	got, err := lookup.Lookup(t.Context(), payments)
	require.NoError(t, err)
	require.Len(t, got, len(payments))
	for i, res := range got[:299] {
		assert.Equal(t, payments[i].ID, res.ID)
		assert.Equal(t, reconcile.NotSettled, res.State, "payment %d: never seen, its blockhash past", i)
		assert.NoError(t, res.Err)
	}
	assert.Equal(t, reconcile.Pending, got[299].State, "its blockhash may still land it")
	assert.NoError(t, got[299].Err)
	assert.ErrorContains(t, got[300].Err, "records no last valid block height")
	assert.ErrorContains(t, got[301].Err, "is not a Solana signature")

	var sizes []int
	for _, c := range node.called("getSignatureStatuses") {
		var sigs []string
		require.NoError(t, json.Unmarshal(c.Params[0], &sigs))
		sizes = append(sizes, len(sigs))
	}
	assert.Equal(t, []int{256, 45}, sizes)
	assert.Len(t, node.called("getBlockHeight"), 1)

	assert.True(t, lookup.Handles(gpuprice.PaymentRail))
	assert.False(t, lookup.Handles("x402 "+evm.NetworkBase))
}

func TestPurchaseLookupNeedsANode(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL))
	require.NoError(t, err)
	_, err = c.PurchaseLookup()
	var ve *sdk.ValidationError
	assert.ErrorAs(t, err, &ve)
	_, err = svm.NewNode(nil)
	assert.ErrorAs(t, err, &ve)
	_, err = svm.NewLookup(nil)
	assert.ErrorAs(t, err, &ve)
}

// PurchaseLookup takes svm.NewLookup's options: further nodes (another endpoint each), which
// leave nothing that one node alone is trusted with, and x402 networks.
func TestPurchaseLookupTakesTheLookupsOptions(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	lookup, err := c.PurchaseLookup()
	require.NoError(t, err)
	assert.Len(t, lookup.Caveats(), 1, "one node")

	other, err := svm.NewNode(rpc.New(srv.RPCURL))
	require.NoError(t, err)
	lookup, err = c.PurchaseLookup(svm.WithNodes(other), svm.ForNetworks(svm.NetworkMainnet))
	require.NoError(t, err)
	assert.Nil(t, lookup.Caveats())
	assert.True(t, lookup.Handles(gpuprice.PaymentRail))
	assert.True(t, lookup.Handles("x402 "+svm.NetworkMainnet))

	var ve *sdk.ValidationError
	_, err = c.PurchaseLookup(svm.ForNetworks(evm.NetworkBase))
	assert.ErrorAs(t, err, &ve)
	same, err := svm.DialNode(srv.RPCURL)
	require.NoError(t, err)
	_, err = c.PurchaseLookup(svm.WithNodes(same))
	assert.ErrorAs(t, err, &ve, "the client's own node, given again")
}

// randomBytes returns n random bytes.
func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return b
}

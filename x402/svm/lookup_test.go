package svm_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/internal/stalltest"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/svm"
)

// newLookup returns the lookup of mainnet x402 payments and purchases on node and more.
func newLookup(t *testing.T, node *svm.Node, more ...*svm.Node) *svm.Lookup {
	t.Helper()
	opts := []svm.LookupOption{svm.ForNetworks(svm.NetworkMainnet)}
	if len(more) > 0 {
		opts = append(opts, svm.WithNodes(more...))
	}
	l, err := svm.NewLookup(node, opts...)
	require.NoError(t, err)
	return l
}

// look looks payments up with l, requiring the call to succeed, and checks that no error
// quotes a payment's signature.
func look(t *testing.T, l *svm.Lookup, payments ...ledger.Outstanding) []reconcile.Result {
	t.Helper()
	results, err := l.Lookup(t.Context(), payments)
	require.NoError(t, err)
	require.Len(t, results, len(payments))
	for i, r := range results {
		assert.Equal(t, payments[i].ID, r.ID)
		assertQuotesNone(t, r.Err, payments)
	}
	return results
}

// assertQuotesNone checks that err's text quotes no payment's signature.
func assertQuotesNone(t *testing.T, err error, payments []ledger.Outstanding) {
	t.Helper()
	if err == nil {
		return
	}
	for _, p := range payments {
		assert.NotContains(t, err.Error(), p.ID)
		assert.NotContains(t, fmt.Sprintf("%#v", err), p.ID)
	}
}

// states returns the states of results.
func states(results []reconcile.Result) []reconcile.ChainState {
	out := make([]reconcile.ChainState, len(results))
	for i, r := range results {
		out[i] = r.State
	}
	return out
}

// params decodes the configuration object of a call (its last parameter).
func params(t *testing.T, c rpcCall) map[string]any {
	t.Helper()
	var cfg map[string]any
	require.NoError(t, json.Unmarshal(c.Params[len(c.Params)-1], &cfg), "%s: %s", c.Method, c.Params)
	return cfg
}

// An honest node: what landed is committed at once, with the transaction that settled it
// (an x402 payment's is the facilitator's, not the payer's signature); a purchase that
// failed on chain counts as failed only once its failure is finalized; what never landed is
// released only once the finalized height is past the last height at which it could land.
func TestLookupCommitsWhatLandedAndReleasesWhatCanNoLongerLand(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	node, _ := chain.node(t)
	l := newLookup(t, node)
	payments := []ledger.Outstanding{
		chain.x402Payment(t, nil, 10_000, lands),
		chain.x402Payment(t, nil, 10_000, neverSent),
		chain.purchase(t, lands),
		chain.purchase(t, neverSent),
		chain.purchase(t, failsOnChain),
	}

	res := look(t, l, payments...)
	assert.Equal(t, []reconcile.ChainState{reconcile.Settled, reconcile.Pending, reconcile.Settled, reconcile.Pending,
		reconcile.Pending}, states(res))
	landed := chain.cluster.Transfers()
	require.Len(t, landed, 2)
	assert.Equal(t, landed[0].Signature.String(), res[0].Transaction, "the facilitator's transaction")
	assert.NotEqual(t, payments[0].ID, res[0].Transaction)
	assert.Empty(t, res[2].Transaction, "a purchase's id is its transaction")
	for _, r := range res {
		assert.NoError(t, r.Err)
	}

	chain.advance(finalizeAll)
	res = look(t, l, payments...)
	assert.Equal(t, []reconcile.ChainState{reconcile.Settled, reconcile.Pending, reconcile.Settled, reconcile.Pending,
		reconcile.Failed}, states(res), "the failure is finalized")

	chain.advance(pastEveryBlockhash)
	res = look(t, l, payments...)
	assert.Equal(t, []reconcile.ChainState{reconcile.Settled, reconcile.NotSettled, reconcile.Settled, reconcile.NotSettled,
		reconcile.Failed}, states(res))
	for _, r := range res {
		assert.NoError(t, r.Err)
	}
}

// A payment whose Ref records no token account (a hold of an earlier release: its
// blockhash and last valid height only) cannot be searched in a history: a purchase, whose
// id is its transaction's, is released on its statuses; an x402 payment, whose id is not, is
// never released, and says why.
func TestLookupOfPaymentsThatRecordNoTokenAccount(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	node, tp := chain.node(t)
	legacy := func(p ledger.Outstanding) ledger.Outstanding {
		ref, ok := svm.ParseRef(p.Ref)
		require.True(t, ok)
		p.Ref = svm.Ref{Blockhash: ref.Blockhash, LastValid: ref.LastValid}.String()
		return p
	}
	purchase := legacy(chain.purchase(t, neverSent))
	payment := legacy(chain.x402Payment(t, nil, 10_000, neverSent))
	chain.advance(pastEveryBlockhash)

	res := look(t, newLookup(t, node), purchase, payment)
	assert.Equal(t, reconcile.NotSettled, res[0].State)
	assert.NoError(t, res[0].Err)
	assert.ErrorContains(t, res[1].Err, "records no token account")
	assert.Empty(t, tp.called("getSignaturesForAddress"))
}

// Once a payment could no longer land, every read its release rests on is at "finalized":
// the block height, the history (with minContextSlot at that height) and the transactions;
// the statuses search the whole history. While it could still land, the history is read at
// "confirmed", to commit what landed at once.
func TestLookupReadsWhatAReleaseRestsOnAtFinalized(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	node, tp := chain.node(t)
	l := newLookup(t, node)
	payer := newWallet(t)
	chain.cluster.FundToken(usdc, payer.PublicKey(), 1_000_000)
	settled := chain.x402Payment(t, payer, 10_000, lands)
	lost := chain.x402Payment(t, payer, 10_000, neverSent)
	failed := chain.purchase(t, failsOnChain)

	look(t, l, settled, lost, failed)
	for _, c := range tp.called("getSignaturesForAddress") {
		assert.Equal(t, "confirmed", params(t, c)["commitment"], "nothing could be released yet")
	}

	chain.advance(pastEveryBlockhash)
	height := float64(chain.cluster.BlockHeight() - solanafake.FinalityDepth)
	before := len(tp.all())
	res := look(t, l, settled, lost, failed)
	assert.Equal(t, []reconcile.ChainState{reconcile.Settled, reconcile.NotSettled, reconcile.Failed}, states(res))
	calls := tp.all()[before:]
	methods := map[string]int{}
	for _, c := range calls {
		methods[c.Method]++
		cfg := params(t, c)
		switch c.Method {
		case "getBlockHeight":
			assert.Equal(t, "finalized", cfg["commitment"])
		case "getSignatureStatuses":
			assert.Equal(t, true, cfg["searchTransactionHistory"])
		case "getSignaturesForAddress":
			assert.Equal(t, "finalized", cfg["commitment"])
			assert.Equal(t, height, cfg["minContextSlot"], "the history may not lag the finalized height")
		case "getTransaction":
			assert.Equal(t, "finalized", cfg["commitment"])
		default:
			t.Errorf("unexpected call %s", c.Method)
		}
	}
	assert.Equal(t, 1, methods["getBlockHeight"])
	assert.Equal(t, 1, methods["getSignatureStatuses"])
	assert.Equal(t, 2, methods["getSignaturesForAddress"], "the payer's account, read once for both payments, then its end")
	assert.Equal(t, 2, methods["getTransaction"], "the failed purchase, found by its status; the settled payment, matched by its memo")
}

// A statuses answer with an entry missing, one too many, or its entries in another order
// resolves nothing: a status in another place would describe another payment's
// transaction, and a null one in its place would hide a payment that landed.
func TestLookupNeedsOneStatusPerSignatureInOrder(t *testing.T) {
	t.Parallel()
	for name, change := range map[string]func([]any) []any{
		"an entry missing": func(v []any) []any { return v[:len(v)-1] },
		"an entry extra":   func(v []any) []any { return append(v, nil) },
		"rotated":          func(v []any) []any { return append(v[1:], v[0]) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			chain := newTestChain(t)
			node, tp := chain.node(t)
			tp.tell("getSignatureStatuses", func(_ rpcCall, a *rpcAnswer) { rewriteStatuses(a, change) })
			l := newLookup(t, node)
			payments := []ledger.Outstanding{chain.purchase(t, lands), chain.purchase(t, neverSent)}
			chain.advance(pastEveryBlockhash)

			res, err := l.Lookup(t.Context(), payments)
			require.Error(t, err, "nothing is resolved")
			assert.Nil(t, res)
			assert.ErrorContains(t, err, "getSignatureStatuses")
			assertQuotesNone(t, err, payments)
			var rerr *svm.RPCError
			assert.ErrorAs(t, err, &rerr)
		})
	}
}

// A history whose pages are short is followed with "before" back to before the payment's
// reservation, or to its end: a payment three pages down is found, and one that never
// landed is released only once the history was read to its end.
func TestLookupFollowsTheHistoryPageByPage(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	node, tp := chain.node(t)
	tp.tell("getSignaturesForAddress", func(_ rpcCall, a *rpcAnswer) {
		var entries []json.RawMessage
		if json.Unmarshal(a.Result, &entries) == nil && len(entries) > 1 {
			a.Result, _ = json.Marshal(entries[:1])
		}
	})
	l := newLookup(t, node)
	payer := newWallet(t)
	chain.cluster.FundToken(usdc, payer.PublicKey(), 1_000_000)
	first := chain.x402Payment(t, payer, 10_000, lands)
	chain.x402Payment(t, payer, 10_000, lands)
	chain.x402Payment(t, payer, 10_000, lands)
	lost := chain.x402Payment(t, payer, 10_000, neverSent)

	res := look(t, l, first)
	assert.Equal(t, reconcile.Settled, res[0].State)
	pages := tp.called("getSignaturesForAddress")
	require.Len(t, pages, 4, "a page for each payment, newest first, then the empty end")
	assert.NotContains(t, params(t, pages[0]), "before")
	for _, p := range pages[1:] {
		assert.Contains(t, params(t, p), "before")
	}

	chain.advance(pastEveryBlockhash)
	res = look(t, l, lost)
	assert.Equal(t, reconcile.NotSettled, res[0].State)
	assert.Len(t, tp.called("getSignaturesForAddress"), 4+4, "three pages of one, then the empty end")
}

// A history longer than the lookup reads is never taken for one without the payment: the
// payment stays as it is, with an error saying so.
func TestLookupReleasesNothingOnATruncatedHistory(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	node, tp := chain.node(t)
	lost := chain.x402Payment(t, nil, 10_000, neverSent)
	chain.advance(pastEveryBlockhash)
	tp.tell("getSignaturesForAddress", func(_ rpcCall, a *rpcAnswer) {
		// Always one more transaction of the account, newer than the reservation.
		entry := map[string]any{"signature": solana.SignatureFromBytes(randomBytes(t, 64)).String(), "slot": 1,
			"err": nil, "memo": "[4] else", "blockTime": chain.now().Unix(), "confirmationStatus": "finalized"}
		a.Result, _ = json.Marshal([]any{entry})
	})

	res := look(t, newLookup(t, node), lost)
	assert.ErrorIs(t, res[0].Err, svm.ErrHistoryTooLong)
	assert.Len(t, tp.called("getSignaturesForAddress"), 10)
	assert.Empty(t, tp.called("getTransaction"), "no entry carries the payment's memo")
}

// A transaction is the payment's only when it carries the payer's signature, verified over
// its message, and moves what the payment records with its memo: anything else commits
// nothing and says what differs.
func TestLookupCommitsOnlyTheTransactionThePaymentRecords(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		purchase bool // a purchase, found by its status; else an x402 payment, found in the history
		change   func(p *ledger.Outstanding)
		forge    bool
		want     string
	}{
		"another amount": {change: func(p *ledger.Outstanding) { p.Amount = big.NewInt(10_001) }, want: "amount"},
		"another payee": {change: func(p *ledger.Outstanding) { p.PayTo = solana.NewWallet().PublicKey().String() },
			want: "payee's token account"},
		"another payer": {change: func(p *ledger.Outstanding) { p.Payer = solana.NewWallet().PublicKey().String() },
			want: "another wallet"},
		"another asset": {change: func(p *ledger.Outstanding) { p.Asset = solana.NewWallet().PublicKey().String() },
			want: "asset"},
		"another memo": {purchase: true, change: func(p *ledger.Outstanding) {
			ref, _ := svm.ParseRef(p.Ref)
			ref.Memo = []byte("API-ULTRA")
			p.Ref = ref.String()
		}, want: "memo"},
		"another source": {purchase: true, change: func(p *ledger.Outstanding) {
			ref, _ := svm.ParseRef(p.Ref)
			ref.Source = solana.NewWallet().PublicKey()
			p.Ref = ref.String()
		}, want: "token account the payment records"},
		"a message changed under its signatures":            {forge: true, want: "does not verify"},
		"a purchase's message changed under its signatures": {purchase: true, forge: true, want: "does not verify"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			chain := newTestChain(t)
			node, tp := chain.node(t)
			var p ledger.Outstanding
			if tc.purchase {
				p = chain.purchase(t, lands)
			} else {
				p = chain.x402Payment(t, nil, 10_000, lands)
			}
			if tc.change != nil {
				tc.change(&p)
			}
			if tc.forge {
				tp.tell("getTransaction", forgeAmount)
			}
			res := look(t, newLookup(t, node), p)
			assert.Equal(t, reconcile.Pending, res[0].State)
			assert.ErrorContains(t, res[0].Err, tc.want)
			var rerr *svm.RPCError
			assert.ErrorAs(t, res[0].Err, &rerr)
		})
	}
}

// A transaction the node returns unreadable, or another than the one asked for, tells
// nothing: the payment it may be stays as it is, never taken for one not found.
func TestLookupReleasesNothingOnATransactionItCannotRead(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	node, tp := chain.node(t)
	payments := []ledger.Outstanding{chain.x402Payment(t, nil, 10_000, lands), chain.purchase(t, lands)}
	chain.advance(pastEveryBlockhash)
	tp.tell("getTransaction", func(_ rpcCall, a *rpcAnswer) {
		var res map[string]json.RawMessage
		if json.Unmarshal(a.Result, &res) == nil && res != nil {
			res["transaction"] = json.RawMessage(`["AAAA","base64"]`)
			a.Result, _ = json.Marshal(res)
		}
	})

	res := look(t, newLookup(t, node), payments...)
	for _, r := range res {
		assert.Equal(t, reconcile.Pending, r.State)
		assert.ErrorContains(t, r.Err, "cannot be read")
	}

	// Another transaction than the one asked for, whatever is asked.
	other := chain.purchase(t, lands)
	chain.advance(finalizeAll)
	tp.tell("getTransaction", func(c rpcCall, a *rpcAnswer) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "getTransaction",
			"params": []any{other.ID, json.RawMessage(c.Params[1])}})
		*a = tp.forward(body)
	})
	res = look(t, newLookup(t, node), payments[0])
	assert.Equal(t, reconcile.Pending, res[0].State)
	assert.ErrorContains(t, res[0].Err, "another transaction than the one asked for")
	_, err := newLookup(t, node).Lookup(t.Context(), payments[1:])
	assert.ErrorContains(t, err, "statuses contradict its transactions", "the purchase's status is of another slot")
}

// forgeAmount changes the amount of the TransferChecked of a transaction a node returns,
// keeping its signatures.
func forgeAmount(_ rpcCall, a *rpcAnswer) {
	var res map[string]json.RawMessage
	if json.Unmarshal(a.Result, &res) != nil || res == nil {
		return
	}
	var enc []string
	if json.Unmarshal(res["transaction"], &enc) != nil || len(enc) != 2 {
		return
	}
	raw, err := base64.StdEncoding.DecodeString(enc[0])
	if err != nil {
		return
	}
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		return
	}
	for i, ix := range tx.Message.Instructions {
		if len(ix.Data) == 10 && ix.Data[0] == 12 {
			tx.Message.Instructions[i].Data[1]++
		}
	}
	out, err := tx.MarshalBinary()
	if err != nil {
		return
	}
	res["transaction"], _ = json.Marshal([]string{base64.StdEncoding.EncodeToString(out), "base64"})
	a.Result, _ = json.Marshal(res)
}

// One node that lies, where its lie contradicts its other answers: nothing that settled is
// released. A height far beyond the chain's is caught by the history's minContextSlot; null
// statuses are caught by the history, which finds the purchase.
func TestLookupOfOneNodeReleasesNothingOnALieItContradicts(t *testing.T) {
	t.Parallel()
	t.Run("a height far beyond the chain's", func(t *testing.T) {
		t.Parallel()
		chain := newTestChain(t)
		node, tp := chain.node(t)
		tp.tell("getBlockHeight", farHeight)
		payments := []ledger.Outstanding{chain.x402Payment(t, nil, 10_000, lands), chain.x402Payment(t, nil, 10_000, neverSent)}
		_, err := newLookup(t, node).Lookup(t.Context(), payments)
		require.Error(t, err)
		assert.ErrorContains(t, err, "contradict")
		assertQuotesNone(t, err, payments)
	})
	t.Run("null statuses", func(t *testing.T) {
		t.Parallel()
		chain := newTestChain(t)
		node, tp := chain.node(t)
		tp.tell("getSignatureStatuses", hideStatuses)
		landed, lost := chain.purchase(t, lands), chain.purchase(t, neverSent)
		chain.advance(pastEveryBlockhash)
		res := look(t, newLookup(t, node), landed, lost)
		assert.Equal(t, []reconcile.ChainState{reconcile.Settled, reconcile.NotSettled}, states(res))
	})
}

// Several nodes: a release needs all of them. One that lies consistently (null statuses,
// no history, a height far beyond the chain's) cannot have what settled released: the
// honest node's transaction contradicts it, and the payment is reported, neither committed
// nor released. What never landed is released once the honest node's own finalized height
// is past it too; one that only hides commits nothing away: the honest node's transaction
// commits.
func TestLookupOfSeveralNodesNeedsThemAllToRelease(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	honest, _ := chain.node(t)
	liar, tp := chain.node(t)
	tp.tell("getSignatureStatuses", hideStatuses)
	tp.tell("getSignaturesForAddress", hideHistory)
	tp.tell("getBlockHeight", farHeight)
	hiding, hp := chain.node(t)
	hp.tell("getSignatureStatuses", hideStatuses)
	hp.tell("getSignaturesForAddress", hideHistory)
	payments := []ledger.Outstanding{
		chain.x402Payment(t, nil, 10_000, lands),
		chain.purchase(t, lands),
		chain.x402Payment(t, nil, 10_000, neverSent),
	}

	// A node that hides what landed, while its height is not past it: the honest node's
	// transactions commit.
	res := look(t, newLookup(t, hiding, honest), payments...)
	assert.Equal(t, []reconcile.ChainState{reconcile.Settled, reconcile.Settled, reconcile.Pending}, states(res))
	assert.NotEmpty(t, res[0].Transaction)

	l := newLookup(t, honest, liar)
	assert.Nil(t, l.Caveats(), "several nodes")
	res = look(t, l, payments...)
	assert.Equal(t, []reconcile.ChainState{reconcile.Pending, reconcile.Pending, reconcile.Pending}, states(res))
	for _, r := range res[:2] {
		var conflict *svm.ConflictError
		require.ErrorAs(t, r.Err, &conflict)
		assert.Equal(t, []int{0}, conflict.Landed)
		assert.Equal(t, []int{1}, conflict.Unseen)
		assert.Contains(t, r.Err.Error(), "node 0 found its transaction landed, node 1 found no trace")
	}
	assert.NoError(t, res[2].Err, "the honest node's height is not past it: pending, nothing to report")

	chain.advance(pastEveryBlockhash)
	res = look(t, l, payments...)
	assert.Equal(t, []reconcile.ChainState{reconcile.Pending, reconcile.Pending, reconcile.NotSettled}, states(res),
		"what landed stays contradicted; what never landed is released")
	res = look(t, newLookup(t, hiding, honest), payments...)
	assert.Equal(t, []reconcile.ChainState{reconcile.Pending, reconcile.Pending, reconcile.NotSettled}, states(res),
		"past its height, a node that hides what landed contradicts the honest one")
}

// A node that never answers costs one call's bound, and so do several nodes asked at once;
// a context that ends stops the lookup at once. With a dead node among several, what
// another proves landed is committed and nothing is released.
func TestLookupOfADeadNodeCostsOneBoundedWait(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	honest, _ := chain.node(t)
	deadAddr := stalltest.DeadAddress(t)
	const bound = 200 * time.Millisecond
	dead, err := svm.DialNode("http://"+deadAddr, svm.WithCallTimeout(bound))
	require.NoError(t, err)
	payments := []ledger.Outstanding{chain.purchase(t, lands), chain.purchase(t, neverSent)}
	chain.advance(pastEveryBlockhash)

	start := time.Now()
	_, err = newLookup(t, dead).Lookup(t.Context(), payments)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 4*bound)

	slow, err := svm.DialNode("http://" + deadAddr)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), bound)
	defer cancel()
	start = time.Now()
	_, err = newLookup(t, slow).Lookup(ctx, payments)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 4*bound, "the context's end, not the node's minute")

	start = time.Now()
	res := look(t, newLookup(t, honest, dead), payments...)
	assert.Less(t, time.Since(start), 4*bound)
	assert.Equal(t, reconcile.Settled, res[0].State)
	assert.Equal(t, reconcile.Pending, res[1].State, "the dead node cannot agree")
	var ne *svm.NodeError
	require.ErrorAs(t, res[1].Err, &ne)
	assert.Equal(t, 1, ne.Node)
	assert.ErrorIs(t, res[1].Err, context.DeadlineExceeded)
}

// A node of another cluster resolves no x402 payment: every one would read as never landed.
func TestLookupChecksTheClusterOfEveryNode(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	honest, _ := chain.node(t)
	devnet, tp := chain.node(t)
	tp.tell("getGenesisHash", func(_ rpcCall, a *rpcAnswer) {
		a.Result = json.RawMessage(`"EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG"`)
	})
	lost := chain.x402Payment(t, nil, 10_000, neverSent)
	chain.advance(pastEveryBlockhash)

	_, err := newLookup(t, devnet).Lookup(t.Context(), []ledger.Outstanding{lost})
	assert.ErrorContains(t, err, "another cluster")
	l := newLookup(t, honest, devnet)
	for range 2 {
		res := look(t, l, lost)
		assert.Equal(t, reconcile.Pending, res[0].State)
		assert.ErrorContains(t, res[0].Err, "Solana node 1: x402: Solana RPC getGenesisHash: the node serves another cluster")
	}
	assert.Len(t, tp.called("getGenesisHash"), 2, "once by each lookup: its answer is remembered")
}

func TestLookupOptionsAndCaveats(t *testing.T) {
	t.Parallel()
	chain := newTestChain(t)
	node, _ := chain.node(t)
	other, _ := chain.node(t)
	var ve *sdk.ValidationError
	for name, opts := range map[string][]svm.LookupOption{
		"an EVM network":     {svm.ForNetworks("eip155:8453")},
		"a nil node":         {svm.WithNodes(nil)},
		"the same node":      {svm.WithNodes(node)},
		"another node twice": {svm.WithNodes(other, other)},
	} {
		_, err := svm.NewLookup(node, opts...)
		assert.ErrorAs(t, err, &ve, name)
	}
	_, err := svm.NewLookup(nil)
	assert.ErrorAs(t, err, &ve)

	l, err := svm.NewLookup(node)
	require.NoError(t, err)
	assert.True(t, l.Handles(svm.PurchaseRail))
	assert.False(t, l.Handles("x402 "+svm.NetworkMainnet), "no network given")
	require.Len(t, l.Caveats(), 1)
	assert.Contains(t, l.Caveats()[0], "one Solana node")

	l, err = svm.NewLookup(node, svm.ForNetworks(svm.NetworkMainnet, "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"), svm.WithNodes(other))
	require.NoError(t, err)
	assert.True(t, l.Handles("x402 "+svm.NetworkMainnet))
	assert.True(t, l.Handles("x402 "+svm.NetworkDevnet))
	assert.Nil(t, l.Caveats())
}

// A remote node is reached over https only, unless the caller says otherwise; loopback may
// be plain http. The refusal never quotes the URL, which may carry a key.
func TestDialNodeNeedsHTTPSForARemoteNode(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"https://rpc.example.com/?api-key=k3y", "http://127.0.0.1:8899", "http://127.1.2.3:8899",
		"http://[::1]:8899", "http://localhost:8899", "http://LOCALHOST"} {
		_, err := svm.DialNode(url)
		assert.NoError(t, err, url)
	}
	for _, url := range []string{"http://rpc.example.com/?api-key=k3y", "http://10.0.0.1:8899", "http://[::2]:8899",
		"http://localhost.example.com", "ws://127.0.0.1:8900", "rpc.example.com"} {
		_, err := svm.DialNode(url)
		var ve *sdk.ValidationError
		require.ErrorAs(t, err, &ve, url)
		assert.NotContains(t, err.Error(), "k3y")
		assert.NotContains(t, err.Error(), "example")
	}
	_, err := svm.DialNode("http://rpc.example.com/?api-key=k3y", svm.WithErrorPrefix("gpuprice"))
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "gpuprice", ve.Service, "refused under the name of the client that dials")
	_, err = svm.DialNode("http://rpc.example.com/?api-key=k3y", svm.WithInsecureHTTP())
	assert.NoError(t, err)
}

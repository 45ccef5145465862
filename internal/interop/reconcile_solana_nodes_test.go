package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/internal/stalltest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/svm"
)

// The Solana lookup against nodes that lie, fail or never answer, in front of the litesvm
// runtime: whatever they say, nothing that settled is given back.

// solanaDoubts is a litesvm runtime with payments a budget holds in doubt: x402 payments to
// the reference server whose answers were lost after they settled and one lost before it
// reached the server (when the test asks for x402 payments), a key purchase that landed
// though its answer was lost, and one that never reached the node.
type solanaDoubts struct {
	rail   *solanaRail
	budget *budget.Budget
	clock  *shiftedClock
	// landed and lost are the ids of the payments that landed and of those that never did.
	landed, lost map[string]bool
	// spent is what left the payers' accounts.
	spent uint64
}

// startSolanaDoubts pays on a new runtime and loses the answers, with x402 payments or
// without. The budget's clock is then moved past every payment's expiry: only the chain's
// word keeps a payment counted.
func startSolanaDoubts(t *testing.T, withX402 bool) *solanaDoubts {
	t.Helper()
	rail := startSolanaRail(t)
	d := &solanaDoubts{rail: rail, clock: &shiftedClock{}, landed: map[string]bool{}, lost: map[string]bool{}}
	d.budget = budgettest.NewBudget(t, budgettest.Selected(t), big.NewInt(budgetLimit), d.clock)
	if withX402 {
		js := requireNode(t)
		ctx := testContext(t)
		srv := startJSServer(ctx, t, js, jsServerConfig{SVM: rail.svmConfig()})
		signer, wallet := solanaPayer(t, rail.node, startFunds, 0)
		payer, err := x402.NewPayer(x402.Policy{
			MaxPerPayment: big.NewInt(price),
			PayTo:         []string{rail.treasury.String()},
			Networks:      []string{svm.NetworkMainnet},
		}, []x402.Scheme{rail.exactSolana(t, signer)}, x402.WithBudget(d.budget), x402.WithClock(d.clock))
		require.NoError(t, err)
		client := &http.Client{Transport: payer.RoundTripper(newTransport(t))}
		for _, e := range fetchInDoubt(ctx, t, client, startSettleDroppingProxy(t, srv.URL).URL+"/paid", 2) {
			scan.Add(e.ID)
			d.landed[e.ID] = true
		}
		for _, e := range fetchInDoubt(ctx, t, client, startLosingProxy(t, srv.URL)+"/paid", 1) {
			scan.Add(e.ID)
			d.lost[e.ID] = true
		}
		d.spent += startFunds - rail.node.usdc(t, wallet)
		require.Equal(t, uint64(2*price), d.spent, "the runtime settled the payments whose answers were lost")
	}
	d.landed[buyInDoubt(t, rail.node, rail.treasury, d.budget, lostSend{delivered: true}).String()] = true
	d.lost[buyInDoubt(t, rail.node, rail.treasury, d.budget, lostSend{}).String()] = true
	d.spent += 5_000_000
	require.Len(t, budgettest.Outstanding(t, d.budget), len(d.landed)+len(d.lost))
	d.clock.add(time.Hour)
	return d
}

// finalize moves the runtime past every height at which a payment could land, finalized.
func (d *solanaDoubts) finalize(t *testing.T) { d.rail.node.call(t, "test_advanceSlots", 250) }

// reconciler returns a reconciler of the budget whose Solana lookup asks nodes.
func (d *solanaDoubts) reconciler(t *testing.T, nodes ...*svm.Node) *reconcile.Reconciler {
	t.Helper()
	lookup, err := svm.NewLookup(nodes[0], svm.ForNetworks(svm.NetworkMainnet), svm.WithNodes(nodes[1:]...))
	require.NoError(t, err)
	r, err := reconcile.New(d.budget, reconcile.WithLookup(lookup), reconcile.WithClock(d.clock), reconcile.WithRate(1000),
		reconcile.WithLogger(scan.Logger()))
	require.NoError(t, err)
	return r
}

// reconcile runs one reconciliation with the nodes, and checks that it released only
// payments that never landed.
func (d *solanaDoubts) reconcile(t *testing.T, nodes ...*svm.Node) *reconcile.Report {
	t.Helper()
	rep, err := d.reconciler(t, nodes...).Reconcile(t.Context())
	require.NoError(t, err)
	scan.Record(rep.Err())
	for _, r := range rep.Released {
		assert.True(t, d.lost[r.ID], "a payment that landed was released")
	}
	for _, c := range rep.Committed {
		assert.True(t, d.landed[c.ID], "a payment that never landed was committed")
	}
	return rep
}

// node returns a node reaching the runtime through a proxy that tells lies, with opts.
func (d *solanaDoubts) node(t *testing.T, lies map[string]solanaLie, opts ...svm.NodeOption) *svm.Node {
	t.Helper()
	p := &lyingSolanaNode{upstream: d.rail.node.URL, lies: lies}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	n, err := svm.DialNode(srv.URL, opts...)
	require.NoError(t, err)
	return n
}

// resolvedIDs returns the ids of resolutions.
func resolvedIDs(rs []reconcile.Resolution) map[string]bool {
	out := map[string]bool{}
	for _, r := range rs {
		out[r.ID] = true
	}
	return out
}

// solanaReply is a JSON-RPC answer as the lying proxy reads and writes it.
type solanaReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// solanaLie rewrites the runtime's answer to a call.
type solanaLie func(reply *solanaReply)

// lyingSolanaNode is a JSON-RPC proxy in front of node.mjs whose answers to some methods are
// what its lies make of the node's.
type lyingSolanaNode struct {
	upstream string
	lies     map[string]solanaLie
}

// ServeHTTP forwards one call and rewrites its answer.
func (p *lyingSolanaNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var call struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &call)
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, p.upstream, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	var reply solanaReply
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if lie := p.lies[call.Method]; lie != nil {
		lie(&reply)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

// The lies.
var (
	// nullStatuses: every signature asked is unknown.
	nullStatuses = changeStatuses(func(v []any) []any { return make([]any, len(v)) })
	// emptyHistory: no account has any transaction.
	emptyHistory solanaLie = func(r *solanaReply) { r.Result, r.Error = json.RawMessage(`[]`), nil }
	// farBlockHeight: the block height is far beyond the runtime's.
	farBlockHeight solanaLie = func(r *solanaReply) { r.Result, r.Error = json.RawMessage(`999999999999`), nil }
)

// changeStatuses is the lie that replaces the statuses of a getSignatureStatuses answer by
// what change makes of them.
func changeStatuses(change func([]any) []any) solanaLie {
	return func(r *solanaReply) { r.Result = solanafake.RewriteStatuses(r.Result, change) }
}

// One node whose lie contradicts its own other answers releases nothing that landed: a
// height far beyond the runtime's (before the payments are finalized, when a finalized
// history would not show them) fails on the history's minContextSlot; statuses with one
// missing, one extra or in another order fail as answers that do not match the signatures
// asked; null statuses are caught by the payers' histories. The honest answers that remain
// commit what landed and release what never did.
func TestSolanaLookupOfOneNodeReleasesNothingOnALieItContradicts(t *testing.T) {
	t.Parallel()
	d := startSolanaDoubts(t, true)

	rep := d.reconcile(t, d.node(t, map[string]solanaLie{"getBlockHeight": farBlockHeight}))
	assert.Empty(t, rep.Committed)
	assert.Empty(t, rep.Released)
	require.Len(t, rep.Failures, 2, "one lookup a rail, both refused")
	for _, f := range rep.Failures {
		assert.ErrorContains(t, f, "contradict each other")
	}

	d.finalize(t)
	for name, change := range map[string]func([]any) []any{
		"an entry missing": func(v []any) []any { return v[:len(v)-1] },
		"an entry extra":   func(v []any) []any { return append(v, nil) },
	} {
		rep := d.reconcile(t, d.node(t, map[string]solanaLie{"getSignatureStatuses": changeStatuses(change)}))
		assert.Empty(t, rep.Committed, name)
		assert.Empty(t, rep.Released, name)
		require.Len(t, rep.Failures, 2, name)
		for _, f := range rep.Failures {
			assert.ErrorContains(t, f, "another number of statuses", name)
		}
	}

	// Rotated: the landed purchase's status comes back in the place of the one never sent.
	// The x402 payments' statuses are all null (their ids are not their transactions'), so
	// the rotation changes nothing of theirs, and they are resolved, rightly.
	rotated := changeStatuses(func(v []any) []any { return append(v[1:], v[0]) })
	rep = d.reconcile(t, d.node(t, map[string]solanaLie{"getSignatureStatuses": rotated}))
	require.Len(t, rep.Failures, 1)
	assert.Equal(t, svm.PurchaseRail, rep.Failures[0].Rail)
	assert.ErrorContains(t, rep.Failures[0], "statuses contradict its transactions")
	assert.Len(t, rep.Committed, 2, "the x402 payments that landed")
	assert.Len(t, rep.Released, 1, "the x402 payment lost on its way")

	rep = d.reconcile(t, d.node(t, map[string]solanaLie{"getSignatureStatuses": nullStatuses}))
	require.NoError(t, rep.Err())
	require.Len(t, rep.Committed, 1, "the purchase, found in its payer's history")
	require.Len(t, rep.Released, 1, "the purchase never sent")
	assertHeld(t, d.budget, d.spent, 0)
	assert.Empty(t, budgettest.Outstanding(t, d.budget))
}

// Several nodes, one of them lying consistently (null statuses, no history, a height far
// beyond the runtime's): alone, it would have what landed given back, which is what a
// lookup of one node still trusts (Caveats). With an honest node beside it, what landed is
// contradicted, reported and kept; what never landed is given back once the honest node's
// own finalized height is past it too. Two honest nodes commit what landed.
func TestSolanaLookupOfSeveralNodesReleasesNothingThatLanded(t *testing.T) {
	t.Parallel()
	d := startSolanaDoubts(t, true)
	liar := d.node(t, map[string]solanaLie{"getSignatureStatuses": nullStatuses, "getSignaturesForAddress": emptyHistory,
		"getBlockHeight": farBlockHeight})
	honest, other := d.node(t, nil), d.node(t, nil)

	alone, err := svm.NewLookup(liar, svm.ForNetworks(svm.NetworkMainnet))
	require.NoError(t, err)
	require.Len(t, alone.Caveats(), 1)
	results, err := alone.Lookup(t.Context(), budgettest.Outstanding(t, d.budget))
	require.NoError(t, err)
	for _, r := range results {
		assert.Equal(t, reconcile.NotSettled, r.State, "a consistent liar, alone, is believed")
	}

	rep := d.reconcile(t, honest, liar)
	assert.Empty(t, rep.Committed)
	assert.Empty(t, rep.Released)
	conflicts := 0
	for _, p := range rep.Pending {
		var conflict *svm.ConflictError
		if errors.As(p.Err, &conflict) {
			conflicts++
			assert.True(t, d.landed[p.ID])
			assert.Equal(t, []int{0}, conflict.Landed)
			assert.Equal(t, []int{1}, conflict.Unseen)
		} else {
			assert.True(t, d.lost[p.ID])
			assert.NoError(t, p.Err, "the honest node's height is not past it yet")
		}
	}
	assert.Equal(t, len(d.landed), conflicts)

	d.finalize(t)
	rep = d.reconcile(t, liar, honest)
	assert.Empty(t, rep.Committed)
	assert.Equal(t, d.lost, resolvedIDs(rep.Released))
	assert.Len(t, rep.Failures, len(d.landed), "each contradiction is reported")
	assertHeld(t, d.budget, 0, d.spent)

	rep = d.reconcile(t, honest, other)
	require.NoError(t, rep.Err())
	assert.Equal(t, d.landed, resolvedIDs(rep.Committed))
	for _, c := range rep.Committed {
		if c.Rail != svm.PurchaseRail {
			assert.NotEmpty(t, c.Transaction, "committed with the facilitator's transaction")
		}
	}
	assertHeld(t, d.budget, d.spent, 0)
}

// A node that accepts connections and never answers costs one call's bound: alone, the
// reconciliation fails at once and resolves nothing; beside an honest node, what the honest
// node proves landed is committed, and nothing is released without the dead node's word.
func TestSolanaLookupOfADeadNodeCostsOneBoundedWait(t *testing.T) {
	t.Parallel()
	d := startSolanaDoubts(t, false)
	d.finalize(t)
	const bound = 300 * time.Millisecond
	dead, err := svm.DialNode("http://"+stalltest.DeadAddress(t), svm.WithCallTimeout(bound))
	require.NoError(t, err)

	start := time.Now()
	rep := d.reconcile(t, dead)
	assert.Less(t, time.Since(start), 3*bound)
	assert.Empty(t, rep.Committed)
	assert.Empty(t, rep.Released)
	require.Len(t, rep.Failures, 1)
	assert.ErrorIs(t, rep.Failures[0], context.DeadlineExceeded)

	start = time.Now()
	rep = d.reconcile(t, d.node(t, nil, svm.WithCallTimeout(bound)), dead)
	assert.Less(t, time.Since(start), 3*bound)
	assert.Equal(t, d.landed, resolvedIDs(rep.Committed))
	assert.Empty(t, rep.Released)
	require.Len(t, rep.Pending, 1)
	var ne *svm.NodeError
	require.ErrorAs(t, rep.Pending[0].Err, &ne)
	assert.Equal(t, 1, ne.Node)
	assert.ErrorIs(t, rep.Pending[0].Err, context.DeadlineExceeded)
	assertHeld(t, d.budget, d.spent, 5_000_000)
}

package interop_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
)

// anvilFinalityLag is how far anvil's finalized block is behind its latest: 64 blocks (its
// safe block is 32 behind).
const anvilFinalityLag = 64

// passFinality moves the time of the chain at rpcURL on by ahead and mines past anvil's
// finality lag, so that its finalized block is the first one mined after the move: a release
// reads the finalized block, never the latest.
func passFinality(ctx context.Context, t testing.TB, rpcURL string, ahead time.Duration) {
	t.Helper()
	client, err := rpc.DialContext(ctx, rpcURL)
	require.NoError(t, err)
	defer client.Close()
	require.NoError(t, client.CallContext(ctx, nil, "evm_increaseTime", int64(ahead/time.Second)))
	require.NoError(t, client.CallContext(ctx, nil, "anvil_mine", hexutil.EncodeUint64(anvilFinalityLag+1)))
}

// authorizationStateSelector selects the token's authorizationState(address,bytes32).
var authorizationStateSelector = crypto.Keccak256([]byte("authorizationState(address,bytes32)"))[:4]

// nodeLies are what a lyingNode changes in the answers of the node behind it.
type nodeLies struct {
	unusedForUsed bool // authorizationState answers false
	usedForAll    bool // authorizationState answers true
	hideEvents    bool // eth_getLogs answers no logs
	futureLatest  bool // the latest block is a thousand blocks on and a day ahead
	futureTime    bool // every block's time is a day ahead
	repeatID      bool // a batch of eth_call's last answer is replaced by its first, under the first's id
	rotateIDs     bool // each answer of a batch of eth_call carries the next call's id
	stall         bool // no answer: requests are held until the client gives up
}

// lyingNode is a JSON-RPC proxy in front of a node (anvil) that changes its answers as its
// lies say, and counts the requests it received.
type lyingNode struct {
	URL string

	upstream string
	lies     nodeLies
	client   *http.Client
	requests atomic.Int64
}

// startLyingNode starts a lying proxy in front of the node at upstream; it stops when the
// test ends.
func startLyingNode(t testing.TB, upstream string, lies nodeLies) *lyingNode {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	n := &lyingNode{upstream: upstream, lies: lies, client: &http.Client{Transport: tr}}
	srv := httptest.NewServer(http.HandlerFunc(n.serve))
	t.Cleanup(func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	n.URL = srv.URL
	return n
}

// rpcMessage is a JSON-RPC call or answer, kept as raw as the proxy can.
type rpcMessage struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  []json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage   `json:"result,omitempty"`
	Error   json.RawMessage   `json:"error,omitempty"`
}

func (n *lyingNode) serve(w http.ResponseWriter, r *http.Request) {
	n.requests.Add(1)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	if n.lies.stall { // the body read, the server sees the client give up
		<-r.Context().Done()
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, n.upstream, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := n.client.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	answer, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if out, err := n.lie(body, answer); err == nil {
		answer = out
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(answer)
}

// lie returns answer, the node's answer to body, changed as the lies say.
func (n *lyingNode) lie(body, answer []byte) ([]byte, error) {
	batch := bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))
	var calls, answers []rpcMessage
	if batch {
		if err := json.Unmarshal(body, &calls); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(answer, &answers); err != nil {
			return nil, err
		}
	} else {
		calls, answers = make([]rpcMessage, 1), make([]rpcMessage, 1)
		if err := json.Unmarshal(body, &calls[0]); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(answer, &answers[0]); err != nil {
			return nil, err
		}
	}
	byID := make(map[string]rpcMessage, len(calls))
	for _, c := range calls {
		byID[string(c.ID)] = c
	}
	for i := range answers {
		if c, ok := byID[string(answers[i].ID)]; ok && answers[i].Result != nil {
			answers[i].Result = n.lieAbout(c, answers[i].Result)
		}
	}
	if batch && len(answers) > 1 && calls[0].Method == "eth_call" {
		switch {
		case n.lies.repeatID:
			answers[len(answers)-1] = answers[0]
		case n.lies.rotateIDs:
			first := answers[0].ID
			for i := range answers[:len(answers)-1] {
				answers[i].ID = answers[i+1].ID
			}
			answers[len(answers)-1].ID = first
		}
	}
	if batch {
		return json.Marshal(answers)
	}
	return json.Marshal(answers[0])
}

// lieAbout returns the result of call changed as the lies say.
func (n *lyingNode) lieAbout(call rpcMessage, result json.RawMessage) json.RawMessage {
	switch call.Method {
	case "eth_call":
		var args struct {
			Data hexutil.Bytes `json:"data"`
		}
		if len(call.Params) == 0 || json.Unmarshal(call.Params[0], &args) != nil || !bytes.HasPrefix(args.Data, authorizationStateSelector) {
			return result
		}
		word := make([]byte, 32)
		switch {
		case n.lies.unusedForUsed:
		case n.lies.usedForAll:
			word[31] = 1
		default:
			return result
		}
		out, _ := json.Marshal(hexutil.Bytes(word))
		return out
	case "eth_getLogs":
		if n.lies.hideEvents {
			return json.RawMessage("[]")
		}
	case "eth_getBlockByNumber":
		var block map[string]json.RawMessage
		if json.Unmarshal(result, &block) != nil || block == nil {
			return result
		}
		var tag string
		_ = json.Unmarshal(call.Params[0], &tag)
		ahead := n.lies.futureTime || n.lies.futureLatest && tag == "latest"
		if n.lies.futureLatest && tag == "latest" {
			block["number"] = shiftQuantity(block["number"], 1000)
		}
		if ahead {
			block["timestamp"] = shiftQuantity(block["timestamp"], 24*3600)
		}
		if out, err := json.Marshal(block); err == nil {
			return out
		}
	}
	return result
}

// shiftQuantity returns the JSON-RPC quantity q plus by.
func shiftQuantity(q json.RawMessage, by uint64) json.RawMessage {
	var s string
	if json.Unmarshal(q, &s) != nil {
		return q
	}
	v, err := hexutil.DecodeUint64(s)
	if err != nil {
		return q
	}
	out, _ := json.Marshal(hexutil.EncodeUint64(v + by))
	return out
}

// copyHolds records in a new budget, kept in the store budgettest.EnvStore names on clock,
// the payments of outstanding as a payer left them: reserved, signed and in doubt.
func copyHolds(t *testing.T, clock *shiftedClock, outstanding []ledger.Outstanding) *budget.Budget {
	t.Helper()
	b := budgettest.NewBudget(t, budgettest.Selected(t), budget.Unlimited, clock)
	for _, o := range outstanding {
		h, err := b.Reserve(t.Context(), ledger.Reservation{Amount: o.Amount, PayTo: o.PayTo, Rail: o.Rail, Resource: o.Resource,
			Payer: o.Payer, Asset: o.Asset})
		require.NoError(t, err)
		require.NoError(t, h.Sign(t.Context(), ledger.Signature{ID: o.ID, Expires: o.Expires}))
		require.NoError(t, h.InDoubt(t.Context()))
	}
	return b
}

// The reference server settles three payments whose answers a proxy drops, and a fourth is
// lost on its way to it; an hour later on the chain (mined past anvil's finality) and on the
// clock, the four are reconciled through nodes that lie in front of the same anvil, alone and
// beside the honest node, each in a budget of its own holding the four as the payer left
// them. None releases a payment that settled, and none commits one that did not. The honest
// node alone commits the three with their transactions and releases the lost one. The cases
// run one after the other: they are quick, and the chain's processes live as long as the
// test's context.
func TestLyingNodesReleaseNothingThatSettled(t *testing.T) {
	t.Parallel()
	node, anvil := requireNode(t), requireAnvil(t)
	ctx := testContext(t)

	signer, err := evm.NewPrivateKeySigner(goPayerKey)
	require.NoError(t, err)
	chain := startAnvil(ctx, t, anvil)
	rpcURL := chain.RPC
	srv := startJSServer(ctx, t, node, jsServerConfig{
		RPC:               rpcURL,
		PayTo:             payTo,
		Amount:            big.NewInt(price).String(),
		Fund:              map[string]string{signer.Address(): big.NewInt(startFunds).String()},
		MaxTimeoutSeconds: 60,
	})
	usdcOnChain := dialUSDC(ctx, t, rpcURL)
	dropping := startSettleDroppingProxy(t, srv.URL)
	losing := startLosingProxy(t, srv.URL)

	reserved := &shiftedClock{}
	spend := budgettest.NewBudget(t, budgettest.Selected(t), big.NewInt(10*price), reserved)
	payer, err := x402.NewPayer(x402.Policy{MaxPerPayment: big.NewInt(price), PayTo: []string{payTo},
		Networks: []string{evm.NetworkBase}}, exactEVM(t, signer), x402.WithBudget(spend))
	require.NoError(t, err)
	client := &http.Client{Transport: payer.RoundTripper(newTransport(t))}
	const settled = 3
	fetchInDoubt(ctx, t, client, dropping.URL+"/paid", settled)
	lost := fetchInDoubt(ctx, t, client, losing+"/paid", 1)[0]
	outstanding := budgettest.Outstanding(t, spend)
	require.Len(t, outstanding, settled+1)

	// What the chain says, read independently of any lookup.
	settledTx := map[string]string{}
	for _, u := range usdcOnChain.authorizationsUsed(ctx, t) {
		settledTx["0x"+hex.EncodeToString(u.Nonce[:])] = u.Tx.Hex()
	}
	require.Len(t, settledTx, settled)
	require.NotContains(t, settledTx, strings.ToLower(lost.ID))
	passFinality(ctx, t, rpcURL, time.Hour)

	consistentLiar := nodeLies{unusedForUsed: true, hideEvents: true, futureTime: true}
	const some = -1 // a number of the settled payments: those the lies leave provable
	for name, tc := range map[string]struct {
		lies  nodeLies
		alone bool // the liar is the lookup's only endpoint; else it comes first, the honest node second
		// committed is how many of the payments that settled are committed (each with its
		// transaction, never one that did not settle); released, whether the lost one is
		// (never one that settled). The others stay pending.
		committed int
		released  bool
	}{
		"the honest node":                                     {alone: true, committed: settled, released: true},
		"unused for used nonces, its events true":             {lies: nodeLies{unusedForUsed: true}, alone: true, released: true},
		"unused for used nonces, beside the honest node":      {lies: nodeLies{unusedForUsed: true}, committed: settled, released: true},
		"used for an unused nonce":                            {lies: nodeLies{usedForAll: true}, alone: true, committed: settled},
		"used for an unused nonce, beside the honest node":    {lies: nodeLies{usedForAll: true}, committed: settled},
		"a repeated batch id":                                 {lies: nodeLies{repeatID: true}, alone: true},
		"a repeated batch id, beside the honest node":         {lies: nodeLies{repeatID: true}, committed: settled},
		"rotated batch ids":                                   {lies: nodeLies{rotateIDs: true}, alone: true, committed: some},
		"rotated batch ids, beside the honest node":           {lies: nodeLies{rotateIDs: true}, committed: settled},
		"a latest block in the future":                        {lies: nodeLies{futureLatest: true}, alone: true},
		"a latest block in the future, beside the honest one": {lies: nodeLies{futureLatest: true}, committed: settled},
		"a consistent liar beside the honest node":            {lies: consistentLiar, committed: settled, released: true},
	} {
		t.Run(name, func(t *testing.T) {
			clock := &shiftedClock{}
			b := copyHolds(t, clock, outstanding)
			clock.add(time.Hour)
			first, opts := rpcURL, []evm.LookupOption(nil)
			if tc.lies != (nodeLies{}) {
				first = startLyingNode(t, rpcURL, tc.lies).URL
			}
			if !tc.alone {
				opts = append(opts, evm.WithEndpoint(rpcURL))
			}
			lookup, err := evm.DialLookup(evm.NetworkBase, first, opts...)
			require.NoError(t, err)
			t.Cleanup(func() { _ = lookup.Close() })
			r, err := reconcile.New(b, reconcile.WithLookup(lookup), reconcile.WithClock(clock), reconcile.WithRate(100),
				reconcile.WithLogger(scan.Logger()))
			require.NoError(t, err)

			rep, err := r.Reconcile(ctx)
			require.NoError(t, err)
			scan.Record(rep.Err())
			for _, c := range rep.Committed {
				tx, ok := settledTx[strings.ToLower(c.ID)]
				require.True(t, ok, "payment %s is committed but never settled", c.ID)
				assert.Equal(t, tx, c.Transaction, "payment %s is committed with its settling transaction", c.ID)
			}
			for _, r := range rep.Released {
				assert.NotContains(t, settledTx, strings.ToLower(r.ID), "payment %s is released but settled", r.ID)
				assert.False(t, usdcOnChain.authorizationState(ctx, t, signer.Address(), nonceOf(t, r.ID)))
			}
			wantCommitted, wantReleased := tc.committed, 0
			if tc.released {
				wantReleased = 1
			}
			if wantCommitted == some {
				wantCommitted = len(rep.Committed)
				assert.Less(t, wantCommitted, settled, "the rotation is caught for some")
			}
			assert.Len(t, rep.Committed, wantCommitted, "committed")
			assert.Len(t, rep.Released, wantReleased, "released")
			assert.Len(t, rep.Pending, settled+1-wantCommitted-wantReleased, "pending")
			assert.Equal(t, big.NewInt(int64(wantCommitted*price)).String(), budgettest.Spent(t, b).String())
			assert.Equal(t, big.NewInt(int64((settled+1-wantCommitted-wantReleased)*price)).String(), budgettest.Reserved(t, b).String())
			if tc.alone {
				assert.Equal(t, lookup.Caveats(), rep.Caveats, "one endpoint: the report says what it trusted")
				assert.NotEmpty(t, rep.Caveats)
			} else {
				assert.Empty(t, rep.Caveats)
			}
		})
	}

	// A dead node, alone or beside the honest one, costs one bounded wait: the lookup that
	// found it dead is not asked again in the same reconciliation, however many batches the
	// payments make, and nothing is resolved.
	for name, beside := range map[string]bool{"a dead node": false, "a dead node beside the honest one": true} {
		t.Run(name, func(t *testing.T) {
			clock := &shiftedClock{}
			b := copyHolds(t, clock, outstanding)
			clock.add(time.Hour)
			dead := startLyingNode(t, rpcURL, nodeLies{stall: true})
			first, opts := dead.URL, []evm.LookupOption(nil)
			if beside {
				first, opts = rpcURL, []evm.LookupOption{evm.WithEndpoint(dead.URL)}
			}
			lookup, err := evm.DialLookup(evm.NetworkBase, first, opts...)
			require.NoError(t, err)
			t.Cleanup(func() { _ = lookup.Close() })
			const timeout = time.Second
			r, err := reconcile.New(b, reconcile.WithLookup(lookup), reconcile.WithClock(clock), reconcile.WithRate(100),
				reconcile.WithBatch(1), reconcile.WithLookupTimeout(timeout))
			require.NoError(t, err)

			start := time.Now()
			rep, err := r.Reconcile(ctx)
			elapsed := time.Since(start)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, elapsed, timeout, "the lookup's bound")
			assert.Less(t, elapsed, 2*timeout, "one wait for %d batches of one", settled+1)
			assert.Equal(t, int64(1), dead.requests.Load(), "the dead node was asked once")
			assert.Empty(t, rep.Committed)
			assert.Empty(t, rep.Released)
			require.Len(t, rep.Pending, settled+1)
			for _, p := range rep.Pending {
				assert.ErrorIs(t, p.Err, reconcile.ErrUnreachable)
			}
			assert.Equal(t, big.NewInt((settled+1)*price).String(), budgettest.Reserved(t, b).String())
		})
	}
}

package svm_test

import (
	"bytes"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/svm"
)

// The fake chain the lookup's tests pay on: an in-memory cluster on a clock of the test's
// own, and taps in front of it that record every call and tell the lies a test asks for.

// usdc is the mint the tests pay with.
var usdc = solana.MustPublicKeyFromBase58(svm.USDCMainnet)

// purchaseMemo is the memo of the purchases the tests make, gpuprice's.
const purchaseMemo = "API-PRO"

// testChain is a fake Solana cluster with a facilitator that pays the fees of x402 payments
// and a payee whose USDC account exists.
type testChain struct {
	cluster     *solanafake.Cluster
	start       time.Time
	offset      atomic.Int64
	facilitator solana.PrivateKey
	payTo       solana.PublicKey
	honest      *svm.Node // a node through a tap that tells no lie, to pay with
}

// newTestChain starts a cluster for one test.
func newTestChain(t *testing.T) *testChain {
	t.Helper()
	c := &testChain{start: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), facilitator: solana.NewWallet().PrivateKey,
		payTo: solana.NewWallet().PublicKey()}
	c.cluster = solanafake.New(solanafake.Config{Clock: c.now})
	c.cluster.AddMint(solanafake.Mint{Address: usdc, Program: solana.TokenProgramID, Decimals: 6})
	c.cluster.FundSOL(c.facilitator.PublicKey(), 1_000_000_000)
	c.cluster.FundToken(usdc, c.payTo, 0)
	c.honest, _ = c.node(t)
	return c
}

// now is the cluster's clock.
func (c *testChain) now() time.Time { return c.start.Add(time.Duration(c.offset.Load())) }

// advance lets the cluster produce n blocks.
func (c *testChain) advance(n int) { c.offset.Add(int64(n) * int64(solanafake.BlockInterval)) }

// pastEveryBlockhash is how many blocks take every payment made before past the last block
// height at which it could land, at the finalized commitment: the blockhash's 150 blocks,
// the x402 slack of 32, and the 32 by which "finalized" trails.
const pastEveryBlockhash = 150 + 32 + 32 + 1

// finalizeAll is how many blocks finalize every transaction that landed before.
const finalizeAll = solanafake.FinalityDepth

// node returns a node reaching the cluster through a new tap, with opts.
func (c *testChain) node(t *testing.T, opts ...svm.NodeOption) (*svm.Node, *tap) {
	t.Helper()
	tp := &tap{backend: c.cluster}
	srv := httptest.NewServer(tp)
	t.Cleanup(srv.Close)
	n, err := svm.DialNode(srv.URL, opts...)
	require.NoError(t, err)
	return n, tp
}

// landing is what becomes of a test payment.
type landing int

// The landings.
const (
	lands        landing = iota // it lands and succeeds
	neverSent                   // it never reaches the cluster
	failsOnChain                // it lands and fails (a purchase whose payer is short of USDC)
)

// x402Payment makes an x402 payment of amount with svm.Exact from a new payer holding 1 USDC,
// lands it (the facilitator signs and submits it) or not, and returns it as the payer's
// budget holds it, in doubt.
func (c *testChain) x402Payment(t *testing.T, payer *svm.PrivateKeySigner, amount int64, how landing) ledger.Outstanding {
	t.Helper()
	if payer == nil {
		payer = newWallet(t)
		c.cluster.FundToken(usdc, payer.PublicKey(), 1_000_000)
	}
	scheme, err := svm.NewExact(payer, c.honest)
	require.NoError(t, err)
	r := offer(c.payTo, c.facilitator.PublicKey(), amount, nil)
	signed, err := scheme.Pay(t.Context(), x402.Offer{Requirements: r, Network: r.Network, X402Version: 2,
		Validity: time.Minute, Now: c.now()})
	require.NoError(t, err)
	if how == lands {
		tx, err := svm.DecodeExactPayload(payloadOf(t, r, signed))
		require.NoError(t, err)
		_, err = tx.PartialSign(func(k solana.PublicKey) *solana.PrivateKey {
			if k.Equals(c.facilitator.PublicKey()) {
				return &c.facilitator
			}
			return nil
		})
		require.NoError(t, err)
		_, err = c.cluster.Submit(tx, solanafake.SendOptions{})
		require.NoError(t, err)
	}
	return ledger.Outstanding{Amount: big.NewInt(amount), PayTo: c.payTo.String(), Rail: "x402 " + svm.NetworkMainnet,
		Payer: payer.PublicKey().String(), Asset: usdc.String(), Reserved: c.now(), State: ledger.InDoubt,
		Signature: ledger.Signature{ID: signed.ID, Expires: signed.Expires, Ref: signed.Ref}}
}

// purchase makes a key purchase of 5 USDC as gpuprice does (the payer pays its own fee; a
// TransferChecked to the payee, then the memo signed by the payer), which lands, fails on
// chain or is never sent as how says, and returns it as the payer's budget holds it.
func (c *testChain) purchase(t *testing.T, how landing) ledger.Outstanding {
	t.Helper()
	const amount = 5_000_000
	key := solana.NewWallet().PrivateKey
	owner := key.PublicKey()
	funds := uint64(amount)
	if how == failsOnChain {
		funds = amount - 1
	}
	source := c.cluster.FundToken(usdc, owner, funds)
	c.cluster.FundSOL(owner, 10_000_000)
	destination, err := svm.AssociatedTokenAccount(c.payTo, usdc, solana.TokenProgramID)
	require.NoError(t, err)
	transfer, err := svm.TransferChecked(solana.TokenProgramID, amount, 6, source, usdc, destination, owner)
	require.NoError(t, err)
	blockhash, lastValid := c.cluster.LatestBlockhash()
	tx, err := solana.NewTransaction([]solana.Instruction{transfer, svm.Memo([]byte(purchaseMemo), owner)}, blockhash,
		solana.TransactionPayer(owner))
	require.NoError(t, err)
	signer, err := svm.NewPrivateKeySigner(key)
	require.NoError(t, err)
	sig, err := svm.SignAs(tx, signer)
	require.NoError(t, err)
	if how != neverSent {
		_, err := c.cluster.Submit(tx, solanafake.SendOptions{SkipPreflight: true})
		require.NoError(t, err)
	}
	ref := svm.Ref{Blockhash: blockhash, LastValid: lastValid, Source: source, Memo: []byte(purchaseMemo)}
	return ledger.Outstanding{Amount: big.NewInt(amount), PayTo: c.payTo.String(), Rail: svm.PurchaseRail,
		Payer: owner.String(), Asset: usdc.String(), Reserved: c.now(), State: ledger.InDoubt,
		Signature: svm.HoldSignature(sig, ref, c.now().Add(time.Minute))}
}

// rpcCall is one JSON-RPC call a tap saw.
type rpcCall struct {
	Method string
	Params []json.RawMessage
}

// rpcAnswer is a JSON-RPC answer as a tap reads and writes it.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// lie rewrites the honest answer of a call; it may replace the result or set an error.
type lie func(call rpcCall, answer *rpcAnswer)

// tap is a JSON-RPC proxy in front of the cluster that records every call and answers what
// its lies make of the cluster's answers. It also keeps a rule of real nodes the fake cluster
// does not: a finalized getSignaturesForAddress whose minContextSlot is above the finalized
// slot fails with -32016.
type tap struct {
	backend http.Handler

	mu    sync.Mutex
	calls []rpcCall
	lies  map[string]lie
}

// tell makes the tap answer method with what l makes of the cluster's answer.
func (tp *tap) tell(method string, l lie) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if tp.lies == nil {
		tp.lies = map[string]lie{}
	}
	tp.lies[method] = l
}

// called returns the calls of method, in order.
func (tp *tap) called(method string) []rpcCall {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	var out []rpcCall
	for _, c := range tp.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// all returns every call, in order.
func (tp *tap) all() []rpcCall {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]rpcCall(nil), tp.calls...)
}

// ServeHTTP answers one JSON-RPC call.
func (tp *tap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	_, _ = body.ReadFrom(r.Body)
	var req struct {
		rpcCall
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(body.Bytes(), &req); err != nil {
		http.Error(w, "not a single JSON-RPC call", http.StatusBadRequest)
		return
	}
	tp.mu.Lock()
	tp.calls = append(tp.calls, req.rpcCall)
	l := tp.lies[req.Method]
	tp.mu.Unlock()

	answer := tp.forward(body.Bytes())
	if req.Method == "getSignaturesForAddress" {
		tp.minContextSlot(req.rpcCall, &answer)
	}
	if l != nil {
		l(req.rpcCall, &answer)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

// forward returns the cluster's answer to body.
func (tp *tap) forward(body []byte) rpcAnswer {
	rec := httptest.NewRecorder()
	tp.backend.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
	var answer rpcAnswer
	if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
		panic("the fake cluster answered something that is not JSON-RPC: " + rec.Body.String())
	}
	return answer
}

// minContextSlot fails a finalized getSignaturesForAddress whose minContextSlot the
// cluster's finalized slot has not reached, as a node does.
func (tp *tap) minContextSlot(call rpcCall, answer *rpcAnswer) {
	var cfg struct {
		Commitment     string  `json:"commitment"`
		MinContextSlot *uint64 `json:"minContextSlot"`
	}
	if len(call.Params) < 2 || json.Unmarshal(call.Params[1], &cfg) != nil || cfg.MinContextSlot == nil ||
		(cfg.Commitment != "" && cfg.Commitment != "finalized") {
		return
	}
	slot := tp.forward([]byte(`{"jsonrpc":"2.0","id":0,"method":"getSlot","params":[{"commitment":"finalized"}]}`))
	var finalized uint64
	if json.Unmarshal(slot.Result, &finalized) == nil && finalized < *cfg.MinContextSlot {
		answer.Result = nil
		answer.Error = json.RawMessage(`{"code":-32016,"message":"Minimum context slot has not been reached"}`)
	}
}

// Lies the tests tell.

// hideStatuses answers null for every signature asked, as for transactions never seen.
func hideStatuses(_ rpcCall, answer *rpcAnswer) {
	rewriteStatuses(answer, func(v []any) []any { return make([]any, len(v)) })
}

// hideHistory answers an empty history.
func hideHistory(_ rpcCall, answer *rpcAnswer) {
	answer.Result, answer.Error = json.RawMessage(`[]`), nil
}

// farHeight answers a block height far beyond the cluster's.
func farHeight(_ rpcCall, answer *rpcAnswer) {
	answer.Result, answer.Error = json.RawMessage(`999999999999`), nil
}

// rewriteStatuses replaces the list of statuses of a getSignatureStatuses answer by what
// change makes of it.
func rewriteStatuses(answer *rpcAnswer, change func([]any) []any) {
	answer.Result = solanafake.RewriteStatuses(answer.Result, change)
}

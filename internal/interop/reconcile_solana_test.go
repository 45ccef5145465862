package interop_test

import (
	"bytes"
	"errors"
	"io"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/svm"
)

// lostSend is a transport to the node that loses the purchase's sendTransaction: after the
// node received it (delivered, the answer lost) or before (never delivered).
type lostSend struct{ delivered bool }

// errLost is the failure of a lost sendTransaction.
var errLost = errors.New("connection reset by peer")

// RoundTrip forwards req, losing a sendTransaction.
func (l lostSend) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	if !bytes.Contains(body, []byte(`"method":"sendTransaction"`)) {
		return http.DefaultTransport.RoundTrip(req)
	}
	if l.delivered {
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
	}
	return nil, errLost
}

// buyInDoubt buys a Pro key on node with the purchase's sendTransaction lost as send says,
// and returns the signature of the purchase left in doubt.
func buyInDoubt(t *testing.T, node *solanaNode, treasury solana.PublicKey, budget *budget.Budget, send lostSend) solana.Signature {
	t.Helper()
	payer, _ := solanaPayer(t, node, 10_000_000, 10_000_000)
	rc := rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(node.URL, &jsonrpc.RPCClientOpts{HTTPClient: &http.Client{Transport: send}}))
	c, err := gpuprice.New(gpuprice.WithBaseURL(startKeyService(t, node, treasury).URL), gpuprice.WithRPCClient(rc),
		gpuprice.WithRetry(testkit.NoRetry))
	require.NoError(t, err)
	_, err = c.BuyKey(t.Context(), &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: treasury, Budget: budget})
	require.ErrorIs(t, err, gpuprice.ErrPaymentInDoubt)
	var pe *gpuprice.PaymentError
	require.ErrorAs(t, err, &pe)
	scan.Add(pe.Signature.Reveal())
	return solana.MustSignatureFromBase58(pe.Signature.Reveal())
}

// solanaReconciler returns a reconciler of budget looking purchases up on node, deciding
// expiry on clock, as the budget's store does.
func solanaReconciler(t *testing.T, node *solanaNode, budget *budget.Budget, clock sdk.Clock) *reconcile.Reconciler {
	t.Helper()
	n, err := svm.NewNode(node.RPC)
	require.NoError(t, err)
	lookup, err := svm.NewLookup(n)
	require.NoError(t, err)
	r, err := reconcile.New(budget, reconcile.WithLookup(lookup), reconcile.WithClock(clock), reconcile.WithRate(100), reconcile.WithLogger(scan.Logger()))
	require.NoError(t, err)
	return r
}

// Two purchases left in doubt on the real runtime: one landed though its answer was lost,
// one never reached the node. Reconciling commits the first at once; the second stays
// counted until its blockhash has expired on the runtime and on the clock, and is then
// given back.
func TestSolanaReconcileResolvesPurchasesInDoubt(t *testing.T) {
	t.Parallel()
	node := startSolanaNode(t)
	treasury := solana.NewWallet().PublicKey()
	node.setUSDC(t, treasury, 0)
	clock := &shiftedClock{}
	budget := budgettest.NewBudget(t, budgettest.Selected(t), big.NewInt(budgetLimit), clock)

	landed := buyInDoubt(t, node, treasury, budget, lostSend{delivered: true})
	neverSent := buyInDoubt(t, node, treasury, budget, lostSend{})
	assertHeld(t, budget, 0, 10_000_000)
	assert.Equal(t, uint64(5_000_000), node.usdc(t, treasury), "the first purchase landed")
	r := solanaReconciler(t, node, budget, clock)

	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	require.NoError(t, rep.Err())
	require.Len(t, rep.Committed, 1)
	assert.Equal(t, landed.String(), rep.Committed[0].ID)
	require.Len(t, rep.Pending, 1)
	assert.Equal(t, neverSent.String(), rep.Pending[0].ID)
	assert.Equal(t, reconcile.Pending, rep.Pending[0].Chain, "its blockhash could still land it")
	assertHeld(t, budget, 5_000_000, 5_000_000)

	// The runtime moves past the blockhash's last valid block; the clock has not passed the
	// expiry yet, so the payment stays counted.
	node.call(t, "test_advanceSlots", 151)
	rep, err = r.Reconcile(t.Context())
	require.NoError(t, err)
	require.Len(t, rep.Pending, 1)
	assert.Equal(t, reconcile.NotSettled, rep.Pending[0].Chain)
	assertHeld(t, budget, 5_000_000, 5_000_000)

	clock.add(time.Hour)
	rep, err = r.Reconcile(t.Context())
	require.NoError(t, err)
	require.Len(t, rep.Released, 1)
	assert.Equal(t, neverSent.String(), rep.Released[0].ID)
	assertHeld(t, budget, 5_000_000, 0)
	assert.Empty(t, budgettest.Outstanding(t, budget))
	assert.Equal(t, uint64(5_000_000), node.usdc(t, treasury), "only the first purchase reached the treasury")
}

package interop_test

import (
	"context"
	"encoding/hex"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/wire"
)

// startLosingProxy starts a proxy in front of upstream that forwards unpaid requests and
// loses every paid one: it reads the request, then closes the connection without
// forwarding it. The payment left the payer but never reached the server, so it never
// settles. The proxy is closed when the test ends.
func startLosingProxy(t *testing.T, upstream string) string {
	t.Helper()
	target, err := url.Parse(upstream)
	require.NoError(t, err)
	forward := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(wire.HeaderPaymentSignature) == "" {
			forward.ServeHTTP(w, r)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		_ = conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// shiftedClock is the wall clock moved forward by what a test adds.
type shiftedClock struct{ by atomic.Int64 }

// Now returns the wall clock moved by the shift.
func (c *shiftedClock) Now() time.Time { return time.Now().Add(time.Duration(c.by.Load())) }

// Sleep waits d on the wall clock.
func (c *shiftedClock) Sleep(ctx context.Context, d time.Duration) error {
	return sdk.SystemClock().Sleep(ctx, d)
}

// add moves the shift by d.
func (c *shiftedClock) add(d time.Duration) { c.by.Add(int64(d)) }

// exactEVM returns the EVM exact scheme of signer, as the one scheme of a payer.
func exactEVM(t *testing.T, signer evm.Signer) []x402.Scheme {
	t.Helper()
	scheme, err := evm.NewExact(signer)
	require.NoError(t, err)
	return []x402.Scheme{scheme}
}

// The reference server settles five payments on chain while a proxy drops every answer,
// and a sixth payment is lost on its way to the server. One reconciliation against the
// chain's node commits the five, each with the transaction that settled it, so that Spent
// is what the chain settled; the sixth stays in doubt until the chain and the clock have
// both passed its validBefore, and is then given back.
func TestReconcileAgainstTheChainAfterLostAnswers(t *testing.T) {
	t.Parallel()
	node, anvil := requireNode(t), requireAnvil(t)
	ctx := testContext(t)

	signer, err := evm.NewPrivateKeySigner(goPayerKey)
	require.NoError(t, err)
	chain := startAnvil(ctx, t, anvil)
	srv := startJSServer(ctx, t, node, jsServerConfig{
		RPC:               chain.RPC,
		PayTo:             payTo,
		Amount:            big.NewInt(price).String(),
		Fund:              map[string]string{signer.Address(): big.NewInt(startFunds).String()},
		MaxTimeoutSeconds: 60,
	})
	usdcOnChain := dialUSDC(ctx, t, chain.RPC)
	dropping := startSettleDroppingProxy(t, srv.URL)
	losing := startLosingProxy(t, srv.URL)

	clock := &shiftedClock{}
	spend := budgettest.NewBudget(t, budgettest.Selected(t), big.NewInt(10*price), clock)
	payer, err := x402.NewPayer(x402.Policy{
		MaxPerPayment: big.NewInt(price),
		PayTo:         []string{payTo},
		Networks:      []string{evm.NetworkBase},
	}, exactEVM(t, signer), x402.WithBudget(spend))
	require.NoError(t, err)
	client := &http.Client{Transport: payer.RoundTripper(newTransport(t))}

	const settled = 5
	inDoubt := fetchInDoubt(ctx, t, client, dropping.URL+"/paid", settled)
	lost := fetchInDoubt(ctx, t, client, losing+"/paid", 1)[0]
	require.Len(t, budgettest.Outstanding(t, spend), settled+1)
	assert.Zero(t, budgettest.Spent(t, spend).Sign())
	assert.Equal(t, big.NewInt((settled+1)*price).String(), budgettest.Reserved(t, spend).String())

	lookup, err := evm.DialLookup(evm.NetworkBase, chain.RPC)
	require.NoError(t, err)
	t.Cleanup(func() { _ = lookup.Close() })
	reconciler, err := reconcile.New(spend, reconcile.WithLookup(lookup), reconcile.WithClock(clock), reconcile.WithRate(100))
	require.NoError(t, err)
	rep, err := reconciler.Reconcile(ctx)
	require.NoError(t, err)
	require.NoError(t, rep.Err())

	// What the chain says settled, read independently of the reconciler.
	onChain := new(big.Int)
	settledTx := map[string]string{}
	for _, u := range usdcOnChain.authorizationsUsed(ctx, t) {
		settledTx["0x"+hex.EncodeToString(u.Nonce[:])] = u.Tx.Hex()
	}
	for _, e := range append(inDoubt, lost) {
		if usdcOnChain.authorizationState(ctx, t, signer.Address(), nonceOf(t, e.ID)) {
			onChain.Add(onChain, big.NewInt(price))
		}
	}
	assert.Equal(t, big.NewInt(settled*price).String(), onChain.String(), "the chain settled the five")
	assert.Equal(t, onChain.String(), budgettest.Spent(t, spend).String(), "Spent is what the chain settled")
	assert.Equal(t, big.NewInt(price).String(), budgettest.Reserved(t, spend).String(), "only the lost payment is still held")

	require.Len(t, rep.Committed, settled)
	for _, c := range rep.Committed {
		assert.Equal(t, settledTx[strings.ToLower(c.ID)], c.Transaction, "payment %s is committed with its settling transaction", c.ID)
		assert.NotEmpty(t, c.Transaction)
	}
	assert.Empty(t, rep.Released)
	require.Len(t, rep.Pending, 1)
	assert.Equal(t, lost.ID, rep.Pending[0].ID)
	assert.Equal(t, reconcile.Pending, rep.Pending[0].Chain, "unused, and the chain is before its validBefore")

	// An hour later on the chain and on the clock, the lost payment can no longer settle; a
	// release reads the finalized block, which anvil keeps 64 blocks behind its latest.
	passFinality(ctx, t, chain.RPC, time.Hour)
	clock.add(time.Hour)
	rep, err = reconciler.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Released, 1)
	assert.Equal(t, lost.ID, rep.Released[0].ID)
	assert.Equal(t, reconcile.NotSettled, rep.Released[0].Chain)
	assert.False(t, usdcOnChain.authorizationState(ctx, t, signer.Address(), nonceOf(t, lost.ID)), "it never settled")
	assert.Equal(t, big.NewInt(settled*price).String(), budgettest.Spent(t, spend).String())
	assert.Zero(t, budgettest.Reserved(t, spend).Sign())
	assert.Empty(t, budgettest.Outstanding(t, spend))
	assert.Equal(t, big.NewInt(startFunds-settled*price).String(), usdcOnChain.balanceOf(ctx, t, signer.Address()).String())

	// Nothing is left in doubt: a further pass finds nothing to do.
	rep, err = reconciler.Reconcile(context.WithoutCancel(ctx))
	require.NoError(t, err)
	assert.Empty(t, rep.Committed)
	assert.Empty(t, rep.Pending)
}

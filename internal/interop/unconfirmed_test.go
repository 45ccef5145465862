package interop_test

import (
	"context"
	"math/big"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

// fetchInDoubt makes n GETs of url, one after the other, with client, whose
// transport must be a payer's, and requires every one to end in a
// *x402.PaymentUnconfirmedError (as every paid request through a
// settleDroppingProxy does). It returns the errors in order.
func fetchInDoubt(ctx context.Context, t testing.TB, client *http.Client, url string, n int) []*x402.PaymentUnconfirmedError {
	t.Helper()
	out := make([]*x402.PaymentUnconfirmedError, 0, n)
	for i := range n {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		require.NoError(t, err)
		resp, err := client.Do(req)
		if resp != nil {
			_ = resp.Body.Close()
		}
		var unconfirmed *x402.PaymentUnconfirmedError
		require.ErrorAs(t, err, &unconfirmed, "fetch %d", i)
		out = append(out, unconfirmed)
	}
	return out
}

// sentNonces returns the distinct nonces of the payment headers a
// recordingTransport saw.
func sentNonces(t testing.TB, rt *recordingTransport) map[[32]byte]bool {
	t.Helper()
	out := make(map[[32]byte]bool)
	for _, header := range rt.sent() {
		p, err := wire.DecodePaymentPayload(header)
		require.NoError(t, err)
		out[exactOf(t, p).Authorization.Nonce] = true
	}
	return out
}

// Payments that settle on chain while their answers are lost stay counted in
// doubt: the payer reports each as a *x402.PaymentUnconfirmedError, commits
// none of them, and keeps all of them reserved, while the chain shows every one
// settled exactly once, however often the payer re-sent it.
func TestSettledPaymentsWithLostAnswersStayInDoubt(t *testing.T) {
	t.Parallel()
	node, anvil := requireNode(t), requireAnvil(t)
	ctx := testContext(t)

	signer, err := evm.NewPrivateKeySigner(goPayerKey)
	require.NoError(t, err)
	stack := startReferenceStack(ctx, t, node, anvil, jsServerConfig{
		PayTo:             payTo,
		Amount:            big.NewInt(price).String(),
		Fund:              map[string]string{signer.Address(): big.NewInt(startFunds).String()},
		MaxTimeoutSeconds: 60,
	})
	proxy := startSettleDroppingProxy(t, stack.Server.URL)

	policy, budgetOpts := budgettest.ForPayer(t, x402.Policy{
		MaxPerPayment: big.NewInt(price),
		MaxTotal:      big.NewInt(10 * price),
		PayTo:         []string{payTo},
		Networks:      []string{evm.NetworkBase},
	}, nil)
	payer, err := x402.NewPayer(policy, exactEVM(t, signer), budgetOpts...)
	require.NoError(t, err)
	recorder := &recordingTransport{next: newTransport(t)}
	client := &http.Client{Transport: payer.RoundTripper(recorder)}

	const n = 5
	unconfirmed := fetchInDoubt(ctx, t, client, proxy.URL+"/paid", n)

	nonces := make(map[[32]byte]bool, n)
	for _, e := range unconfirmed {
		assert.Equal(t, signer.Address(), e.Payer)
		assert.Equal(t, 0, e.StatusCode, "no answer reached the payer")
		assert.Error(t, e.Err, "the failure of the last attempt")
		nonce := nonceOf(t, e.ID)
		assert.True(t, stack.Chain.authorizationState(ctx, t, signer.Address(), nonce),
			"the authorization in doubt %s settled on chain", e.ID)
		nonces[nonce] = true
	}
	require.Len(t, nonces, n, "each fetch signed an authorization of its own")
	assert.Equal(t, nonces, sentNonces(t, recorder), "the payer sent no other authorization than those in doubt")
	assert.GreaterOrEqual(t, proxy.Dropped(), n, "every paid request reached the server")

	used := stack.Chain.authorizationsUsed(ctx, t)
	require.Len(t, used, n, "the chain shows one settlement per fetch")
	for _, u := range used {
		assert.Equal(t, signer.Address(), u.Authorizer.Hex())
		assert.True(t, nonces[u.Nonce], "settled nonce %x was not one in doubt", u.Nonce)
	}
	total := big.NewInt(n * price)
	assert.Equal(t, new(big.Int).Sub(big.NewInt(startFunds), total).String(), stack.Chain.balanceOf(ctx, t, signer.Address()).String())
	assert.Equal(t, total.String(), stack.Chain.balanceOf(ctx, t, payTo).String())

	assert.Equal(t, 0, budgettest.Spent(t, payer).Sign(), "spent %s: nothing is committed without an answer", budgettest.Spent(t, payer))
	assert.Equal(t, 0, budgettest.Reserved(t, payer).Cmp(total), "reserved %s, want %s", budgettest.Reserved(t, payer), total)
}

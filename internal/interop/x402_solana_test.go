package interop_test

import (
	"context"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// svmEnv names client.mjs's Solana key (base58, 64 bytes) and its node.
const (
	svmSecretEnv = "X402_INTEROP_SVM_SECRET"
	svmRPCEnv    = "X402_INTEROP_SVM_RPC"
)

// solanaRail is a litesvm node and a treasury wallet whose USDC account exists on it (the
// reference facilitator refuses a payment that would create it).
type solanaRail struct {
	node     *solanaNode
	treasury solana.PublicKey
}

// startSolanaRail starts a node and opens a treasury on it.
func startSolanaRail(t testing.TB) *solanaRail {
	t.Helper()
	node := startSolanaNode(t)
	treasury := solana.NewWallet().PublicKey()
	node.setUSDC(t, treasury, 0)
	return &solanaRail{node: node, treasury: treasury}
}

// svmConfig is the server.mjs configuration of a Solana offer of price to the treasury.
func (r *solanaRail) svmConfig() *jsSVMConfig {
	return &jsSVMConfig{RPC: r.node.URL, PayTo: r.treasury.String(), Amount: big.NewInt(price).String()}
}

// exactSolana returns the Solana exact scheme of signer, reading the chain from r's node.
func (r *solanaRail) exactSolana(t testing.TB, signer svm.Signer) x402.Scheme {
	t.Helper()
	n, err := svm.NewNode(r.node.RPC)
	require.NoError(t, err)
	scheme, err := svm.NewExact(signer, n)
	require.NoError(t, err)
	return scheme
}

// lookup returns the lookup of Solana x402 payments on r's node.
func (r *solanaRail) lookup(t *testing.T) *svm.Lookup {
	t.Helper()
	n, err := svm.NewNode(r.node.RPC)
	require.NoError(t, err)
	l, err := svm.NewLookup(n, svm.ForNetworks(svm.NetworkMainnet))
	require.NoError(t, err)
	return l
}

// paidGet fetches url with client and returns the body and the receipt of a paid 200.
func paidGet(ctx context.Context, t *testing.T, client *http.Client, url string) ([]byte, *wire.SettleResponse) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "body: %s", body)
	receipt, ok := x402.ReceiptFrom(resp)
	require.True(t, ok, "a paid answer carries a readable PAYMENT-RESPONSE")
	require.True(t, receipt.Success)
	return body, receipt
}

// assertSettledOnChain checks that the transaction a receipt names landed on the node,
// paid for by the facilitator's fee payer and signed by the payer as the transfer's
// authority, with one memo.
func assertSettledOnChain(t *testing.T, node *solanaNode, receipt *wire.SettleResponse, feePayer string, payer solana.PublicKey) {
	t.Helper()
	sig, err := solana.SignatureFromBase58(receipt.Transaction)
	require.NoError(t, err, "the receipt names a Solana transaction: %q", receipt.Transaction)
	res := node.transaction(t, sig)
	assert.Nil(t, res.Meta.Err, "the transaction succeeded")
	tx, err := res.Transaction.GetTransaction()
	require.NoError(t, err)
	require.Len(t, tx.Signatures, 2, "the fee payer's signature and the payer's")
	assert.Equal(t, feePayer, tx.Message.AccountKeys[0].String(), "the facilitator pays the fee")
	assert.Equal(t, payer, tx.Message.AccountKeys[1], "the payer signs second")
	assert.Equal(t, 1, strings.Count(strings.Join(res.Meta.LogMessages, "\n"), "Program log: Memo ("), "one memo")
}

// The SDK pays the reference resource server (the @x402/express middleware and the
// reference facilitator of @x402/svm) on the litesvm runtime: ten paid fetches settle, the
// payer's and the treasury's USDC move by exactly what the budget counts as spent, and the
// payer, who holds no SOL, pays no fee. Payments the policy or the budget refuse are never
// signed and move nothing.
func TestSolanaGoPayerAgainstReferenceServer(t *testing.T) {
	t.Parallel()
	js := requireNode(t)
	rail := startSolanaRail(t)
	ctx := testContext(t)
	srv := startJSServer(ctx, t, js, jsServerConfig{SVM: rail.svmConfig()})
	require.NotNil(t, srv.SVM, "server.mjs offers Solana")
	require.Equal(t, svm.NetworkMainnet, srv.SVM.Network)
	require.Equal(t, gpuprice.USDCMint.String(), srv.SVM.Asset)

	signer, wallet := solanaPayer(t, rail.node, startFunds, 0)
	policy := x402.Policy{
		MaxPerPayment: big.NewInt(price),
		MaxTotal:      big.NewInt(paidFetches * price),
		PayTo:         []string{rail.treasury.String()},
		Networks:      []string{svm.NetworkMainnet},
	}
	payerPolicy, budgetOpts := budgettest.ForPayer(t, policy, nil)
	payer, err := x402.NewPayer(payerPolicy, []x402.Scheme{rail.exactSolana(t, signer)}, budgetOpts...)
	require.NoError(t, err)
	rec := &recordingTransport{next: newTransport(t)}
	client := &http.Client{Transport: payer.RoundTripper(rec)}

	seen := map[string]bool{}
	for i := range paidFetches {
		body, receipt := paidGet(ctx, t, client, srv.URL+"/paid")
		assert.JSONEq(t, string(srv.Body), string(body), "fetch %d", i)
		assert.Equal(t, svm.NetworkMainnet, receipt.Network)
		assert.Equal(t, wallet.String(), receipt.Payer)
		assert.False(t, seen[receipt.Transaction], "fetch %d settled in a transaction of its own", i)
		seen[receipt.Transaction] = true
		assertSettledOnChain(t, rail.node, receipt, srv.SVM.FeePayer, wallet)
	}
	require.Len(t, rec.sent(), paidFetches, "one payment a fetch, none re-sent")

	spent := budgettest.Spent(t, payer)
	assert.Equal(t, big.NewInt(paidFetches*price).String(), spent.String())
	assert.Zero(t, budgettest.Reserved(t, payer).Sign())
	assert.Empty(t, budgettest.Outstanding(t, payer))
	assert.Equal(t, startFunds-spent.Uint64(), rail.node.usdc(t, wallet), "the payer's USDC moved by what was spent")
	assert.Equal(t, spent.Uint64(), rail.node.usdc(t, rail.treasury), "the treasury received what was spent")
	assert.Zero(t, rail.node.sol(t, wallet), "the payer holds no SOL and paid no fee")

	// The budget is spent: the next payment is refused before anything is signed.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/paid", nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	if resp != nil {
		_ = resp.Body.Close()
	}
	var limit *budget.LimitError
	require.ErrorAs(t, err, &limit)
	assert.Len(t, rec.sent(), paidFetches, "nothing was signed")

	refused := []struct {
		name   string
		policy func(p *x402.Policy)
		rule   error
	}{
		{"price over the per-payment cap", func(p *x402.Policy) { p.MaxPerPayment = big.NewInt(price - 1) }, x402.ErrAmountOverCap},
		{"payee not in the policy", func(p *x402.Policy) { p.PayTo = []string{wallet.String()} }, x402.ErrPayToNotAllowed},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			p := policy
			tc.policy(&p)
			p, budgetOpts := budgettest.ForPayer(t, p, nil)
			refusing, err := x402.NewPayer(p, []x402.Scheme{rail.exactSolana(t, signer)}, budgetOpts...)
			require.NoError(t, err)
			rec := &recordingTransport{next: newTransport(t)}
			client := &http.Client{Transport: refusing.RoundTripper(rec)}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/paid", nil)
			require.NoError(t, err)
			resp, err := client.Do(req)
			if resp != nil {
				_ = resp.Body.Close()
			}
			var policyErr *x402.PolicyError
			require.ErrorAs(t, err, &policyErr)
			assert.ErrorIs(t, policyErr.Rule, tc.rule)
			assert.Empty(t, rec.sent(), "nothing may be signed")
			assert.Zero(t, budgettest.Spent(t, refusing).Sign())
			assert.Zero(t, budgettest.Reserved(t, refusing).Sign())
			assert.Equal(t, startFunds-spent.Uint64(), rail.node.usdc(t, wallet), "nothing moved")
			assert.Equal(t, spent.Uint64(), rail.node.usdc(t, rail.treasury), "nothing moved")
		})
	}
}

// A seller's memo and a blockhash in the offer: the SDK's transaction carries the memo
// exactly, and the reference facilitator settles it.
func TestSolanaGoPayerPaysASellersMemo(t *testing.T) {
	t.Parallel()
	js := requireNode(t)
	rail := startSolanaRail(t)
	ctx := testContext(t)
	cfg := rail.svmConfig()
	cfg.Memo, cfg.RecentBlockhash = "order-4711", true
	srv := startJSServer(ctx, t, js, jsServerConfig{SVM: cfg})

	signer, wallet := solanaPayer(t, rail.node, startFunds, 0)
	payer, err := x402.NewPayer(x402.Policy{MaxPerPayment: big.NewInt(price), MaxTotal: big.NewInt(price)},
		[]x402.Scheme{rail.exactSolana(t, signer)})
	require.NoError(t, err)
	client := &http.Client{Transport: payer.RoundTripper(newTransport(t))}
	_, receipt := paidGet(ctx, t, client, srv.URL+"/paid")
	assertSettledOnChain(t, rail.node, receipt, srv.SVM.FeePayer, wallet)

	res := rail.node.transaction(t, solana.MustSignatureFromBase58(receipt.Transaction))
	assert.Contains(t, strings.Join(res.Meta.LogMessages, "\n"), "Program log: Memo (len 10)\nProgram log: order-4711\n",
		"the Memo program logged exactly the seller's memo")
	assert.Equal(t, uint64(startFunds-price), rail.node.usdc(t, wallet))
	assert.Equal(t, uint64(price), rail.node.usdc(t, rail.treasury))
}

// A reference server that takes USDC on Base and on Solana, EVM first: a payer holding
// both schemes pays the server's first offer unless told otherwise, and the rail its
// preference names when given one. Each payment moves money on its own chain only.
func TestDualRailOffersArePaidOnThePreferredRail(t *testing.T) {
	t.Parallel()
	js, anvil := requireNode(t), requireAnvil(t)
	rail := startSolanaRail(t)
	ctx := testContext(t)

	evmSigner, err := evm.NewPrivateKeySigner(goPayerKey)
	require.NoError(t, err)
	solSigner, wallet := solanaPayer(t, rail.node, startFunds, 0)
	stack := startReferenceStack(ctx, t, js, anvil, jsServerConfig{
		PayTo:             payTo,
		Amount:            big.NewInt(price).String(),
		Fund:              map[string]string{evmSigner.Address(): big.NewInt(startFunds).String()},
		MaxTimeoutSeconds: 60,
		SVM:               rail.svmConfig(),
		Order:             []string{"evm", "svm"},
	})
	srv, chain := stack.Server, stack.Chain

	policy := x402.Policy{
		MaxPerPayment: big.NewInt(price),
		MaxTotal:      big.NewInt(10 * price),
		PayTo:         []string{payTo, rail.treasury.String()},
		Networks:      []string{evm.NetworkBase, svm.NetworkMainnet},
	}
	for _, tc := range []struct {
		name       string
		preference []string
		network    string
	}{
		{"the server's order", nil, evm.NetworkBase},
		{"Solana preferred", []string{"solana:*"}, svm.NetworkMainnet},
		{"Base preferred by network", []string{evm.NetworkBase}, evm.NetworkBase},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evmBefore := chain.balanceOf(ctx, t, evmSigner.Address())
			solBefore := rail.node.usdc(t, wallet)
			schemes := append(exactEVM(t, evmSigner), rail.exactSolana(t, solSigner))
			opts := []x402.PayerOption{}
			if tc.preference != nil {
				opts = append(opts, x402.WithPreference(tc.preference...))
			}
			payer, err := x402.NewPayer(policy, schemes, opts...)
			require.NoError(t, err)
			client := &http.Client{Transport: payer.RoundTripper(newTransport(t))}
			_, receipt := paidGet(ctx, t, client, srv.URL+"/paid")
			assert.Equal(t, tc.network, receipt.Network)
			assert.Equal(t, big.NewInt(price).String(), budgettest.Spent(t, payer).String())

			evmMoved := new(big.Int).Sub(evmBefore, chain.balanceOf(ctx, t, evmSigner.Address()))
			solMoved := solBefore - rail.node.usdc(t, wallet)
			if tc.network == svm.NetworkMainnet {
				assert.Zero(t, evmMoved.Sign(), "nothing moved on Base")
				assert.Equal(t, uint64(price), solMoved)
				assertSettledOnChain(t, rail.node, receipt, srv.SVM.FeePayer, wallet)
			} else {
				assert.Equal(t, big.NewInt(price).String(), evmMoved.String())
				assert.Zero(t, solMoved, "nothing moved on Solana")
				assert.Equal(t, evmSigner.Address(), receipt.Payer)
			}
		})
	}
}

// Payments over Solana whose answers are lost after the reference facilitator settled
// them stay in doubt, counted; one lookup on the runtime commits each, so that what the
// budget spent is what left the payer's account. A payment lost before it reached the
// server stays counted until its blockhash can no longer land, on the chain and on the
// clock, and is then given back.
func TestSolanaReconcileAfterLostAnswers(t *testing.T) {
	t.Parallel()
	js := requireNode(t)
	rail := startSolanaRail(t)
	ctx := testContext(t)
	srv := startJSServer(ctx, t, js, jsServerConfig{SVM: rail.svmConfig()})
	dropping := startSettleDroppingProxy(t, srv.URL)
	losing := startLosingProxy(t, srv.URL)

	signer, wallet := solanaPayer(t, rail.node, startFunds, 0)
	clock := &shiftedClock{}
	spend := budgettest.NewBudget(t, budgettest.Selected(t), big.NewInt(10*price), clock)
	payer, err := x402.NewPayer(x402.Policy{
		MaxPerPayment: big.NewInt(price),
		PayTo:         []string{rail.treasury.String()},
		Networks:      []string{svm.NetworkMainnet},
	}, []x402.Scheme{rail.exactSolana(t, signer)}, x402.WithBudget(spend), x402.WithClock(clock))
	require.NoError(t, err)
	client := &http.Client{Transport: payer.RoundTripper(newTransport(t))}

	const settled = 3
	inDoubt := fetchInDoubt(ctx, t, client, dropping.URL+"/paid", settled)
	lost := fetchInDoubt(ctx, t, client, losing+"/paid", 1)[0]
	require.Len(t, budgettest.Outstanding(t, spend), settled+1)
	assert.Zero(t, budgettest.Spent(t, spend).Sign())
	assert.Equal(t, big.NewInt((settled+1)*price).String(), budgettest.Reserved(t, spend).String())
	left := startFunds - rail.node.usdc(t, wallet)
	assert.Equal(t, uint64(settled*price), left, "the runtime settled the payments whose answers were lost")

	r, err := reconcile.New(spend, reconcile.WithLookup(rail.lookup(t)), reconcile.WithClock(clock), reconcile.WithRate(100))
	require.NoError(t, err)
	rep, err := r.Reconcile(ctx)
	require.NoError(t, err)
	require.NoError(t, rep.Err())
	require.Len(t, rep.Committed, settled)
	committed := map[string]bool{}
	for _, c := range rep.Committed {
		committed[c.ID] = true
		assert.NotEmpty(t, c.Transaction, "committed with the transaction that settled it")
	}
	for _, e := range inDoubt {
		assert.True(t, committed[e.ID], "payment %s was committed", e.ID)
	}
	require.Len(t, rep.Pending, 1)
	assert.Equal(t, lost.ID, rep.Pending[0].ID)
	assert.Equal(t, reconcile.Pending, rep.Pending[0].Chain, "its blockhash could still land it")
	assert.Equal(t, big.NewInt(int64(left)).String(), budgettest.Spent(t, spend).String(), "Spent is what left the payer's account")
	assert.Equal(t, big.NewInt(price).String(), budgettest.Reserved(t, spend).String())

	// The runtime finalizes past every height at which the lost payment could land; the
	// clock has not passed its expiry: it stays counted.
	rail.node.call(t, "test_advanceSlots", 200)
	rep, err = r.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Pending, 1)
	assert.Equal(t, reconcile.NotSettled, rep.Pending[0].Chain)
	assert.Equal(t, big.NewInt(price).String(), budgettest.Reserved(t, spend).String())

	clock.add(time.Hour)
	rep, err = r.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, rep.Released, 1)
	assert.Equal(t, lost.ID, rep.Released[0].ID)
	assert.Zero(t, budgettest.Reserved(t, spend).Sign())
	assert.Equal(t, big.NewInt(int64(left)).String(), budgettest.Spent(t, spend).String())
	assert.Equal(t, uint64(settled*price), rail.node.usdc(t, rail.treasury), "only the settled payments reached the treasury")
}

// The reference client (@x402/fetch with @x402/svm's exact scheme) pays the SDK's x402test
// server over Solana, reading the mint and a blockhash from the server's own JSON-RPC
// node; the fake facilitator settles it on its ledger. The payments the reference client
// forges are refused with the reference facilitator's codes.
func TestReferenceClientPaysX402testOverSolana(t *testing.T) {
	t.Parallel()
	js := requireNode(t)
	ctx := testContext(t)
	treasury := solana.NewWallet().PublicKey().String()
	srv := x402test.NewServer(x402test.WithPaywall(x402test.PaywallConfig{
		PayTo: treasury, Network: svm.NetworkMainnet, Amount: big.NewInt(price),
	}))
	t.Cleanup(srv.Close)
	key := solana.NewWallet().PrivateKey
	scan.Add(key.String())
	wallet := key.PublicKey().String()
	f := srv.Facilitator()
	f.Fund(wallet, big.NewInt(startFunds))
	env := []string{svmSecretEnv + "=" + key.String(), svmRPCEnv + "=" + srv.SolanaURL()}

	var out struct {
		Address string `json:"address"`
		jsPayment
	}
	runJSClientWith(ctx, t, js, env, &out, "pay", srv.URL+"/report")
	assert.Equal(t, wallet, out.Address)
	require.Equal(t, http.StatusOK, out.Status, "body: %s", out.Body)
	require.NotNil(t, out.PaymentResponse, "the answer carries a PAYMENT-RESPONSE the reference client decodes")
	assert.True(t, out.PaymentResponse.Success)
	assert.Equal(t, wallet, out.PaymentResponse.Payer)
	assert.Equal(t, svm.NetworkMainnet, out.PaymentResponse.Network)

	settlements := f.Settlements()
	require.Len(t, settlements, 1)
	s := settlements[0]
	assert.Equal(t, wallet, s.From)
	assert.Equal(t, treasury, s.To)
	assert.Equal(t, big.NewInt(price).String(), s.Value.String())
	assert.Equal(t, s.TxHash, out.PaymentResponse.Transaction)
	assert.Equal(t, uint64(startFunds-price), f.TokenBalance(gpuprice.USDCMint.String(), wallet))
	assert.Equal(t, uint64(price), f.TokenBalance(gpuprice.USDCMint.String(), treasury))

	var attack struct {
		Address string               `json:"address"`
		Results map[string]jsPayment `json:"results"`
	}
	runJSClientWith(ctx, t, js, env, &attack, "attack", srv.URL+"/report")
	assert.Equal(t, http.StatusOK, attack.Results["valid"].Status)
	for name, want := range map[string]string{
		"tampered-amount": svm.ReasonSignatureInvalid,
		"underpay":        svm.ReasonAmountMismatch,
		"wrong-recipient": svm.ReasonRecipientMismatch,
	} {
		got, ok := attack.Results[name]
		require.True(t, ok, "case %s ran", name)
		assert.Equal(t, http.StatusPaymentRequired, got.Status, "case %s", name)
		if assert.NotNil(t, got.Error, "case %s", name) {
			assert.Equal(t, want, *got.Error, "case %s", name)
		}
	}
	for _, name := range []string{"replay", "underpay-quote", "stale-blockhash"} {
		got, ok := attack.Results[name]
		require.True(t, ok, "case %s ran", name)
		assert.Equal(t, http.StatusPaymentRequired, got.Status, "case %s", name)
	}
	assert.Len(t, f.Settlements(), 2, "only the two valid payments settled")
	assert.Equal(t, uint64(startFunds-2*price), f.TokenBalance(gpuprice.USDCMint.String(), wallet))
}

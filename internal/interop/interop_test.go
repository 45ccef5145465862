package interop_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// Well-known development keys (Hardhat accounts 1 and 2): they hold nothing on
// any real chain and appear in countless public test suites.
const (
	goPayerKey  = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
	jsPayerKey  = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
	jsPayerAddr = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
)

const (
	payTo       = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	price       = 10_000 // 0.01 USDC
	startFunds  = 1_000_000
	testTimeout = 45 * time.Second
)

// reasonSimulationFailed is the reference facilitator's code for a payment whose
// transfer, simulated on the token contract, reverted for a reason its
// diagnosis does not name.
const reasonSimulationFailed = "invalid_exact_evm_transaction_simulation_failed"

// testContext returns a context bounding the whole test, cancelled after every
// cleanup registered later has run (so child processes stop gracefully first).
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// recordingTransport remembers the payment headers of the requests it sends.
type recordingTransport struct {
	next http.RoundTripper

	mu       sync.Mutex
	payments []string
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if v := req.Header.Get(wire.HeaderPaymentSignature); v != "" {
		rt.mu.Lock()
		rt.payments = append(rt.payments, v)
		rt.mu.Unlock()
	}
	return rt.next.RoundTrip(req)
}

func (rt *recordingTransport) sent() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]string(nil), rt.payments...)
}

// newTransport returns a transport of the test's own, closed when it ends.
func newTransport(t *testing.T) *http.Transport {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// sendPayment sends a GET with a ready-made PAYMENT-SIGNATURE header, as an
// attacker replaying or forging payments would, and returns the status and the
// reason of the server's new challenge.
func sendPayment(ctx context.Context, t *testing.T, client *http.Client, url, header string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set(wire.HeaderPaymentSignature, header)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusPaymentRequired {
		return resp.StatusCode, ""
	}
	challenge, err := wire.ReadPaymentRequired(resp)
	require.NoError(t, err)
	return resp.StatusCode, challenge.Error
}

// paidFetches is how many payments the SDK makes through the reference
// middleware in TestGoPayerAgainstReferenceMiddleware.
const paidFetches = 10

// The Go payer pays a route protected by the reference @x402/express
// middleware, whose reference EVM facilitator settles on Circle's USDC contract
// on anvil; the chain shows exactly what the payer counts as spent. Then
// payments forged from the accepted ones, payments the policy refuses and
// payments signed with a skewed clock move nothing.
func TestGoPayerAgainstReferenceMiddleware(t *testing.T) {
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
	srv, chain := stack.Server, stack.Chain
	require.Equal(t, evm.NetworkBase, srv.Network)
	require.Equal(t, evm.USDCBase, srv.Asset)

	policy := x402.Policy{
		MaxPerPayment: big.NewInt(price),
		MaxTotal:      big.NewInt(paidFetches * price),
		PayTo:         []string{payTo},
		Networks:      []string{evm.NetworkBase},
	}
	payerPolicy, budgetOpts := budgettest.ForPayer(t, policy, nil)
	payer, err := x402.NewPayer(payerPolicy, exactEVM(t, signer), budgetOpts...)
	require.NoError(t, err)
	plain := &http.Client{Transport: newTransport(t)}
	recorder := &recordingTransport{next: plain.Transport}
	paying := &http.Client{Transport: payer.RoundTripper(recorder)}
	paidURL := srv.URL + "/paid"

	receipts := make([]*wire.SettleResponse, 0, paidFetches)
	for i := range paidFetches {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, paidURL, nil)
		require.NoError(t, err)
		resp, err := paying.Do(req)
		require.NoError(t, err, "fetch %d", i)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, resp.Body.Close())
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "fetch %d, body: %s", i, body)
		assert.JSONEq(t, string(srv.Body), string(body))

		receipt, ok := x402.ReceiptFrom(resp)
		require.True(t, ok, "fetch %d: the answer must carry a readable PAYMENT-RESPONSE", i)
		assert.True(t, receipt.Success)
		assert.Equal(t, evm.NetworkBase, receipt.Network)
		assert.Equal(t, signer.Address(), receipt.Payer)
		receipts = append(receipts, receipt)
	}

	sent := recorder.sent()
	require.Len(t, sent, paidFetches, "the payer must have sent exactly one payment per fetch")
	payments := make([]*wire.PaymentPayload, len(sent))
	for i, header := range sent {
		p, err := wire.DecodePaymentPayload(header)
		require.NoError(t, err)
		payments[i] = p
	}
	accepted := payments[0]

	// The domain the payer signed under is the contract's own.
	require.Equal(t, evm.USDCBase, accepted.Accepted.Asset)
	assert.Equal(t, domainSeparator(t, accepted.Accepted), chain.domainSeparator(ctx, t),
		"the challenge's EIP-712 domain must be the one of USDC on Base")

	// Every nonce the payer signed settled, in the transaction its receipt names,
	// as a transfer of the quoted amount from the payer to the payee.
	payerAddr, payeeAddr := common.HexToAddress(signer.Address()), common.HexToAddress(payTo)
	for i, p := range payments {
		auth := exactOf(t, p).Authorization
		require.NotNil(t, p.Accepted.Amount)
		assert.Equal(t, big.NewInt(price).String(), p.Accepted.Amount.String())
		assert.True(t, chain.authorizationState(ctx, t, signer.Address(), auth.Nonce),
			"fetch %d: nonce %s is not used on chain", i, hex.EncodeToString(auth.Nonce[:]))
		s := chain.settlement(ctx, t, receipts[i].Transaction)
		assert.True(t, s.Succeeded, "fetch %d: transaction %s failed", i, receipts[i].Transaction)
		assert.Equal(t, []authorizationUsed{{Authorizer: payerAddr, Nonce: auth.Nonce, Tx: common.HexToHash(receipts[i].Transaction)}}, s.Used,
			"fetch %d: the receipt's transaction must use the fetch's authorization", i)
		assert.Equal(t, []transfer{{From: payerAddr, To: payeeAddr, Value: big.NewInt(price)}}, s.Transfers,
			"fetch %d: the receipt's transaction must move the price to the payee", i)
	}
	settled := chain.authorizationsUsed(ctx, t)
	assert.Len(t, settled, paidFetches, "the chain must show one settlement per fetch")

	spent := budgettest.Spent(t, payer)
	assert.Equal(t, 0, spent.Cmp(big.NewInt(paidFetches*price)), "spent %s", spent)
	assert.Equal(t, 0, budgettest.Reserved(t, payer).Sign(), "reserved %s", budgettest.Reserved(t, payer))
	assert.Equal(t, new(big.Int).Sub(big.NewInt(startFunds), spent).String(), chain.balanceOf(ctx, t, signer.Address()).String(),
		"the payer's balance must fall by what it counts as spent")
	assert.Equal(t, spent.String(), chain.balanceOf(ctx, t, payTo).String(),
		"the payee's balance must rise by what the payer counts as spent")
	afterPaying := chain.snapshot(ctx, t, signer.Address(), payTo)

	// Forged payments, sent by hand with plain net/http. Each must get a 402
	// whose reason is the reference facilitator's code for the fault, and move
	// nothing on chain. log, when set, is what the server's log must then hold.
	forged := []struct {
		name   string
		header func(t *testing.T) string
		reason string
		log    string
	}{
		{
			name:   "replayed payment",
			header: func(*testing.T) string { return sent[0] },
			reason: evm.ReasonNonceAlreadyUsed,
		},
		{
			name: "reused nonce, new signature",
			header: func(t *testing.T) string {
				return resign(t, signer, accepted, func(a *evm.Authorization) {
					a.ValidBefore = new(big.Int).Add(a.ValidBefore, big.NewInt(1))
				})
			},
			reason: evm.ReasonNonceAlreadyUsed,
		},
		{
			name: "value changed after signing",
			header: func(t *testing.T) string {
				p := clonePayload(t, accepted)
				e := exactOf(t, p)
				e.Authorization.Nonce = randomNonce(t)
				e.Authorization.Value = big.NewInt(price - 1)
				setExact(t, p, e)
				return encode(t, p)
			},
			reason: evm.ReasonInvalidSignature,
		},
		{
			name: "validly signed for less than the price",
			header: func(t *testing.T) string {
				return resign(t, signer, accepted, func(a *evm.Authorization) {
					a.Nonce = randomNonce(t)
					a.Value = big.NewInt(price / 2)
				})
			},
			reason: evm.ReasonValueMismatch,
		},
		{
			name: "validly signed after its window closed",
			header: func(t *testing.T) string {
				now := time.Now().Unix()
				return resign(t, signer, accepted, func(a *evm.Authorization) {
					a.Nonce = randomNonce(t)
					a.ValidAfter = big.NewInt(now - 3600)
					a.ValidBefore = big.NewInt(now - 60)
				})
			},
			reason: evm.ReasonValidBefore,
		},
		{
			// A valid signature re-encoded with v = 0/1 instead of 27/28. The
			// facilitator's own check passes it (viem recovers the payer from
			// either form), but FiatToken's ECRecover reverts "ECRecover: invalid
			// signature 'v' value": the facilitator's simulation of the transfer
			// on the contract refuses it at verification, before any transaction.
			name: "valid signature with v = 0/1",
			header: func(t *testing.T) string {
				p, err := wire.DecodePaymentPayload(resign(t, signer, accepted, func(a *evm.Authorization) {
					a.Nonce = randomNonce(t)
				}))
				require.NoError(t, err)
				e := exactOf(t, p)
				sig := e.Signature
				require.Len(t, sig, 65)
				require.Contains(t, []byte{27, 28}, sig[64])
				sig[64] -= 27
				setExact(t, p, e)
				return encode(t, p)
			},
			reason: reasonSimulationFailed,
			log:    "ECRecover: invalid signature 'v' value",
		},
	}
	for _, tc := range forged {
		t.Run(tc.name, func(t *testing.T) {
			status, reason := sendPayment(ctx, t, plain, paidURL, tc.header(t))
			assert.Equal(t, http.StatusPaymentRequired, status)
			assert.Equal(t, tc.reason, reason)
			if tc.log != "" {
				// The server writes its log line as it answers: wait for the pipe to deliver it.
				assert.Eventually(t, func() bool { return strings.Contains(srv.log(), tc.log) }, 10*time.Second, 20*time.Millisecond,
					"the server's log names the contract's refusal %q", tc.log)
			}
			chain.assertUnchanged(ctx, t, afterPaying)
		})
	}

	// Payments the policy refuses are never signed: a price over the
	// per-payment cap, and a payee the policy does not list.
	refused := []struct {
		name   string
		policy func(p *x402.Policy)
		rule   error
	}{
		{"price over the per-payment cap", func(p *x402.Policy) { p.MaxPerPayment = big.NewInt(price - 1) }, x402.ErrAmountOverCap},
		{"payee not in the policy", func(p *x402.Policy) { p.PayTo = []string{jsPayerAddr} }, x402.ErrPayToNotAllowed},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			p := policy
			tc.policy(&p)
			p, budgetOpts := budgettest.ForPayer(t, p, nil)
			refusing, err := x402.NewPayer(p, exactEVM(t, signer), budgetOpts...)
			require.NoError(t, err)
			rec := &recordingTransport{next: plain.Transport}
			client := &http.Client{Transport: refusing.RoundTripper(rec)}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, paidURL, nil)
			require.NoError(t, err)
			resp, err := client.Do(req)
			if resp != nil {
				_ = resp.Body.Close()
			}
			var policyErr *x402.PolicyError
			require.ErrorAs(t, err, &policyErr)
			assert.ErrorIs(t, policyErr.Rule, tc.rule)
			assert.Empty(t, rec.sent(), "nothing may be signed")
			assert.Equal(t, 0, budgettest.Spent(t, refusing).Sign())
			assert.Equal(t, 0, budgettest.Reserved(t, refusing).Sign())
			chain.assertUnchanged(ctx, t, afterPaying)
		})
	}

	// Payers whose clocks are off sign windows the reference refuses; the payer
	// reports the refusal and counts nothing as spent.
	skewed := []struct {
		name   string
		skew   time.Duration
		reason string
	}{
		{"payer clock two hours behind (expired window)", -2 * time.Hour, evm.ReasonValidBefore},
		{"payer clock two hours ahead (window not open)", 2 * time.Hour, evm.ReasonValidAfter},
	}
	for _, tc := range skewed {
		t.Run(tc.name, func(t *testing.T) {
			clock := &shiftedClock{}
			clock.add(tc.skew)
			p, budgetOpts := budgettest.ForPayer(t, policy, clock)
			skewedPayer, err := x402.NewPayer(p, exactEVM(t, signer), append(budgetOpts, x402.WithClock(clock))...)
			require.NoError(t, err)
			client := &http.Client{Transport: skewedPayer.RoundTripper(plain.Transport)}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, paidURL, nil)
			require.NoError(t, err)
			resp, err := client.Do(req)
			if resp != nil {
				_ = resp.Body.Close()
			}
			var rejected *x402.PaymentRejectedError
			require.ErrorAs(t, err, &rejected)
			assert.Equal(t, tc.reason, rejected.Reason)
			assert.Equal(t, 0, budgettest.Spent(t, skewedPayer).Sign())
			chain.assertUnchanged(ctx, t, afterPaying)
		})
	}

	chain.assertUnchanged(ctx, t, afterPaying)
	assert.Equal(t, 0, budgettest.Spent(t, payer).Cmp(big.NewInt(paidFetches*price)))
}

// jsPayment is what client.mjs reports about one request.
type jsPayment struct {
	Status          int             `json:"status"`
	Body            json.RawMessage `json:"body"`
	Error           *string         `json:"error"`
	PaymentResponse *struct {
		Success     bool   `json:"success"`
		Transaction string `json:"transaction"`
		Network     string `json:"network"`
		Payer       string `json:"payer"`
		ErrorReason string `json:"errorReason"`
	} `json:"paymentResponse"`
}

const goPaidBody = `{"resource":"paid","message":"served behind the Go x402test paywall"}`

// startGoPaywall serves goPaidBody behind an x402test paywall charging price in
// Base Sepolia USDC, with the reference payer's address funded.
func startGoPaywall(t *testing.T) (*httptest.Server, *x402test.Facilitator) {
	t.Helper()
	f := x402test.NewFacilitator()
	f.Fund(jsPayerAddr, big.NewInt(startFunds))
	paid := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, goPaidBody)
	})
	paywall := x402test.NewPaywall(f, x402test.PaywallConfig{
		PayTo:             payTo,
		Network:           evm.NetworkBaseSepolia,
		Asset:             evm.USDCBaseSepolia,
		Amount:            big.NewInt(price),
		Name:              "USDC",
		Version:           "2",
		MaxTimeoutSeconds: 60,
		Description:       "interoperability test resource",
		MimeType:          "application/json",
	}, paid)
	srv := httptest.NewServer(paywall)
	t.Cleanup(srv.Close)
	return srv, f
}

func assertOneSettlement(t *testing.T, f *x402test.Facilitator) {
	t.Helper()
	settlements := f.Settlements()
	require.Len(t, settlements, 1, "exactly one payment must settle")
	s := settlements[0]
	assert.Equal(t, jsPayerAddr, s.From)
	assert.Equal(t, payTo, s.To)
	assert.Equal(t, 0, s.Value.Cmp(big.NewInt(price)), "settled %s", s.Value)
	assert.Equal(t, evm.NetworkBaseSepolia, s.Network)
	assert.Equal(t, evm.USDCBaseSepolia, s.Asset)
	assert.Equal(t, 0, f.Balance(jsPayerAddr).Cmp(big.NewInt(startFunds-price)), "payer balance %s", f.Balance(jsPayerAddr))
	assert.Equal(t, 0, f.Balance(payTo).Cmp(big.NewInt(price)), "recipient balance %s", f.Balance(payTo))
}

// The reference @x402/fetch client, signing with a viem account, pays the Go
// x402test paywall.
func TestReferenceFetchClientPaysGoPaywall(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	ctx := testContext(t)
	srv, f := startGoPaywall(t)

	var out struct {
		Address string `json:"address"`
		jsPayment
	}
	runJSClient(ctx, t, node, jsPayerKey, &out, "pay", srv.URL+"/report")

	assert.Equal(t, jsPayerAddr, out.Address, "viem and the Go signer must derive the same address")
	require.Equal(t, http.StatusOK, out.Status, "body: %s", out.Body)
	assert.JSONEq(t, goPaidBody, string(out.Body))
	require.NotNil(t, out.PaymentResponse, "the answer must carry a PAYMENT-RESPONSE the reference client can decode")
	assert.True(t, out.PaymentResponse.Success)
	assert.Equal(t, jsPayerAddr, out.PaymentResponse.Payer)
	assert.Equal(t, evm.NetworkBaseSepolia, out.PaymentResponse.Network)

	assertOneSettlement(t, f)
	assert.Equal(t, f.Settlements()[0].TxHash, out.PaymentResponse.Transaction)
}

// Payments forged with the reference client and viem are refused by the Go
// paywall: a replayed header, a reused nonce, a value changed after signing, a
// valid signature for less than the price (with and without the echoed quote
// lowered too), and windows that are closed or not yet open.
func TestGoPaywallRefusesForgedReferencePayments(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	ctx := testContext(t)
	srv, f := startGoPaywall(t)

	var out struct {
		Address string               `json:"address"`
		Results map[string]jsPayment `json:"results"`
	}
	runJSClient(ctx, t, node, jsPayerKey, &out, "attack", srv.URL+"/report")
	assert.Equal(t, jsPayerAddr, out.Address)

	valid, ok := out.Results["valid"]
	require.True(t, ok, "results: %+v", out.Results)
	require.Equal(t, http.StatusOK, valid.Status, "the unforged payment must be accepted")

	// Each forgery must be refused; the reason must name its fault (in the
	// reference facilitator's codes, which are the same on both sides).
	want := map[string][]string{
		"replay":         {evm.ReasonNonceAlreadyUsed},
		"nonce-reuse":    {evm.ReasonNonceAlreadyUsed},
		"tampered-value": {evm.ReasonValueMismatch, evm.ReasonInvalidSignature},
		"underpay":       {evm.ReasonValueMismatch},
		"underpay-quote": {x402test.ReasonNoMatch},
		"expired":        {evm.ReasonValidBefore},
		"not-yet-valid":  {evm.ReasonValidAfter},
	}
	assert.Len(t, out.Results, len(want)+1, "client.mjs ran other cases than expected: %+v", out.Results)
	for name, reasons := range want {
		t.Run(name, func(t *testing.T) {
			got, ok := out.Results[name]
			require.True(t, ok, "client.mjs did not run %q", name)
			assert.Equal(t, http.StatusPaymentRequired, got.Status)
			require.NotNil(t, got.Error, "the 402 must carry a PAYMENT-REQUIRED with the reason")
			assert.Contains(t, reasons, *got.Error)
			if got.PaymentResponse != nil {
				assert.False(t, got.PaymentResponse.Success)
			}
		})
	}

	assertOneSettlement(t, f)
}

// resign returns the PAYMENT-SIGNATURE header of a copy of p whose
// authorization edit changed, signed anew by signer over the EIP-712 digest
// computed independently of the x402 package (see typedDataDigest).
func resign(t *testing.T, signer *evm.PrivateKeySigner, p *wire.PaymentPayload, edit func(*evm.Authorization)) string {
	t.Helper()
	c := clonePayload(t, p)
	e := exactOf(t, c)
	edit(&e.Authorization)
	digest := typedDataDigest(t, c.Accepted, e.Authorization)
	sig, err := signer.SignDigest(digest)
	require.NoError(t, err)
	e.Signature = sig
	setExact(t, c, e)
	return encode(t, c)
}

// exactOf decodes the EVM exact authorization a payment payload carries.
func exactOf(t testing.TB, p *wire.PaymentPayload) *evm.ExactPayload {
	t.Helper()
	e, err := evm.DecodeExactPayload(p)
	require.NoError(t, err)
	return e
}

// setExact replaces the scheme payload of p with e's wire form.
func setExact(t testing.TB, p *wire.PaymentPayload, e *evm.ExactPayload) {
	t.Helper()
	raw, err := e.MarshalJSON()
	require.NoError(t, err)
	p.Payload = raw
}

// clonePayload deep-copies a payload through its wire form.
func clonePayload(t *testing.T, p *wire.PaymentPayload) *wire.PaymentPayload {
	t.Helper()
	v, err := wire.EncodePaymentPayload(p)
	require.NoError(t, err)
	c, err := wire.DecodePaymentPayload(v)
	require.NoError(t, err)
	return c
}

func encode(t *testing.T, p *wire.PaymentPayload) string {
	t.Helper()
	v, err := wire.EncodePaymentPayload(p)
	require.NoError(t, err)
	return v
}

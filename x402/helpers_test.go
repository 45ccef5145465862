package x402_test

import (
	"encoding/base64"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/signertest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// shopAddress receives the payments in these tests.
const shopAddress = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// newSigner returns an EVM signer of a new random key, which the secret scan knows.
func newSigner(t testing.TB) *evm.PrivateKeySigner { return signertest.NewEVM(t, scan) }

// newCountingSigner returns a signer of a new random key that counts its signatures, so
// tests can show that a refusal signed nothing; the secret scan sees each.
func newCountingSigner(t testing.TB) *signertest.EVM { return signertest.CountEVM(newSigner(t), scan) }

// exact returns the schemes of a payer paying with signer on EVM chains.
func exact(t testing.TB, signer evm.Signer) []x402.Scheme {
	t.Helper()
	scheme, err := evm.NewExact(signer)
	require.NoError(t, err)
	return []x402.Scheme{scheme}
}

// exactOf decodes the EVM "exact" payload of a payment: its authorization and signature.
func exactOf(t testing.TB, p *wire.PaymentPayload) *evm.ExactPayload {
	t.Helper()
	e, err := evm.DecodeExactPayload(p)
	require.NoError(t, err)
	return e
}

// newWallet returns a counting Solana wallet of a new random key, which the secret scan knows.
func newWallet(t testing.TB) *signertest.Solana { return signertest.NewSolana(t, scan) }

// solanaNode serves the Solana ledger of f and returns a node reading it, both closed when
// the test ends.
func solanaNode(t testing.TB, f *x402test.Facilitator) *svm.Node {
	t.Helper()
	rpc := httptest.NewServer(f.SolanaHandler())
	t.Cleanup(rpc.Close)
	node, err := svm.DialNode(rpc.URL)
	require.NoError(t, err)
	return node
}

// newSolanaAddress returns the address of a new Solana wallet, base58.
func newSolanaAddress() string { return solana.NewWallet().PublicKey().String() }

// headerLog records the payment headers a server received.
type headerLog struct {
	mu     sync.Mutex
	values []string
}

func (h *headerLog) add(v string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.values = append(h.values, v)
}

func (h *headerLog) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.values...)
}

// logPayments wraps next and records every PAYMENT-SIGNATURE or X-PAYMENT header.
func logPayments(log *headerLog, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get(wire.HeaderPaymentSignature); v != "" {
			log.add(v)
		} else if v := r.Header.Get(wire.HeaderPaymentV1); v != "" {
			log.add(v)
		}
		next.ServeHTTP(w, r)
	})
}

// okHandler answers 200 with a fixed body.
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	_, _ = io.WriteString(w, "the goods")
})

// shop is a paywalled test server with its facilitator and a log of payment headers.
type shop struct {
	srv      *httptest.Server
	f        *x402test.Facilitator
	payments *headerLog
}

// newShop starts a paywall server in front of next (okHandler when nil); the paywall's
// PayTo defaults to shopAddress.
func newShop(t *testing.T, cfg x402test.PaywallConfig, next http.Handler, opts ...x402test.FacilitatorOption) *shop {
	t.Helper()
	return newShopAt(t, x402test.NewFacilitator(opts...), cfg, next)
}

// newShopAt is newShop settling in f.
func newShopAt(t *testing.T, f *x402test.Facilitator, cfg x402test.PaywallConfig, next http.Handler) *shop {
	t.Helper()
	if next == nil {
		next = okHandler
	}
	if cfg.PayTo == "" && len(cfg.Offers) == 0 {
		cfg.PayTo = shopAddress
	}
	s := &shop{f: f, payments: &headerLog{}}
	s.srv = httptest.NewServer(logPayments(s.payments, x402test.NewPaywall(s.f, cfg, next)))
	t.Cleanup(s.srv.Close)
	return s
}

// newPayer returns a payer with a counting signer funded with funds at f, and an HTTP client
// paying through it (see newPayerAt).
func newPayer(t *testing.T, f *x402test.Facilitator, funds int64, policy x402.Policy, opts ...x402.PayerOption) (*x402.Payer, *signertest.EVM, *http.Client) {
	t.Helper()
	return newPayerAt(t, f, funds, policy, nil, opts...)
}

// newPayerAt is newPayer with the payer's clock (nil: the system clock). A policy with a
// MaxTotal makes the payer draw on a budget kept in the store budgettest.EnvStore names (see
// budgettest.ForPayer), on clock; a policy without one is for a payer given its budget with a
// WithBudget among opts.
func newPayerAt(t *testing.T, f *x402test.Facilitator, funds int64, policy x402.Policy, clock sdk.Clock, opts ...x402.PayerOption) (*x402.Payer, *signertest.EVM, *http.Client) {
	t.Helper()
	signer := newCountingSigner(t)
	if f != nil {
		f.Fund(signer.Address(), big.NewInt(funds))
	}
	var first []x402.PayerOption
	if policy.MaxTotal != nil {
		policy, first = budgettest.ForPayer(t, policy, clock)
	}
	if clock != nil {
		first = append(first, x402.WithClock(clock))
	}
	p, err := x402.NewPayer(policy, exact(t, signer), append(first, opts...)...)
	require.NoError(t, err)
	return p, signer, scanningClient(p)
}

// scanningClient returns an HTTP client paying through p, whose payments and errors the
// secret scan sees.
func scanningClient(p *x402.Payer) *http.Client {
	return &http.Client{Transport: scanningTransport{p.RoundTripper(scanningTransport{http.DefaultTransport})}}
}

// scanningTransport hands the secret scan every payment header it sends and every error it
// returns: inside the payer it sees the payments, outside it sees the payer's errors.
type scanningTransport struct{ next http.RoundTripper }

// RoundTrip sends req, recording its payment header and the error.
func (s scanningTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	scan.Add(req.Header.Get(wire.HeaderPaymentSignature), req.Header.Get(wire.HeaderPaymentV1))
	resp, err := s.next.RoundTrip(req)
	scan.Record(err)
	return resp, err
}

// get sends a GET to url with c and returns the status and body.
func get(t *testing.T, c *http.Client, url string) (*http.Response, string, error) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b), nil
}

// base64Std encodes s with standard padded base64.
func base64Std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// sharedBudget returns a budget without a total limit, in memory, for a payer given it with
// WithBudget.
func sharedBudget(t testing.TB) *budget.Budget {
	t.Helper()
	b, err := budget.New(budget.Unlimited)
	require.NoError(t, err)
	return b
}

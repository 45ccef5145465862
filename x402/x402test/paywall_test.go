package x402test_test

import (
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// counted returns a handler answering "content" and a counter of its calls.
func counted(status int) (http.Handler, *atomic.Int64) {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("X-Handler", "yes")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "content")
	}), &n
}

func TestPaywallChallenge(t *testing.T) {
	t.Parallel()
	next, calls := counted(http.StatusOK)
	srv := httptest.NewServer(x402test.NewPaywall(x402test.NewFacilitator(),
		x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(130000), Description: "report", MimeType: "text/html"}, next))
	t.Cleanup(srv.Close)

	resp, err := http.Get(srv.URL + "/report/1?format=html")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	assert.Equal(t, "{}", string(body))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Zero(t, calls.Load())

	pr, err := wire.ReadPaymentRequired(resp)
	require.NoError(t, err)
	assert.Equal(t, 2, pr.X402Version)
	assert.Equal(t, x402test.ReasonPaymentRequired, pr.Error)
	require.NotNil(t, pr.Resource)
	assert.Equal(t, srv.URL+"/report/1", pr.Resource.URL)
	assert.Equal(t, "report", pr.Resource.Description)
	assert.Equal(t, "text/html", pr.Resource.MimeType)
	require.Len(t, pr.Accepts, 1)
	r := pr.Accepts[0]
	assert.True(t, r.Usable(), r.Unusable)
	assert.Equal(t, evm.SchemeExact, r.Scheme)
	assert.Equal(t, evm.NetworkBase, r.Network)
	assert.Equal(t, big.NewInt(130000), r.Amount)
	assert.Equal(t, evm.USDCBase, r.Asset)
	assert.Equal(t, shopAddress, r.PayTo)
	assert.Equal(t, 60, r.MaxTimeoutSeconds)
	name, version, _ := evm.TokenDomain(&r)
	assert.Equal(t, "USD Coin", name)
	assert.Equal(t, "2", version)
}

func TestPaywallV1Challenge(t *testing.T) {
	t.Parallel()
	next, _ := counted(http.StatusOK)
	srv := httptest.NewServer(x402test.NewPaywall(x402test.NewFacilitator(),
		x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(5), ProtocolVersion: 1}, next))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/a")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	assert.Empty(t, resp.Header.Get(wire.HeaderPaymentRequired))
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	assert.Equal(t, float64(1), body["x402Version"])
	entry := body["accepts"].([]any)[0].(map[string]any)
	assert.Equal(t, "5", entry["maxAmountRequired"])
	assert.Equal(t, "base", entry["network"])
	assert.Equal(t, srv.URL+"/a", entry["resource"])
}

func TestPaywallWithPayer(t *testing.T) {
	t.Parallel()
	f := x402test.NewFacilitator()
	next, calls := counted(http.StatusOK)
	srv := httptest.NewServer(x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(250)}, next))
	t.Cleanup(srv.Close)
	signer := newSigner(t)
	f.Fund(signer.Address(), big.NewInt(900))
	payer := newPayer(t, signer, x402.Policy{})
	client := &http.Client{Transport: payer.RoundTripper(nil)}

	for i := range 3 {
		resp, err := client.Get(srv.URL + "/x")
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "content", string(body))
		assert.Equal(t, "yes", resp.Header.Get("X-Handler"))
		receipt, ok := x402.ReceiptFrom(resp)
		require.True(t, ok)
		assert.Equal(t, f.Settlements()[i].TxHash, receipt.Transaction)
	}
	assert.Equal(t, int64(3), calls.Load())
	assert.Equal(t, big.NewInt(750), budgettest.Spent(t, payer))
	assert.Equal(t, big.NewInt(150), f.Balance(signer.Address()))
	assert.Equal(t, big.NewInt(750), f.Balance(shopAddress))

	// The fourth payment is beyond the balance: the facilitator refuses and the handler does
	// not run. The payee still holds the signed authorization, so the payer counts it until
	// it expires.
	_, err := client.Get(srv.URL + "/x")
	var rej *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rej)
	assert.Equal(t, evm.ReasonInsufficientBalance, rej.Reason)
	assert.Equal(t, int64(3), calls.Load())
	assert.Equal(t, big.NewInt(750), budgettest.Spent(t, payer))
	assert.Equal(t, big.NewInt(250), budgettest.Reserved(t, payer))
}

func TestPaywallDoesNotSettleFailedResponses(t *testing.T) {
	t.Parallel()
	f := x402test.NewFacilitator()
	next, calls := counted(http.StatusNotFound)
	srv := httptest.NewServer(x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(250)}, next))
	t.Cleanup(srv.Close)
	signer := newSigner(t)
	f.Fund(signer.Address(), big.NewInt(1000))
	payer := newPayer(t, signer, x402.Policy{})
	client := &http.Client{Transport: payer.RoundTripper(nil)}
	// A failure answer to a paid request is an error, not a plain answer, and carries the
	// server's text.
	_, err := client.Get(srv.URL + "/missing")
	var rej *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rej)
	assert.Equal(t, http.StatusNotFound, rej.StatusCode)
	assert.Nil(t, rej.Settlement)
	assert.Equal(t, int64(1), calls.Load())
	assert.Empty(t, f.Settlements())
	assert.Equal(t, big.NewInt(1000), f.Balance(signer.Address()))
	// The payee still holds a valid authorization: it stays counted until it expires.
	assert.Zero(t, budgettest.Spent(t, payer).Sign())
	assert.Equal(t, big.NewInt(250), budgettest.Reserved(t, payer))
}

func TestPaywallPricesPerRequest(t *testing.T) {
	t.Parallel()
	next, calls := counted(http.StatusOK)
	price := func(r *http.Request) *big.Int {
		if r.URL.Path == "/free" {
			return nil
		}
		return big.NewInt(10)
	}
	srv := httptest.NewServer(x402test.NewPaywall(x402test.NewFacilitator(), x402test.PaywallConfig{PayTo: shopAddress, Price: price}, next))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/free")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp, err = http.Get(srv.URL + "/paid")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	assert.Equal(t, int64(1), calls.Load())
}

func TestPaywallRefusesBadPayments(t *testing.T) {
	t.Parallel()
	f := x402test.NewFacilitator()
	next, calls := counted(http.StatusOK)
	srv := httptest.NewServer(x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100)}, next))
	t.Cleanup(srv.Close)
	s := newSigner(t)
	f.Fund(s.Address(), big.NewInt(1000))

	encode := func(amount int64, version int) string {
		pr, _ := requirements(amount)
		pr.X402Version = version
		p, err := evm.SignExact(s, pr, &pr.Accepts[0], start)
		require.NoError(t, err)
		v, err := wire.EncodePaymentPayload(p)
		require.NoError(t, err)
		return v
	}
	for name, tc := range map[string]struct {
		header, value, reason string
	}{
		"garbage":        {wire.HeaderPaymentSignature, "garbage", x402test.ReasonInvalidPayload},
		"v1 payload":     {wire.HeaderPaymentSignature, encode(100, 1), x402test.ReasonInvalidVersion},
		"other amount":   {wire.HeaderPaymentSignature, encode(99, 2), x402test.ReasonNoMatch},
		"expired":        {wire.HeaderPaymentSignature, encode(100, 2), evm.ReasonValidBefore}, // signed at start, long ago
		"v1 header name": {wire.HeaderPaymentV1, encode(100, 2), x402test.ReasonPaymentRequired},
	} {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
		require.NoError(t, err)
		req.Header.Set(tc.header, tc.value)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusPaymentRequired, resp.StatusCode, name)
		pr, err := wire.ReadPaymentRequired(resp)
		require.NoError(t, err, name)
		assert.Equal(t, tc.reason, pr.Error, name)
	}
	assert.Zero(t, calls.Load())
	assert.Empty(t, f.Settlements())
}

func TestNewPaywallPanicsOnBadConfig(t *testing.T) {
	t.Parallel()
	f := x402test.NewFacilitator()
	next, _ := counted(http.StatusOK)
	for name, cfg := range map[string]x402test.PaywallConfig{
		"no payTo":         {Amount: big.NewInt(1)},
		"bad payTo":        {PayTo: "0xzz9693Bc6afc0C5328bA36FaF03C514EF312287C", Amount: big.NewInt(1)},
		"no price":         {PayTo: shopAddress},
		"unknown network":  {PayTo: shopAddress, Amount: big.NewInt(1), Network: "eip155:1"},
		"protocol version": {PayTo: shopAddress, Amount: big.NewInt(1), ProtocolVersion: 3},
	} {
		assert.Panics(t, func() { x402test.NewPaywall(f, cfg, next) }, name)
	}
	assert.Panics(t, func() {
		x402test.NewPaywall(nil, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(1)}, next)
	})
}

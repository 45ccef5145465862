package wire_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/spectest"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

// response402 builds a 402 response with the given PAYMENT-REQUIRED header (none when empty)
// and body.
func response402(header, body string) *http.Response {
	resp := &http.Response{StatusCode: http.StatusPaymentRequired, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body))}
	if header != "" {
		resp.Header.Set(wire.HeaderPaymentRequired, header)
	}
	return resp
}

func TestParseSpecChallenge(t *testing.T) {
	t.Parallel()
	pr, err := wire.ReadPaymentRequired(response402(spectest.Header(t, "spec_payment_required.b64"), "{}"))
	require.NoError(t, err)
	assert.Equal(t, 2, pr.X402Version)
	assert.Equal(t, "PAYMENT-SIGNATURE header is required", pr.Error)
	require.NotNil(t, pr.Resource)
	assert.Equal(t, "https://api.example.com/premium-data", pr.Resource.URL)
	assert.Equal(t, "Access to premium market data", pr.Resource.Description)
	assert.Equal(t, "application/json", pr.Resource.MimeType)
	require.Len(t, pr.Accepts, 1)
	r := pr.Accepts[0]
	assert.True(t, r.Usable(), r.Unusable)
	assert.Equal(t, "exact", r.Scheme)
	assert.Equal(t, "eip155:84532", r.Network)
	assert.Equal(t, big.NewInt(10000), r.Amount)
	assert.Equal(t, evm.USDCBaseSepolia, r.Asset)
	assert.Equal(t, "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", r.PayTo)
	assert.Equal(t, 60, r.MaxTimeoutSeconds)
	name, version, ok := evm.TokenDomain(&r)
	assert.True(t, ok)
	assert.Equal(t, "USDC", name)
	assert.Equal(t, "2", version)
	assert.JSONEq(t, `{"scheme":"exact","network":"eip155:84532","amount":"10000","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"extra":{"name":"USDC","version":"2"}}`, string(r.Raw))
}

func TestChallengeHeaderEncodings(t *testing.T) {
	t.Parallel()
	// "é?>" makes both '+' or '/' characters and padding likely; the check below makes sure
	// the four encodings really differ.
	js := `{"x402Version":2,"error":"caf\u00e9 ???>>>","resource":{"url":"https://h/p?a=b"},"accepts":[{"scheme":"exact","network":"eip155:8453","amount":"1","asset":"` +
		evm.USDCBase + `","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"extra":{"name":"USD Coin","version":"2"}}]}`
	js = strings.ReplaceAll(js, `\u00e9`, "é")
	std := base64.StdEncoding.EncodeToString([]byte(js))
	url := base64.URLEncoding.EncodeToString([]byte(js))
	require.NotEqual(t, std, url, "the fixture must exercise the URL alphabet")
	require.True(t, strings.HasSuffix(std, "="), "the fixture must exercise padding")
	for name, v := range map[string]string{
		"std":     std,
		"raw std": base64.RawStdEncoding.EncodeToString([]byte(js)),
		"url":     url,
		"raw url": base64.RawURLEncoding.EncodeToString([]byte(js)),
		"json":    js,
		"spaces":  "  " + std + " ",
	} {
		pr, err := wire.ReadPaymentRequired(response402(v, ""))
		require.NoError(t, err, name)
		assert.Equal(t, "café ???>>>", pr.Error, name)
		require.Len(t, pr.Accepts, 1, name)
		assert.True(t, pr.Accepts[0].Usable(), name)
	}
}

func TestParseV1BodyChallenge(t *testing.T) {
	t.Parallel()
	body := `{"x402Version":1,"error":"X-PAYMENT header is required","accepts":[{"scheme":"exact","network":"base-sepolia",` +
		`"maxAmountRequired":"10000","resource":"https://api.example.com/premium","description":"premium","mimeType":"application/json",` +
		`"outputSchema":{"type":"object"},"payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,` +
		`"asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","extra":{"name":"USDC","version":"2"}}]}`
	resp := response402("", body)
	pr, err := wire.ReadPaymentRequired(resp)
	require.NoError(t, err)
	assert.Equal(t, 1, pr.X402Version)
	assert.Nil(t, pr.Resource)
	require.Len(t, pr.Accepts, 1)
	r := pr.Accepts[0]
	assert.True(t, r.Usable(), r.Unusable)
	assert.Equal(t, big.NewInt(10000), r.Amount)
	assert.Equal(t, "base-sepolia", r.Network)
	assert.Equal(t, "https://api.example.com/premium", r.Resource)
	assert.Equal(t, "premium", r.Description)
	assert.JSONEq(t, `{"type":"object"}`, string(r.OutputSchema))

	// The body can still be read after parsing.
	rest, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, body, string(rest))
}

func TestUnusableEntriesAreMarkedAndOthersCount(t *testing.T) {
	t.Parallel()
	good := map[string]any{
		"scheme": "exact", "network": "eip155:8453", "amount": "10000", "asset": evm.USDCBase,
		"payTo": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "maxTimeoutSeconds": 60,
		"extra": map[string]any{"name": "USD Coin", "version": "2"},
	}
	with := func(key string, v any) map[string]any {
		m := make(map[string]any, len(good))
		for k, gv := range good {
			m[k] = gv
		}
		if v == nil {
			delete(m, key)
		} else {
			m[key] = v
		}
		return m
	}
	maxUint := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	tests := []struct {
		name   string
		entry  any
		reason string
	}{
		{"fractional amount", with("amount", "0.111"), "amount must be a non-negative decimal integer string"},
		{"negative amount", with("amount", "-5"), "amount must be a non-negative decimal integer string"},
		{"exponent amount", with("amount", "1e6"), "amount must be a non-negative decimal integer string"},
		{"hex amount", with("amount", "0x10"), "amount must be a non-negative decimal integer string"},
		{"empty amount", with("amount", ""), "amount must be a non-negative decimal integer string"},
		{"numeric amount", with("amount", 10000), "amount must be a string"},
		{"missing amount", with("amount", nil), "amount is missing"},
		{"79 digits", with("amount", strings.Repeat("9", 79)), "does not fit in a uint256"},
		{"2^256", with("amount", new(big.Int).Add(maxUint, big.NewInt(1)).String()), "does not fit in a uint256"},
		{"v1 network name", with("network", "base"), "not a CAIP-2 network id"},
		{"extra not an object", with("extra", "USD Coin"), "extra must be an object"},
		{"zero timeout", with("maxTimeoutSeconds", 0), "maxTimeoutSeconds must be a positive integer"},
		{"string timeout", with("maxTimeoutSeconds", "60"), "maxTimeoutSeconds must be a positive integer"},
		{"not an object", []int{1}, "entry is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			js, err := json.Marshal(map[string]any{"x402Version": 2, "resource": map[string]any{"url": "u"}, "accepts": []any{tt.entry, good}})
			require.NoError(t, err)
			pr, err := wire.DecodePaymentRequired(string(js))
			require.NoError(t, err)
			require.Len(t, pr.Accepts, 2)
			assert.False(t, pr.Accepts[0].Usable())
			assert.Contains(t, pr.Accepts[0].Unusable, tt.reason)
			assert.NotEmpty(t, pr.Accepts[0].Raw)
			assert.True(t, pr.Accepts[1].Usable(), pr.Accepts[1].Unusable)
		})
	}

	// The largest uint256 is a valid amount.
	js, err := json.Marshal(map[string]any{"x402Version": 2, "accepts": []any{with("amount", maxUint.String())}})
	require.NoError(t, err)
	pr, err := wire.DecodePaymentRequired(string(js))
	require.NoError(t, err)
	assert.True(t, pr.Accepts[0].Usable(), pr.Accepts[0].Unusable)
	assert.Equal(t, maxUint, pr.Accepts[0].Amount)

	// What only a scheme needs is not the wire's to judge: an EVM entry without its token's
	// EIP-712 domain, or a Solana one with base58 addresses, is read as usable, and the
	// scheme's Check says whether it can pay it.
	for _, entry := range []any{with("extra", nil), with("payTo", "shop"),
		with("network", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")} {
		js, err := json.Marshal(map[string]any{"x402Version": 2, "accepts": []any{entry}})
		require.NoError(t, err)
		pr, err := wire.DecodePaymentRequired(string(js))
		require.NoError(t, err)
		assert.True(t, pr.Accepts[0].Usable(), pr.Accepts[0].Unusable)
	}
}

func TestUnreadableChallenges(t *testing.T) {
	t.Parallel()
	for name, resp := range map[string]*http.Response{
		"no header, empty body":  response402("", ""),
		"no header, HTML body":   response402("", "<html>pay me</html>"),
		"no header, other JSON":  response402("", `{"error":"nope"}`),
		"header not base64":      response402("not base64!", ""),
		"header base64 not JSON": response402(base64.StdEncoding.EncodeToString([]byte("hello")), ""),
		"version 3":              response402(base64.StdEncoding.EncodeToString([]byte(`{"x402Version":3,"accepts":[]}`)), ""),
		"accepts missing":        response402(base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2}`)), ""),
		"accepts not a list":     response402(base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2,"accepts":{}}`)), ""),
		"body too large":         response402("", `{"x402Version":1,"accepts":[],"pad":"`+strings.Repeat("x", 1<<20)+`"}`),
	} {
		_, err := wire.ReadPaymentRequired(resp)
		var fe *wire.FormatError
		assert.ErrorAs(t, err, &fe, name)
	}
}

func TestPaymentRequiredRoundTrip(t *testing.T) {
	t.Parallel()
	pr := &wire.PaymentRequired{
		X402Version: 2,
		Error:       "Payment required",
		Resource:    &wire.ResourceInfo{URL: "https://h/report/1", Description: "d"},
		Accepts: []wire.PaymentRequirements{{
			Scheme: "exact", Network: evm.NetworkBase, Amount: big.NewInt(130000), Asset: evm.USDCBase,
			PayTo: shopAddress, MaxTimeoutSeconds: 60, Extra: map[string]any{"name": "USD Coin", "version": "2"},
		}},
	}
	v, err := wire.EncodePaymentRequired(pr)
	require.NoError(t, err)
	js := spectest.DecodeStd(t, v)
	assert.JSONEq(t, `{"x402Version":2,"error":"Payment required","resource":{"url":"https://h/report/1","description":"d"},"accepts":[{"scheme":"exact","network":"eip155:8453","amount":"130000","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"extra":{"name":"USD Coin","version":"2"}}]}`, js)
	back, err := wire.DecodePaymentRequired(v)
	require.NoError(t, err)
	assert.Equal(t, big.NewInt(130000), back.Accepts[0].Amount)
	assert.True(t, back.Accepts[0].Usable())

	pr.X402Version = 1
	pr.Accepts[0].Network, pr.Accepts[0].Resource = "base", "https://h/report/1"
	b, err := json.Marshal(pr)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"maxAmountRequired":"130000"`)
	assert.NotContains(t, string(b), `"amount"`)
}

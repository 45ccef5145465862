package wire_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/spectest"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

// fuzzSigner signs in FuzzParsePaymentRequired; one key keeps the fuzz loop fast.
var fuzzSigner, _ = evm.NewPrivateKeySigner("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")

// FuzzParsePaymentRequired feeds arbitrary headers and bodies to the challenge parser. It must
// not panic; every entry it calls usable must be signable, and the signature must verify.
func FuzzReadPaymentRequired(f *testing.F) {
	spec := spectest.Header(f, "spec_payment_required.b64")
	specJSON, _ := base64.StdEncoding.DecodeString(spec)
	f.Add(spec, []byte("{}"))
	f.Add(string(specJSON), []byte(nil))
	f.Add(base64.RawURLEncoding.EncodeToString(specJSON), []byte(nil))
	f.Add("", []byte(`{"x402Version":1,"error":"X-PAYMENT header is required","accepts":[{"scheme":"exact","network":"base","maxAmountRequired":"10000","resource":"https://h/r","description":"","mimeType":"","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","extra":{"name":"USD Coin","version":"2"}}]}`))
	f.Add(`{"x402Version":2,"accepts":[{"amount":"0.111"},7,null,{"scheme":"exact","network":"eip155:1","amount":"1","asset":"0x0000000000000000000000000000000000000001","payTo":"0x0000000000000000000000000000000000000002","maxTimeoutSeconds":1,"extra":{"name":"","version":"1"}}]}`, []byte(nil))
	f.Add("", []byte(`{"x402Version":2,"accepts":[{"scheme":"exact","network":"eip155:8453","amount":"115792089237316195423570985008687907853269984665640564039457584007913129639935","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":2147483647,"extra":{"name":"USD Coin","version":"2"}}]}`))
	f.Add("eyJ4NDAyVmVyc2lvbiI6MiwiYWNjZXB0cyI6W119", []byte("<html>"))

	now := time.Unix(1_800_000_000, 0)
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		resp := &http.Response{StatusCode: http.StatusPaymentRequired, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}
		if header != "" {
			resp.Header.Set(wire.HeaderPaymentRequired, header)
		}
		pr, err := wire.ReadPaymentRequired(resp)
		if err != nil {
			var fe *wire.FormatError
			require.ErrorAs(t, err, &fe)
			return
		}
		require.Contains(t, []int{1, 2}, pr.X402Version)
		for i := range pr.Accepts {
			r := &pr.Accepts[i]
			if !r.Usable() {
				require.NotEmpty(t, r.Raw)
				continue
			}
			require.NotNil(t, r.Amount)
			require.LessOrEqual(t, r.Amount.BitLen(), 256)
			require.GreaterOrEqual(t, r.Amount.Sign(), 0)
			require.Positive(t, r.MaxTimeoutSeconds)
			p, err := evm.SignExact(fuzzSigner, pr, r, now)
			if err != nil {
				continue // a scheme or network this package does not sign for
			}
			v, err := wire.EncodePaymentPayload(p)
			require.NoError(t, err)
			back, err := wire.DecodePaymentPayload(v)
			require.NoError(t, err)
			if r.MaxTimeoutSeconds >= 6 {
				payer, err := evm.VerifyExact(back, *r, now)
				require.NoError(t, err)
				require.Equal(t, fuzzSigner.Address(), payer)
			}
		}
		_, err = json.Marshal(pr)
		require.NoError(t, err)
	})
}

// FuzzDecodePaymentPayload feeds arbitrary header values to the server-side payload decoder.
// It must not panic, and what it accepts must survive encoding and decoding unchanged.
func FuzzDecodePaymentPayload(f *testing.F) {
	spec := spectest.Header(f, "spec_payment_signature.b64")
	specJSON, _ := base64.StdEncoding.DecodeString(spec)
	f.Add(spec)
	f.Add(string(specJSON))
	f.Add(base64.RawURLEncoding.EncodeToString(specJSON))
	f.Add(strings.Replace(string(specJSON), `"x402Version":2`, `"x402Version":1,"scheme":"exact","network":"base"`, 1))
	f.Add(`{"x402Version":2,"accepted":{},"payload":{"signature":"0x","authorization":{}}}`)
	f.Add(`{"x402Version":1,"scheme":"exact","network":"base","payload":{"signature":"0x00","authorization":{"from":"0x0000000000000000000000000000000000000000","to":"0x0000000000000000000000000000000000000000","value":"0","validAfter":"0","validBefore":"0","nonce":"0x0000000000000000000000000000000000000000000000000000000000000000"}}}`)
	f.Add("e30=")

	now := time.Unix(1_740_672_100, 0)
	f.Fuzz(func(t *testing.T, value string) {
		p, err := wire.DecodePaymentPayload(value)
		if err != nil {
			var fe *wire.FormatError
			require.ErrorAs(t, err, &fe)
			return
		}
		require.Contains(t, []int{1, 2}, p.X402Version)
		// Verification must not panic, whatever it decides.
		_, _ = evm.VerifyExact(p, p.Accepted, now)

		v, err := wire.EncodePaymentPayload(p)
		require.NoError(t, err)
		back, err := wire.DecodePaymentPayload(v)
		require.NoError(t, err)
		require.Equal(t, p.X402Version, back.X402Version)
		require.Equal(t, p.Payload, back.Payload)
		require.Equal(t, p.Scheme, back.Scheme)
		require.Equal(t, p.Network, back.Network)
		require.Equal(t, string(p.Accepted.Raw), string(back.Accepted.Raw))
		require.Equal(t, p.Accepted.Unusable, back.Accepted.Unusable)
	})
}

// FuzzParseSettleResponse feeds arbitrary header values to the receipt parser. It must not
// panic, and what it accepts must survive encoding and parsing unchanged.
func FuzzDecodeSettleResponse(f *testing.F) {
	f.Add(spectest.Header(f, "spec_payment_response_success.b64"))
	f.Add(spectest.Header(f, "spec_payment_response_failure.b64"))
	f.Add(`{"success":true,"transaction":"0x1","network":"eip155:8453","extensions":{ "a" : 1 }}`)
	f.Add(`{"success":false}`)
	f.Add("eyJzdWNjZXNzIjp0cnVlfQ")
	f.Add("")

	f.Fuzz(func(t *testing.T, value string) {
		s, err := wire.DecodeSettleResponse(value)
		if err != nil {
			var fe *wire.FormatError
			require.ErrorAs(t, err, &fe)
			return
		}
		if s.Success {
			require.NotEmpty(t, s.Transaction)
			require.NotEmpty(t, s.Network)
		}
		v, err := wire.EncodeSettleResponse(s)
		require.NoError(t, err)
		require.Equal(t, encodingJSON(t, s), spectest.DecodeStd(t, v), "the hand-written encoder differs from encoding/json")
		back, err := wire.DecodeSettleResponse(v)
		require.NoError(t, err)
		if len(s.Extensions) > 0 {
			require.JSONEq(t, string(s.Extensions), string(back.Extensions))
		}
		s.Extensions, back.Extensions = nil, nil
		require.Equal(t, s, back)
	})
}

package x402_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402"
)

func TestDecodeSpecPayload(t *testing.T) {
	t.Parallel()
	p := specPayload(t)
	assert.Equal(t, 2, p.X402Version)
	require.NotNil(t, p.Resource)
	assert.Equal(t, "https://api.example.com/premium-data", p.Resource.URL)
	assert.Equal(t, "exact", p.Accepted.Scheme)
	assert.Equal(t, big.NewInt(10000), p.Accepted.Amount)
	a := p.Payload.Authorization
	assert.Equal(t, "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", a.To)
	assert.Equal(t, big.NewInt(10000), a.Value)
	assert.Equal(t, big.NewInt(1740672089), a.ValidAfter)
	assert.Equal(t, big.NewInt(1740672154), a.ValidBefore)
	assert.Equal(t, "0xf3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f13480", fmt.Sprintf("0x%x", a.Nonce))
	assert.Len(t, p.Payload.Signature, 65)
	assert.Equal(t, byte(0x1c), p.Payload.Signature[64])
}

func TestEncodePayloadIsStrictBase64OfCompactJSON(t *testing.T) {
	t.Parallel()
	p := specPayload(t)
	v, err := x402.EncodePaymentPayload(p)
	require.NoError(t, err)
	js := decodeStd(t, v)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, []byte(js)))
	assert.Equal(t, compact.String(), js)
	// The spec example is compact JSON with the same key order, so the encoding reproduces it.
	assert.Equal(t, readFixture(t, "spec_payment_signature.b64"), v)

	back, err := x402.DecodePaymentPayload(v)
	require.NoError(t, err)
	assert.Equal(t, p.Payload, back.Payload)
	assert.Equal(t, p.Accepted.Raw, back.Accepted.Raw)
}

func TestPayloadV1RoundTrip(t *testing.T) {
	t.Parallel()
	var nonce [32]byte
	nonce[31] = 7
	p := &x402.PaymentPayload{
		X402Version: 1, Scheme: "exact", Network: "base",
		Payload: x402.ExactPayload{
			Signature: make([]byte, 65),
			Authorization: x402.Authorization{
				From: shopAddress, To: shopAddress, Value: big.NewInt(5),
				ValidAfter: big.NewInt(1), ValidBefore: big.NewInt(2), Nonce: nonce,
			},
		},
	}
	v, err := x402.EncodePaymentPayload(p)
	require.NoError(t, err)
	assert.JSONEq(t, `{"x402Version":1,"scheme":"exact","network":"base","payload":{"signature":"0x`+strings.Repeat("00", 65)+`","authorization":{"from":"`+shopAddress+`","to":"`+shopAddress+`","value":"5","validAfter":"1","validBefore":"2","nonce":"0x`+strings.Repeat("00", 31)+`07"}}}`, decodeStd(t, v))
	back, err := x402.DecodePaymentPayload(v)
	require.NoError(t, err)
	assert.Equal(t, p, back)
}

func TestDecodePayloadRefusesMalformedPayloads(t *testing.T) {
	t.Parallel()
	var spec map[string]any
	require.NoError(t, json.Unmarshal([]byte(decodeStd(t, readFixture(t, "spec_payment_signature.b64"))), &spec))
	mutate := func(f func(m map[string]any)) string {
		b, _ := json.Marshal(spec)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		f(m)
		b, _ = json.Marshal(m)
		return base64.StdEncoding.EncodeToString(b)
	}
	auth := func(m map[string]any) map[string]any {
		return m["payload"].(map[string]any)["authorization"].(map[string]any)
	}
	for name, v := range map[string]string{
		"empty":               "",
		"not base64":          "***",
		"no version":          mutate(func(m map[string]any) { delete(m, "x402Version") }),
		"version 3":           mutate(func(m map[string]any) { m["x402Version"] = 3 }),
		"no accepted":         mutate(func(m map[string]any) { delete(m, "accepted") }),
		"no payload":          mutate(func(m map[string]any) { delete(m, "payload") }),
		"no signature":        mutate(func(m map[string]any) { delete(m["payload"].(map[string]any), "signature") }),
		"odd signature":       mutate(func(m map[string]any) { m["payload"].(map[string]any)["signature"] = "0xabc" }),
		"permit2 payload":     mutate(func(m map[string]any) { delete(m["payload"].(map[string]any), "authorization") }),
		"value fraction":      mutate(func(m map[string]any) { auth(m)["value"] = "1.5" }),
		"value number":        mutate(func(m map[string]any) { auth(m)["value"] = 10000 }),
		"validBefore missing": mutate(func(m map[string]any) { delete(auth(m), "validBefore") }),
		"short nonce":         mutate(func(m map[string]any) { auth(m)["nonce"] = "0x1234" }),
		"bad from":            mutate(func(m map[string]any) { auth(m)["from"] = "me" }),
		"v1 without network":  mutate(func(m map[string]any) { m["x402Version"] = 1; m["scheme"] = "exact" }),
	} {
		_, err := x402.DecodePaymentPayload(v)
		var fe *x402.FormatError
		assert.ErrorAs(t, err, &fe, name)
	}
}

func TestParseSettleResponse(t *testing.T) {
	t.Parallel()
	ok, err := x402.ParseSettleResponse(readFixture(t, "spec_payment_response_success.b64"))
	require.NoError(t, err)
	assert.Equal(t, &x402.SettleResponse{
		Success:     true,
		Transaction: "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef",
		Network:     "eip155:84532",
		Payer:       "0x857b06519E91e3A54538791bDbb0E22373e36b66",
	}, ok)

	failed, err := x402.ParseSettleResponse(readFixture(t, "spec_payment_response_failure.b64"))
	require.NoError(t, err)
	assert.False(t, failed.Success)
	assert.Equal(t, "insufficient_funds", failed.ErrorReason)

	for name, v := range map[string]string{
		"success missing":           base64.StdEncoding.EncodeToString([]byte(`{"transaction":"0x1","network":"eip155:8453"}`)),
		"success without tx":        base64.StdEncoding.EncodeToString([]byte(`{"success":true,"network":"eip155:8453"}`)),
		"success without network":   base64.StdEncoding.EncodeToString([]byte(`{"success":true,"transaction":"0x1"}`)),
		"success is a string":       base64.StdEncoding.EncodeToString([]byte(`{"success":"true","transaction":"0x1","network":"n"}`)),
		"not JSON":                  "bm90IGpzb24=",
		"JSON array":                base64.StdEncoding.EncodeToString([]byte(`[1]`)),
		"oversized header (>64KiB)": strings.Repeat("A", 70000),
	} {
		_, err := x402.ParseSettleResponse(v)
		var fe *x402.FormatError
		assert.ErrorAs(t, err, &fe, name)
	}

	v, err := x402.EncodeSettleResponse(ok)
	require.NoError(t, err)
	back, err := x402.ParseSettleResponse(v)
	require.NoError(t, err)
	assert.Equal(t, ok, back)
}

func TestSignerNeverShowsItsKey(t *testing.T) {
	t.Parallel()
	const key = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	s, err := x402.NewPrivateKeySigner("0x" + key)
	require.NoError(t, err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
		out := fmt.Sprintf(verb, s)
		assert.NotContains(t, strings.ToLower(out), key[:16], verb)
		assert.Contains(t, out, s.Address(), verb)
	}

	// Errors for bad keys never quote them.
	for _, bad := range []string{key[:63] + "z", key + "00", "0x" + strings.Repeat("0", 64), "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"} {
		_, err := x402.NewPrivateKeySigner(bad)
		var ve *sdk.ValidationError
		require.ErrorAs(t, err, &ve, bad)
		assert.Equal(t, "private key", ve.Field)
		assert.NotContains(t, err.Error(), bad[:16])
	}
	// With or without 0x, the same account.
	s2, err := x402.NewPrivateKeySigner(key)
	require.NoError(t, err)
	assert.Equal(t, s.Address(), s2.Address())
}

func TestPaymentErrorsNeverShowTheSignature(t *testing.T) {
	t.Parallel()
	p := specPayload(t)
	sig := fmt.Sprintf("%x", p.Payload.Signature)
	// Break the signature and check the verifier's message.
	p.Payload.Signature[10] ^= 0xff
	_, err := x402.VerifyExact(p, p.Accepted, time.Unix(1740672100, 0))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), sig[:20])
	assert.NotContains(t, err.Error(), fmt.Sprintf("%x", p.Payload.Signature)[:20])
}

// TestTypesWorkWithEncodingJSON uses the wire types the way callers do, through json.Marshal
// and json.Unmarshal.
func TestTypesWorkWithEncodingJSON(t *testing.T) {
	t.Parallel()
	p := specPayload(t)
	b, err := json.Marshal(p)
	require.NoError(t, err)
	var back x402.PaymentPayload
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, p.Payload, back.Payload)
	assert.Equal(t, p.Accepted.Amount, back.Accepted.Amount)
	assert.JSONEq(t, string(p.Accepted.Raw), string(back.Accepted.Raw))
	assert.Equal(t, p.Resource.URL, back.Resource.URL)

	// Each part on its own.
	b, err = json.Marshal(p.Payload)
	require.NoError(t, err)
	var payload x402.ExactPayload
	require.NoError(t, json.Unmarshal(b, &payload))
	assert.Equal(t, p.Payload, payload)

	b, err = json.Marshal(p.Payload.Authorization)
	require.NoError(t, err)
	var auth x402.Authorization
	require.NoError(t, json.Unmarshal(b, &auth))
	assert.Equal(t, p.Payload.Authorization, auth)
	assert.Error(t, json.Unmarshal([]byte(`{"from":"0x1"}`), &auth))

	var r x402.PaymentRequirements
	require.NoError(t, json.Unmarshal(p.Accepted.Raw, &r))
	assert.True(t, r.Usable())
	assert.Error(t, json.Unmarshal([]byte(`[1]`), &r))
	r.Raw = nil
	b, err = json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, string(p.Accepted.Raw), string(b))

	res := x402.ResourceInfo{URL: "https://h/x", MimeType: "text/csv"}
	b, err = json.Marshal(res)
	require.NoError(t, err)
	assert.Equal(t, `{"url":"https://h/x","mimeType":"text/csv"}`, string(b))

	var pr x402.PaymentRequired
	require.NoError(t, json.Unmarshal([]byte(decodeStd(t, readFixture(t, "spec_payment_required.b64"))), &pr))
	assert.Len(t, pr.Accepts, 1)
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	_, err := x402.DecodePaymentPayload("***")
	var fe *x402.FormatError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "x402: malformed PAYMENT-SIGNATURE: neither base64 of JSON nor JSON", err.Error())
	assert.NotNil(t, errors.Unwrap(err))

	rej := &x402.PaymentRejectedError{Reason: "invalid_exact_evm_signature", Settlement: &x402.SettleResponse{ErrorReason: "insufficient_funds"}, Requote: x402.ErrAmountOverCap}
	assert.Equal(t, `x402: payment rejected by the server: "invalid_exact_evm_signature" (settlement: "insufficient_funds"); new quote not paid: x402: amount above the per-payment cap`, rej.Error())
	assert.ErrorIs(t, rej, x402.ErrAmountOverCap)

	ve := &x402.VerifyError{Reason: x402.ReasonNonceAlreadyUsed}
	assert.Equal(t, "x402: invalid payment: invalid_exact_evm_nonce_already_used", ve.Error())

	ne := &x402.NoUsableRequirementsError{}
	assert.Equal(t, "x402: no payment option offered (accepts is empty)", ne.Error())
}

func TestSettleResponseKeepsHTMLCharacters(t *testing.T) {
	t.Parallel()
	s := &x402.SettleResponse{Success: false, ErrorReason: "a<b&c", Network: "eip155:8453", Extensions: json.RawMessage(`{"note":"<&>"}`)}
	v, err := x402.EncodeSettleResponse(s)
	require.NoError(t, err)
	assert.Equal(t, `{"success":false,"errorReason":"a<b&c","transaction":"","network":"eip155:8453","extensions":{"note":"<&>"}}`, decodeStd(t, v))
}

func TestEncodeSettleResponseWritesWhatEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	for name, s := range map[string]*x402.SettleResponse{
		"success":                {Success: true, Payer: "0x857b06519E91e3A54538791bDbb0E22373e36b66", Transaction: "0xabc", Network: "eip155:8453", Amount: "10000"},
		"failure":                {ErrorReason: "insufficient_funds", ErrorMessage: "balance \"low\"\n\ttoo low", Network: "eip155:8453"},
		"escapes":                {ErrorMessage: "\x00\x1f\u2028\u2029 é ☃ \xff<>&", Transaction: "", Network: ""},
		"extensions with spaces": {Success: true, Transaction: "0x1", Network: "n", Extensions: json.RawMessage(` { "a" : [1, 2] , "b":"<x>" } `)},
		"extensions null":        {Extensions: json.RawMessage(`null`)},
	} {
		v, err := x402.EncodeSettleResponse(s)
		require.NoError(t, err, name)
		assert.Equal(t, encodingJSON(t, s), decodeStd(t, v), name)
	}

	_, err := x402.EncodeSettleResponse(&x402.SettleResponse{Extensions: json.RawMessage(`{"a":`)})
	assert.ErrorContains(t, err, "SettleResponse.Extensions")
}

package wire_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/spectest"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

func TestDecodeSpecPayload(t *testing.T) {
	t.Parallel()
	p := spectest.Payload(t)
	assert.Equal(t, 2, p.X402Version)
	require.NotNil(t, p.Resource)
	assert.Equal(t, "https://api.example.com/premium-data", p.Resource.URL)
	assert.Equal(t, "exact", p.Accepted.Scheme)
	assert.Equal(t, big.NewInt(10000), p.Accepted.Amount)
	var payload struct {
		Signature     string         `json:"signature"`
		Authorization map[string]any `json:"authorization"`
	}
	require.NoError(t, json.Unmarshal(p.Payload, &payload), "the scheme's payload stays raw JSON")
	assert.Len(t, payload.Signature, 132)
	assert.Equal(t, "0xf3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f13480", payload.Authorization["nonce"])
	secrets := p.Secrets()
	assert.Equal(t, []string{payload.Signature, payload.Signature[2:]}, secrets, "the signature, with and without 0x")
}

func TestEncodePayloadIsStrictBase64OfCompactJSON(t *testing.T) {
	t.Parallel()
	p := spectest.Payload(t)
	v, err := wire.EncodePaymentPayload(p)
	require.NoError(t, err)
	js := spectest.DecodeStd(t, v)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, []byte(js)))
	assert.Equal(t, compact.String(), js)
	// The spec example is compact JSON with the same key order, so the encoding reproduces it.
	assert.Equal(t, spectest.Header(t, "spec_payment_signature.b64"), v)

	back, err := wire.DecodePaymentPayload(v)
	require.NoError(t, err)
	assert.Equal(t, p.Payload, back.Payload)
	assert.Equal(t, p.Accepted.Raw, back.Accepted.Raw)
}

func TestPayloadV1RoundTrip(t *testing.T) {
	t.Parallel()
	var nonce [32]byte
	nonce[31] = 7
	payload, err := evm.ExactPayload{
		Signature: make([]byte, 65),
		Authorization: evm.Authorization{
			From: shopAddress, To: shopAddress, Value: big.NewInt(5),
			ValidAfter: big.NewInt(1), ValidBefore: big.NewInt(2), Nonce: nonce,
		},
	}.MarshalJSON()
	require.NoError(t, err)
	p := &wire.PaymentPayload{X402Version: 1, Scheme: "exact", Network: "base", Payload: payload}
	v, err := wire.EncodePaymentPayload(p)
	require.NoError(t, err)
	assert.JSONEq(t, `{"x402Version":1,"scheme":"exact","network":"base","payload":{"signature":"0x`+strings.Repeat("00", 65)+`","authorization":{"from":"`+shopAddress+`","to":"`+shopAddress+`","value":"5","validAfter":"1","validBefore":"2","nonce":"0x`+strings.Repeat("00", 31)+`07"}}}`, spectest.DecodeStd(t, v))
	back, err := wire.DecodePaymentPayload(v)
	require.NoError(t, err)
	assert.Equal(t, p, back)
}

func TestDecodePayloadRefusesMalformedPayloads(t *testing.T) {
	t.Parallel()
	var spec map[string]any
	require.NoError(t, json.Unmarshal([]byte(spectest.DecodeStd(t, spectest.Header(t, "spec_payment_signature.b64"))), &spec))
	mutate := func(f func(m map[string]any)) string {
		b, _ := json.Marshal(spec)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		f(m)
		b, _ = json.Marshal(m)
		return base64.StdEncoding.EncodeToString(b)
	}
	for name, v := range map[string]string{
		"empty":              "",
		"not base64":         "***",
		"no version":         mutate(func(m map[string]any) { delete(m, "x402Version") }),
		"version 3":          mutate(func(m map[string]any) { m["x402Version"] = 3 }),
		"no accepted":        mutate(func(m map[string]any) { delete(m, "accepted") }),
		"no payload":         mutate(func(m map[string]any) { delete(m, "payload") }),
		"payload not object": mutate(func(m map[string]any) { m["payload"] = "0xabc" }),
		"v1 without network": mutate(func(m map[string]any) { m["x402Version"] = 1; m["scheme"] = "exact" }),
	} {
		_, err := wire.DecodePaymentPayload(v)
		var fe *wire.FormatError
		assert.ErrorAs(t, err, &fe, name)
	}
}

func TestParseSettleResponse(t *testing.T) {
	t.Parallel()
	ok, err := wire.DecodeSettleResponse(spectest.Header(t, "spec_payment_response_success.b64"))
	require.NoError(t, err)
	assert.Equal(t, &wire.SettleResponse{
		Success:     true,
		Transaction: "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef",
		Network:     "eip155:84532",
		Payer:       "0x857b06519E91e3A54538791bDbb0E22373e36b66",
	}, ok)

	failed, err := wire.DecodeSettleResponse(spectest.Header(t, "spec_payment_response_failure.b64"))
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
		_, err := wire.DecodeSettleResponse(v)
		var fe *wire.FormatError
		assert.ErrorAs(t, err, &fe, name)
	}

	v, err := wire.EncodeSettleResponse(ok)
	require.NoError(t, err)
	back, err := wire.DecodeSettleResponse(v)
	require.NoError(t, err)
	assert.Equal(t, ok, back)
}

// TestTypesWorkWithEncodingJSON uses the wire types the way callers do, through json.Marshal
// and json.Unmarshal.
func TestTypesWorkWithEncodingJSON(t *testing.T) {
	t.Parallel()
	p := spectest.Payload(t)
	b, err := json.Marshal(p)
	require.NoError(t, err)
	var back wire.PaymentPayload
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, p.Payload, back.Payload)
	assert.Equal(t, p.Accepted.Amount, back.Accepted.Amount)
	assert.JSONEq(t, string(p.Accepted.Raw), string(back.Accepted.Raw))
	assert.Equal(t, p.Resource.URL, back.Resource.URL)

	var r wire.PaymentRequirements
	require.NoError(t, json.Unmarshal(p.Accepted.Raw, &r))
	assert.True(t, r.Usable())
	assert.Error(t, json.Unmarshal([]byte(`[1]`), &r))
	r.Raw = nil
	b, err = json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, string(p.Accepted.Raw), string(b))

	res := wire.ResourceInfo{URL: "https://h/x", MimeType: "text/csv"}
	b, err = json.Marshal(res)
	require.NoError(t, err)
	assert.Equal(t, `{"url":"https://h/x","mimeType":"text/csv"}`, string(b))

	var pr wire.PaymentRequired
	require.NoError(t, json.Unmarshal([]byte(spectest.DecodeStd(t, spectest.Header(t, "spec_payment_required.b64"))), &pr))
	assert.Len(t, pr.Accepts, 1)
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	_, err := wire.DecodePaymentPayload("***")
	var fe *wire.FormatError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "x402: malformed PAYMENT-SIGNATURE: neither base64 of JSON nor JSON", err.Error())
	assert.NotNil(t, errors.Unwrap(err))

	ve := &wire.VerifyError{Reason: "invalid_exact_evm_nonce_already_used"}
	assert.Equal(t, "x402: invalid payment: invalid_exact_evm_nonce_already_used", ve.Error())
}

func TestSettleResponseKeepsHTMLCharacters(t *testing.T) {
	t.Parallel()
	s := &wire.SettleResponse{Success: false, ErrorReason: "a<b&c", Network: "eip155:8453", Extensions: json.RawMessage(`{"note":"<&>"}`)}
	v, err := wire.EncodeSettleResponse(s)
	require.NoError(t, err)
	assert.Equal(t, `{"success":false,"errorReason":"a<b&c","transaction":"","network":"eip155:8453","extensions":{"note":"<&>"}}`, spectest.DecodeStd(t, v))
}

func TestEncodeSettleResponseWritesWhatEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	for name, s := range map[string]*wire.SettleResponse{
		"success":                {Success: true, Payer: "0x857b06519E91e3A54538791bDbb0E22373e36b66", Transaction: "0xabc", Network: "eip155:8453", Amount: "10000"},
		"failure":                {ErrorReason: "insufficient_funds", ErrorMessage: "balance \"low\"\n\ttoo low", Network: "eip155:8453"},
		"escapes":                {ErrorMessage: "\x00\x1f\u2028\u2029 é ☃ \xff<>&", Transaction: "", Network: ""},
		"extensions with spaces": {Success: true, Transaction: "0x1", Network: "n", Extensions: json.RawMessage(` { "a" : [1, 2] , "b":"<x>" } `)},
		"extensions null":        {Extensions: json.RawMessage(`null`)},
	} {
		v, err := wire.EncodeSettleResponse(s)
		require.NoError(t, err, name)
		assert.Equal(t, encodingJSON(t, s), spectest.DecodeStd(t, v), name)
	}

	_, err := wire.EncodeSettleResponse(&wire.SettleResponse{Extensions: json.RawMessage(`{"a":`)})
	assert.ErrorContains(t, err, "SettleResponse.Extensions")
}

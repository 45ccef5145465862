package evm_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/spectest"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

func TestDecodeSpecExactPayload(t *testing.T) {
	t.Parallel()
	p := spectest.Payload(t)
	e, err := evm.DecodeExactPayload(p)
	require.NoError(t, err)
	a := e.Authorization
	assert.Equal(t, "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", a.To)
	assert.Equal(t, big.NewInt(10000), a.Value)
	assert.Equal(t, big.NewInt(1740672089), a.ValidAfter)
	assert.Equal(t, big.NewInt(1740672154), a.ValidBefore)
	assert.Equal(t, "0xf3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f13480", fmt.Sprintf("0x%x", a.Nonce))
	assert.Len(t, e.Signature, 65)
	assert.Equal(t, byte(0x1c), e.Signature[64])
}

func TestDecodeExactPayloadRefusesMalformedPayloads(t *testing.T) {
	t.Parallel()
	spec := spectest.Payload(t)
	mutate := func(f func(m map[string]any)) *wire.PaymentPayload {
		var m map[string]any
		require.NoError(t, json.Unmarshal(spec.Payload, &m))
		f(m)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		c := *spec
		c.Payload = b
		return &c
	}
	auth := func(m map[string]any) map[string]any { return m["authorization"].(map[string]any) }
	for name, p := range map[string]*wire.PaymentPayload{
		"no signature":        mutate(func(m map[string]any) { delete(m, "signature") }),
		"odd signature":       mutate(func(m map[string]any) { m["signature"] = "0xabc" }),
		"permit2 payload":     mutate(func(m map[string]any) { delete(m, "authorization") }),
		"value fraction":      mutate(func(m map[string]any) { auth(m)["value"] = "1.5" }),
		"value number":        mutate(func(m map[string]any) { auth(m)["value"] = 10000 }),
		"validBefore missing": mutate(func(m map[string]any) { delete(auth(m), "validBefore") }),
		"short nonce":         mutate(func(m map[string]any) { auth(m)["nonce"] = "0x1234" }),
		"bad from":            mutate(func(m map[string]any) { auth(m)["from"] = "me" }),
	} {
		_, err := evm.DecodeExactPayload(p)
		assert.Error(t, err, name)
		_, err = evm.VerifyExact(p, spec.Accepted, time.Unix(1740672100, 0))
		var ve *wire.VerifyError
		require.ErrorAs(t, err, &ve, name)
		want := evm.ReasonInvalidPayload
		if name == "no signature" {
			want = evm.ReasonMissingSignature
		}
		assert.Equal(t, want, ve.Reason, name)
	}
}

func TestExactPayloadWorksWithEncodingJSON(t *testing.T) {
	t.Parallel()
	e := exactOf(t, spectest.Payload(t))
	b, err := json.Marshal(e)
	require.NoError(t, err)
	var payload evm.ExactPayload
	require.NoError(t, json.Unmarshal(b, &payload))
	assert.Equal(t, *e, payload)

	b, err = json.Marshal(e.Authorization)
	require.NoError(t, err)
	var auth evm.Authorization
	require.NoError(t, json.Unmarshal(b, &auth))
	assert.Equal(t, e.Authorization, auth)
	assert.Error(t, json.Unmarshal([]byte(`{"from":"0x1"}`), &auth))
}

func TestSignerNeverShowsItsKey(t *testing.T) {
	t.Parallel()
	const key = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	s, err := evm.NewPrivateKeySigner("0x" + key)
	require.NoError(t, err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
		out := fmt.Sprintf(verb, s)
		assert.NotContains(t, strings.ToLower(out), key[:16], verb)
		assert.Contains(t, out, s.Address(), verb)
	}

	// Errors for bad keys never quote them.
	for _, bad := range []string{key[:63] + "z", key + "00", "0x" + strings.Repeat("0", 64), "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"} {
		_, err := evm.NewPrivateKeySigner(bad)
		var ve *sdk.ValidationError
		require.ErrorAs(t, err, &ve, bad)
		assert.Equal(t, "private key", ve.Field)
		assert.NotContains(t, err.Error(), bad[:16])
	}
	// With or without 0x, the same account.
	s2, err := evm.NewPrivateKeySigner(key)
	require.NoError(t, err)
	assert.Equal(t, s.Address(), s2.Address())
}

func TestPaymentErrorsNeverShowTheSignature(t *testing.T) {
	t.Parallel()
	p := spectest.Payload(t)
	e := exactOf(t, p)
	sig := fmt.Sprintf("%x", e.Signature)
	// Break the signature and check the verifier's message.
	e.Signature[10] ^= 0xff
	setExact(t, p, e)
	_, err := evm.VerifyExact(p, p.Accepted, time.Unix(1740672100, 0))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), sig[:20])
	assert.NotContains(t, err.Error(), fmt.Sprintf("%x", e.Signature)[:20])
}

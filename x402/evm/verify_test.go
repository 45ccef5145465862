package evm_test

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/spectest"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

// secp256k1N is the order of the secp256k1 group.
var secp256k1N, _ = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)

// signedAt returns a payload signed at now for the spec's requirements, and the requirements.
func signedAt(t *testing.T, now time.Time) (*wire.PaymentPayload, wire.PaymentRequirements) {
	t.Helper()
	pr, err := wire.DecodePaymentRequired(spectest.Header(t, "spec_payment_required.b64"))
	require.NoError(t, err)
	p, err := evm.SignExact(newSigner(t), pr, &pr.Accepts[0], now)
	require.NoError(t, err)
	// Round-trip through the header, as a server sees it.
	v, err := wire.EncodePaymentPayload(p)
	require.NoError(t, err)
	p, err = wire.DecodePaymentPayload(v)
	require.NoError(t, err)
	return p, pr.Accepts[0]
}

// exactOf decodes the EIP-3009 payload of p.
func exactOf(t *testing.T, p *wire.PaymentPayload) *evm.ExactPayload {
	t.Helper()
	e, err := evm.DecodeExactPayload(p)
	require.NoError(t, err)
	return e
}

// setExact makes e the payload of p.
func setExact(t *testing.T, p *wire.PaymentPayload, e *evm.ExactPayload) {
	t.Helper()
	raw, err := e.MarshalJSON()
	require.NoError(t, err)
	p.Payload = raw
}

func TestVerifyExactReasons(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	other := newSigner(t)
	tests := []struct {
		name   string
		mutate func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements)
		at     time.Time
		reason string
	}{
		{"scheme", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) { r.Scheme = "upto" }, now, evm.ReasonInvalidScheme},
		{"payload scheme", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			p.Accepted.Scheme = "upto"
		}, now, evm.ReasonInvalidScheme},
		{"network", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			r.Network = evm.NetworkBase
		}, now, evm.ReasonNetworkMismatch},
		{"asset", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			p.Accepted.Asset = evm.USDCBase
		}, now, evm.ReasonAssetMismatch},
		{"non-EVM network", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			r.Network, p.Accepted.Network = "solana:x", "solana:x"
		}, now, evm.ReasonUnknownNetwork},
		{"recipient", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			r.PayTo = "0x000000000000000000000000000000000000dEaD"
		}, now, evm.ReasonRecipientMismatch},
		{"value below", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			r.Amount = big.NewInt(10001)
		}, now, evm.ReasonValueMismatch},
		{"value above", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			r.Amount = big.NewInt(9999)
		}, now, evm.ReasonValueMismatch},
		{"expired", nil, now.Add(55 * time.Second), evm.ReasonValidBefore},
		{"not yet valid", nil, now.Add(-601 * time.Second), evm.ReasonValidAfter},
		{"no domain", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			r.Extra = map[string]any{"name": "USDC"}
		}, now, evm.ReasonMissingEIP712Domain},
		{"other domain name", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			r.Extra = map[string]any{"name": "USD Coin", "version": "2"}
		}, now, evm.ReasonInvalidSignature},
		{"tampered value", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			e.Authorization.Value = big.NewInt(20000)
			r.Amount = big.NewInt(20000)
		}, now, evm.ReasonInvalidSignature},
		{"other from", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			e.Authorization.From = other.Address()
		}, now, evm.ReasonInvalidSignature},
		{"short signature", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			e.Signature = e.Signature[:64]
		}, now, evm.ReasonInvalidSignature},
		{"no signature", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) { e.Signature = nil }, now, evm.ReasonMissingSignature},
		{"v = 29", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) { e.Signature[64] = 29 }, now, evm.ReasonSignatureFormat},
		{"high s", func(e *evm.ExactPayload, p *wire.PaymentPayload, r *wire.PaymentRequirements) {
			// (r, n-s, v^1) is the same signature in its malleable form: ecrecover accepts it,
			// the token contract does not.
			sig := e.Signature
			s := new(big.Int).SetBytes(sig[32:64])
			new(big.Int).Sub(secp256k1N, s).FillBytes(sig[32:64])
			sig[64] = 55 - sig[64] // 27 <-> 28
		}, now, evm.ReasonInvalidSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := signedAt(t, now)
			if tt.mutate != nil {
				e := exactOf(t, p)
				tt.mutate(e, p, &r)
				setExact(t, p, e)
			}
			_, err := evm.VerifyExact(p, r, tt.at)
			var ve *wire.VerifyError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.reason, ve.Reason, ve.Message)
			if tt.name == "high s" {
				assert.Contains(t, ve.Message, "lower half")
			}
		})
	}
}

func TestVerifyExactWindowBoundaries(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	p, r := signedAt(t, now) // valid from now-600 to now+60
	for _, tc := range []struct {
		at time.Time
		ok bool
	}{
		{now.Add(-600 * time.Second), true}, // validAfter == now
		{now.Add(-601 * time.Second), false},
		{now.Add(54 * time.Second), true}, // validBefore == now+6
		{now.Add(55 * time.Second), false},
	} {
		_, err := evm.VerifyExact(p, r, tc.at)
		assert.Equal(t, tc.ok, err == nil, "at %d: %v", tc.at.Unix()-now.Unix(), err)
	}
}

func TestVerifyExactAcceptsRecoveryIDs(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	p, r := signedAt(t, now)
	e := exactOf(t, p)
	want := e.Authorization.From
	e.Signature[64] -= 27 // 0 or 1, as go-ethereum emits it
	setExact(t, p, e)
	payer, err := evm.VerifyExact(p, r, now)
	require.NoError(t, err)
	assert.Equal(t, want, payer)

	// Address case does not matter for the recipient.
	r.PayTo = "0x209693bc6afc0c5328ba36faf03c514ef312287c"
	_, err = evm.VerifyExact(p, r, now)
	assert.NoError(t, err)
}

func TestCheckExactTermsSkipsOnlyTheSignature(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	p, r := signedAt(t, now)
	e := exactOf(t, p)
	e.Signature[5] ^= 1
	setExact(t, p, e)
	assert.NoError(t, evm.CheckExactTerms(p, r, now))
	_, err := evm.VerifyExact(p, r, now)
	assert.Error(t, err)
	r.Amount = big.NewInt(1)
	var ve *wire.VerifyError
	require.True(t, errors.As(evm.CheckExactTerms(p, r, now), &ve))
	assert.Equal(t, evm.ReasonValueMismatch, ve.Reason)
	assert.Error(t, evm.CheckExactTerms(nil, r, now))
}

// brokenSigner returns what it is told to, to check the payer's checks of a Signer.
type brokenSigner struct {
	addr string
	sig  []byte
	err  error
}

func (b brokenSigner) Address() string                     { return b.addr }
func (b brokenSigner) SignDigest([32]byte) ([]byte, error) { return b.sig, b.err }

func TestSignExactChecksTheSigner(t *testing.T) {
	t.Parallel()
	pr, err := wire.DecodePaymentRequired(spectest.Header(t, "spec_payment_required.b64"))
	require.NoError(t, err)
	now := time.Unix(1_800_000_000, 0)
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey).Hex()
	errHSM := errors.New("hsm offline")
	for name, s := range map[string]brokenSigner{
		"short":      {addr: addr, sig: make([]byte, 64)},
		"v = 5":      {addr: addr, sig: append(make([]byte, 64), 5)},
		"error":      {addr: addr, err: errHSM},
		"no address": {addr: "wallet", sig: make([]byte, 65)},
	} {
		_, err := evm.SignExact(s, pr, &pr.Accepts[0], now)
		assert.Error(t, err, name)
	}
	_, err = evm.SignExact(brokenSigner{addr: addr, err: errHSM}, pr, &pr.Accepts[0], now)
	assert.ErrorIs(t, err, errHSM)

	// A signer returning v = 0/1 is normalised to 27/28.
	p, err := evm.SignExact(brokenSigner{addr: addr, sig: append(make([]byte, 64), 1)}, pr, &pr.Accepts[0], now)
	require.NoError(t, err)
	assert.Equal(t, byte(28), exactOf(t, p).Signature[64])
}

func TestExactCheckRefusesWhatEIP3009Needs(t *testing.T) {
	t.Parallel()
	scheme, err := evm.NewExact(newSigner(t))
	require.NoError(t, err)
	pr, err := wire.DecodePaymentRequired(spectest.Header(t, "spec_payment_required.b64"))
	require.NoError(t, err)
	good := pr.Accepts[0]
	require.NoError(t, scheme.Check(&good))
	for name, tc := range map[string]struct {
		mutate func(r *wire.PaymentRequirements)
		reason string
	}{
		"missing name":    {func(r *wire.PaymentRequirements) { r.Extra = map[string]any{"version": "2"} }, "extra.name and extra.version"},
		"missing version": {func(r *wire.PaymentRequirements) { r.Extra = map[string]any{"name": "USDC"} }, "extra.name and extra.version"},
		"missing extra":   {func(r *wire.PaymentRequirements) { r.Extra = nil }, "extra.name and extra.version"},
		"bad payTo":       {func(r *wire.PaymentRequirements) { r.PayTo = "shop" }, "payTo is not a 0x-prefixed 20-byte hex address"},
		"bad asset":       {func(r *wire.PaymentRequirements) { r.Asset = "0x1234" }, "asset is not a 0x-prefixed 20-byte hex address"},
		"not EVM":         {func(r *wire.PaymentRequirements) { r.Network = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" }, "is not an EVM"},
		"chain id 0":      {func(r *wire.PaymentRequirements) { r.Network = "eip155:0" }, "invalid EVM chain id"},
	} {
		r := good.Clone()
		tc.mutate(&r)
		assert.ErrorContains(t, scheme.Check(&r), tc.reason, name)
	}
}

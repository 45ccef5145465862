package x402_test

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402"
)

// secp256k1N is the order of the secp256k1 group.
var secp256k1N, _ = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)

// signedAt returns a payload signed at now for the spec's requirements, and the requirements.
func signedAt(t *testing.T, now time.Time) (*x402.PaymentPayload, x402.PaymentRequirements) {
	t.Helper()
	pr, err := x402.DecodePaymentRequired(readFixture(t, "spec_payment_required.b64"))
	require.NoError(t, err)
	p, err := x402.SignExact(newSigner(t), pr, &pr.Accepts[0], now)
	require.NoError(t, err)
	// Round-trip through the header, as a server sees it.
	v, err := x402.EncodePaymentPayload(p)
	require.NoError(t, err)
	p, err = x402.DecodePaymentPayload(v)
	require.NoError(t, err)
	return p, pr.Accepts[0]
}

func TestVerifyExactReasons(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	other := newSigner(t)
	tests := []struct {
		name   string
		mutate func(p *x402.PaymentPayload, r *x402.PaymentRequirements)
		at     time.Time
		reason string
	}{
		{"scheme", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) { r.Scheme = "upto" }, now, x402.ReasonInvalidScheme},
		{"payload scheme", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) { p.Accepted.Scheme = "upto" }, now, x402.ReasonInvalidScheme},
		{"network", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) { r.Network = x402.NetworkBase }, now, x402.ReasonNetworkMismatch},
		{"asset", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) { p.Accepted.Asset = x402.USDCBase }, now, x402.ReasonAssetMismatch},
		{"non-EVM network", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) {
			r.Network, p.Accepted.Network = "solana:x", "solana:x"
		}, now, x402.ReasonUnknownNetwork},
		{"recipient", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) {
			r.PayTo = "0x000000000000000000000000000000000000dEaD"
		}, now, x402.ReasonRecipientMismatch},
		{"value below", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) { r.Amount = big.NewInt(10001) }, now, x402.ReasonValueMismatch},
		{"value above", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) { r.Amount = big.NewInt(9999) }, now, x402.ReasonValueMismatch},
		{"expired", nil, now.Add(55 * time.Second), x402.ReasonValidBefore},
		{"not yet valid", nil, now.Add(-601 * time.Second), x402.ReasonValidAfter},
		{"no domain", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) { r.Extra = map[string]any{"name": "USDC"} }, now, x402.ReasonMissingEIP712Domain},
		{"other domain name", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) {
			r.Extra = map[string]any{"name": "USD Coin", "version": "2"}
		}, now, x402.ReasonInvalidSignature},
		{"tampered value", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) {
			p.Payload.Authorization.Value = big.NewInt(20000)
			r.Amount = big.NewInt(20000)
		}, now, x402.ReasonInvalidSignature},
		{"other from", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) {
			p.Payload.Authorization.From = other.Address()
		}, now, x402.ReasonInvalidSignature},
		{"short signature", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) {
			p.Payload.Signature = p.Payload.Signature[:64]
		}, now, x402.ReasonInvalidSignature},
		{"no signature", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) { p.Payload.Signature = nil }, now, x402.ReasonMissingSignature},
		{"v = 29", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) { p.Payload.Signature[64] = 29 }, now, x402.ReasonSignatureFormat},
		{"high s", func(p *x402.PaymentPayload, r *x402.PaymentRequirements) {
			// (r, n-s, v^1) is the same signature in its malleable form: ecrecover accepts it,
			// the token contract does not.
			sig := p.Payload.Signature
			s := new(big.Int).SetBytes(sig[32:64])
			new(big.Int).Sub(secp256k1N, s).FillBytes(sig[32:64])
			sig[64] = 55 - sig[64] // 27 <-> 28
		}, now, x402.ReasonInvalidSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := signedAt(t, now)
			if tt.mutate != nil {
				tt.mutate(p, &r)
			}
			_, err := x402.VerifyExact(p, r, tt.at)
			var ve *x402.VerifyError
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
		_, err := x402.VerifyExact(p, r, tc.at)
		assert.Equal(t, tc.ok, err == nil, "at %d: %v", tc.at.Unix()-now.Unix(), err)
	}
}

func TestVerifyExactAcceptsRecoveryIDs(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	p, r := signedAt(t, now)
	want := p.Payload.Authorization.From
	p.Payload.Signature[64] -= 27 // 0 or 1, as go-ethereum emits it
	payer, err := x402.VerifyExact(p, r, now)
	require.NoError(t, err)
	assert.Equal(t, want, payer)

	// Address case does not matter for the recipient.
	r.PayTo = "0x209693bc6afc0c5328ba36faf03c514ef312287c"
	_, err = x402.VerifyExact(p, r, now)
	assert.NoError(t, err)
}

func TestCheckExactTermsSkipsOnlyTheSignature(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	p, r := signedAt(t, now)
	p.Payload.Signature[5] ^= 1
	assert.NoError(t, x402.CheckExactTerms(p, r, now))
	_, err := x402.VerifyExact(p, r, now)
	assert.Error(t, err)
	r.Amount = big.NewInt(1)
	var ve *x402.VerifyError
	require.True(t, errors.As(x402.CheckExactTerms(p, r, now), &ve))
	assert.Equal(t, x402.ReasonValueMismatch, ve.Reason)
	assert.Error(t, x402.CheckExactTerms(nil, r, now))
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
	pr, err := x402.DecodePaymentRequired(readFixture(t, "spec_payment_required.b64"))
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
		_, err := x402.SignExact(s, pr, &pr.Accepts[0], now)
		assert.Error(t, err, name)
	}
	_, err = x402.SignExact(brokenSigner{addr: addr, err: errHSM}, pr, &pr.Accepts[0], now)
	assert.ErrorIs(t, err, errHSM)

	// A signer returning v = 0/1 is normalised to 27/28.
	p, err := x402.SignExact(brokenSigner{addr: addr, sig: append(make([]byte, 64), 1)}, pr, &pr.Accepts[0], now)
	require.NoError(t, err)
	assert.Equal(t, byte(28), p.Payload.Signature[64])
}

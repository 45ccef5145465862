package evm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/agentapis/sdk/internal/hexstr"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/wire"
)

// SchemeExact is the name of the scheme this package pays and verifies: a fixed amount paid
// with an EIP-3009 TransferWithAuthorization.
const SchemeExact = "exact"

// validAfterSkew back-dates validAfter, as every reference client does, so that a facilitator
// whose clock runs behind ours still sees the authorization as valid.
const validAfterSkew = 600

// Exact is the x402 "exact" scheme on EVM chains, paid with an EIP-3009
// TransferWithAuthorization signed under EIP-712: an x402.Scheme to give to x402.NewPayer.
// It is safe for concurrent use.
type Exact struct {
	signer  Signer
	address string
}

// The scheme is an x402.Scheme.
var _ x402.Scheme = (*Exact)(nil)

// NewExact returns the EVM "exact" scheme paying from signer's account. A nil signer, or one
// whose address is not a 20-byte hex address, is a *sdk.ValidationError.
func NewExact(signer Signer) (*Exact, error) {
	if signer == nil {
		return nil, invalid("signer", "must not be nil")
	}
	if !hexstr.IsAddress(signer.Address()) {
		return nil, invalid("signer address", "must be a 0x-prefixed 20-byte hex address")
	}
	return &Exact{signer: signer, address: signer.Address()}, nil
}

// Scheme returns "exact".
func (e *Exact) Scheme() string { return SchemeExact }

// Namespace returns "eip155", the CAIP-2 namespace of EVM chains.
func (e *Exact) Namespace() string { return "eip155" }

// DefaultNetwork returns NetworkBase.
func (e *Exact) DefaultNetwork() string { return NetworkBase }

// Payer returns the signer's address.
func (e *Exact) Payer() string { return e.address }

// Address returns the lower-case form of a hex address; see CanonicalAddress.
func (e *Exact) Address(address string) (string, error) { return CanonicalAddress(address) }

// USDC returns the USDC contract of Base or Base Sepolia.
func (e *Exact) USDC(network string) (string, bool) { return KnownUSDC(network) }

// Check says why an offer cannot be paid with EIP-3009 on its chain: a network without a
// valid chain id, an asset or a payee that is not a hex address, or no token EIP-712 domain
// (extra.name and extra.version), without which the contract would refuse the signature.
func (e *Exact) Check(offer *wire.PaymentRequirements) error {
	if _, err := ChainID(offer.Network); err != nil {
		return fmt.Errorf("network %q %v", offer.Network, err)
	}
	if !hexstr.IsAddress(offer.Asset) {
		return errors.New("asset is not a 0x-prefixed 20-byte hex address")
	}
	if !hexstr.IsAddress(offer.PayTo) {
		return errors.New("payTo is not a 0x-prefixed 20-byte hex address")
	}
	if _, _, ok := TokenDomain(offer); !ok {
		return errors.New("extra.name and extra.version (the token's EIP-712 domain) are required")
	}
	return nil
}

// Pay signs the EIP-3009 authorization of an offer: value = amount to payTo, a random 32-byte
// nonce, validAfter = now-600, validBefore = now+validity, under the domain {extra.name,
// extra.version, chain id, asset}. Its ID is the nonce, which is public; its secrets are the
// signature's hex forms.
func (e *Exact) Pay(_ context.Context, offer x402.Offer) (*x402.Signed, error) {
	payload, err := signExact(e.signer, &offer.Requirements, offer.Now, offer.Validity)
	if err != nil {
		return nil, err
	}
	raw, err := payload.MarshalJSON()
	if err != nil {
		return nil, err
	}
	auth := &payload.Authorization
	sigHex := string(appendHex(nil, payload.Signature))
	return &x402.Signed{
		Payload: raw,
		ID:      string(appendHex(nil, auth.Nonce[:])),
		Expires: time.Unix(auth.ValidBefore.Int64(), 0),
		Secrets: []string{sigHex, sigHex[2:]},
	}, nil
}

// SignExact builds and signs the EIP-3009 authorization paying entry r of challenge pr from
// signer, with now as the signing time, and returns the payment to send (encode it with
// wire.EncodePaymentPayload), in the protocol version of pr.
//
// It applies no policy: it is the building block for callers that do their own HTTP and
// their own checks. A Payer signs only after its Policy allowed the payment.
//
// The authorization pays exactly r.Amount to r.PayTo, with a nonce of 32 bytes from
// crypto/rand, validAfter = now-600 and validBefore = now+r.MaxTimeoutSeconds, signed under
// the EIP-712 domain {extra.name, extra.version, chain id of r.Network, r.Asset}.
func SignExact(signer Signer, pr *wire.PaymentRequired, r *wire.PaymentRequirements, now time.Time) (*wire.PaymentPayload, error) {
	switch {
	case signer == nil || pr == nil || r == nil:
		return nil, errors.New("x402: SignExact needs a signer, a challenge and an entry")
	case !r.Usable():
		return nil, fmt.Errorf("x402: cannot sign for this entry: %s", r.Unusable)
	case r.Scheme != SchemeExact:
		return nil, fmt.Errorf("x402: cannot sign for scheme %q", r.Scheme)
	case pr.X402Version != 1 && pr.X402Version != 2:
		return nil, fmt.Errorf("x402: unsupported x402Version %d", pr.X402Version)
	}
	payload, err := signExact(signer, r, now, time.Duration(r.MaxTimeoutSeconds)*time.Second)
	if err != nil {
		return nil, err
	}
	raw, err := payload.MarshalJSON()
	if err != nil {
		return nil, err
	}
	p := &wire.PaymentPayload{X402Version: pr.X402Version, Payload: raw}
	if pr.X402Version == 1 {
		p.Scheme, p.Network = r.Scheme, r.Network
	} else {
		p.Resource, p.Accepted, p.Extensions = pr.Resource, *r, pr.Extensions
	}
	return p, nil
}

// signExact signs the authorization paying r, valid for validity (whole seconds) from now.
func signExact(signer Signer, r *wire.PaymentRequirements, now time.Time, validity time.Duration) (*ExactPayload, error) {
	switch {
	case !wire.FitsUint256(r.Amount):
		return nil, errors.New("x402: cannot sign for this entry: amount missing or out of range")
	case r.MaxTimeoutSeconds <= 0 || validity < time.Second:
		return nil, errors.New("x402: cannot sign for this entry: maxTimeoutSeconds must be positive")
	}
	sep, err := separatorFor(r)
	if err != nil {
		return nil, fmt.Errorf("x402: cannot sign for this entry: %w", err)
	}
	from := signer.Address()
	if !hexstr.IsAddress(from) {
		return nil, invalid("signer address", "must be a 0x-prefixed 20-byte hex address")
	}
	unix := now.Unix()
	auth := Authorization{
		From:        from,
		To:          r.PayTo,
		Value:       new(big.Int).Set(r.Amount),
		ValidAfter:  big.NewInt(max(unix-validAfterSkew, 0)),
		ValidBefore: big.NewInt(unix + int64(validity/time.Second)),
	}
	if _, err := rand.Read(auth.Nonce[:]); err != nil {
		return nil, fmt.Errorf("x402: reading a random nonce: %w", err)
	}
	digest, err := authorizationDigest(sep, &auth)
	if err != nil {
		return nil, fmt.Errorf("x402: cannot sign for this entry: %w", err)
	}
	sig, err := signer.SignDigest(digest)
	if err != nil {
		return nil, err
	}
	if sig, err = normalizeSignature(sig); err != nil {
		return nil, err
	}
	return &ExactPayload{Signature: sig, Authorization: auth}, nil
}

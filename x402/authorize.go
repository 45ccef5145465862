package x402

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/agentapis/sdk/internal/hexstr"
)

// validAfterSkew back-dates validAfter, as every reference client does, so that a facilitator
// whose clock runs behind ours still sees the authorization as valid.
const validAfterSkew = 600

// SignExact builds and signs the EIP-3009 authorization paying entry r of challenge pr from
// signer, with now as the signing time, and returns the payload to send (encode it with
// EncodePaymentPayload), in the protocol version of pr.
//
// It applies no policy: it is the building block for callers that do their own HTTP and
// their own checks. A Payer calls it only after its Policy allowed the payment.
//
// The authorization pays exactly r.Amount to r.PayTo, with a nonce of 32 bytes from
// crypto/rand, validAfter = now-600 and validBefore = now+r.MaxTimeoutSeconds, signed under
// the EIP-712 domain {extra.name, extra.version, chain id of r.Network, r.Asset}.
func SignExact(signer Signer, pr *PaymentRequired, r *PaymentRequirements, now time.Time) (*PaymentPayload, error) {
	if r == nil {
		return nil, errors.New("x402: SignExact needs a signer, a challenge and an entry")
	}
	return signExact(signer, pr, r, now, time.Duration(r.MaxTimeoutSeconds)*time.Second)
}

// signExact is SignExact with the authorization valid for validity (whole seconds, at most
// r.MaxTimeoutSeconds) instead of the server's maxTimeoutSeconds.
func signExact(signer Signer, pr *PaymentRequired, r *PaymentRequirements, now time.Time, validity time.Duration) (*PaymentPayload, error) {
	switch {
	case signer == nil || pr == nil || r == nil:
		return nil, errors.New("x402: SignExact needs a signer, a challenge and an entry")
	case !r.Usable():
		return nil, fmt.Errorf("x402: cannot sign for this entry: %s", r.Unusable)
	case r.Scheme != SchemeExact:
		return nil, fmt.Errorf("x402: cannot sign for scheme %q", r.Scheme)
	case !fitsUint256(r.Amount):
		return nil, errors.New("x402: cannot sign for this entry: amount missing or out of range")
	case r.MaxTimeoutSeconds <= 0 || validity < time.Second:
		return nil, errors.New("x402: cannot sign for this entry: maxTimeoutSeconds must be positive")
	case pr.X402Version != 1 && pr.X402Version != 2:
		return nil, fmt.Errorf("x402: unsupported x402Version %d", pr.X402Version)
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
	p := &PaymentPayload{
		X402Version: pr.X402Version,
		Payload:     ExactPayload{Signature: sig, Authorization: auth},
	}
	if pr.X402Version == 1 {
		p.Scheme, p.Network = r.Scheme, r.Network
	} else {
		p.Resource, p.Accepted, p.Extensions = pr.Resource, *r, pr.Extensions
	}
	return p, nil
}

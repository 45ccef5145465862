package evm

import (
	"errors"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentapis/sdk/internal/hexstr"
	"github.com/agentapis/sdk/x402/wire"
)

// Reasons a payment is invalid: the codes of the reference EVM "exact" facilitator, which a
// server returns in the error field of its 402 and a client sees in PaymentRejectedError.
const (
	// ReasonInvalidScheme means the payment or the requirements are not for scheme "exact".
	ReasonInvalidScheme = "invalid_exact_evm_scheme"
	// ReasonNetworkMismatch means the payment is for another network than required.
	ReasonNetworkMismatch = "invalid_exact_evm_network_mismatch"
	// ReasonInvalidPayload means the authorization is incomplete or out of range.
	ReasonInvalidPayload = "invalid_exact_evm_payload"
	// ReasonMissingSignature means the payload carries no signature.
	ReasonMissingSignature = "invalid_exact_evm_payload_missing_signature"
	// ReasonUnknownNetwork means the required network is not an EVM chain this package knows
	// how to address, or the asset is not an address.
	ReasonUnknownNetwork = "invalid_exact_evm_failed_to_get_network_config"
	// ReasonMissingEIP712Domain means the requirements lack extra.name or extra.version.
	ReasonMissingEIP712Domain = "invalid_exact_evm_missing_eip712_domain"
	// ReasonRecipientMismatch means authorization.to is not the required payTo.
	ReasonRecipientMismatch = "invalid_exact_evm_recipient_mismatch"
	// ReasonInvalidAmount means the required amount is missing or out of range.
	ReasonInvalidAmount = "invalid_exact_evm_required_amount"
	// ReasonValueMismatch means authorization.value is not exactly the required amount.
	ReasonValueMismatch = "invalid_exact_evm_payload_authorization_value_mismatch"
	// ReasonValidBefore means the authorization expires in less than 6 seconds, or has expired.
	ReasonValidBefore = "invalid_exact_evm_payload_authorization_valid_before"
	// ReasonValidAfter means the authorization is not valid yet.
	ReasonValidAfter = "invalid_exact_evm_payload_authorization_valid_after"
	// ReasonSignatureFormat means the signature's v is not 0, 1, 27 or 28.
	ReasonSignatureFormat = "invalid_exact_evm_signature_format"
	// ReasonInvalidSignature means the signature does not recover to authorization.from.
	ReasonInvalidSignature = "invalid_exact_evm_signature"
	// ReasonNonceAlreadyUsed means the authorization's nonce was already used by its payer.
	ReasonNonceAlreadyUsed = "invalid_exact_evm_nonce_already_used"
	// ReasonInsufficientBalance means the payer's balance is below the amount.
	ReasonInsufficientBalance = "invalid_exact_evm_insufficient_balance"
	// ReasonAssetMismatch is this package's code for a v2 payload whose accepted asset is not
	// the required one; reference servers find that mismatch when matching requirements.
	ReasonAssetMismatch = "invalid_exact_evm_asset_mismatch"
)

// validBeforeMargin is how long, in seconds, an authorization must stay valid after
// verification: the reference facilitator requires validBefore >= now + 6.
const validBeforeMargin = 6

// VerifyExact checks offline that p pays req under the EVM "exact" scheme, as the reference
// facilitator does before it simulates the transfer, and returns the payer's checksummed
// address. It checks, in the reference order: the scheme is "exact"; the payload's network is
// req.Network; (v2) the payload's accepted asset is req.Asset; the network is an EVM chain;
// authorization.to is req.PayTo (any letter case); authorization.value equals req.Amount
// exactly; validBefore >= now+6; validAfter <= now; req.Extra has the token's EIP-712 name and
// version; and the 65-byte signature (v in {0, 1, 27, 28}, low s) recovers to
// authorization.from under the domain {extra.name, extra.version, chainId, asset}.
//
// It does not check balances or whether the nonce was used: those need the chain (see
// x402test.Facilitator for an in-memory one). A failure is a *wire.VerifyError with the
// reference code.
func VerifyExact(p *wire.PaymentPayload, req wire.PaymentRequirements, now time.Time) (payer string, err error) {
	e, err := checkTerms(p, req, now)
	if err != nil {
		return "", err
	}
	auth := &e.Authorization
	fail := func(reason, msg string) (string, error) {
		return "", &wire.VerifyError{Reason: reason, Message: msg, Payer: auth.From}
	}
	sig := e.Signature
	if len(sig) != 65 {
		return fail(ReasonInvalidSignature, "only 65-byte ECDSA signatures can be verified offline")
	}
	digest, err := digestFor(&req, auth)
	if err != nil {
		return fail(ReasonInvalidPayload, err.Error())
	}
	var rsv [65]byte
	copy(rsv[:], sig)
	switch rsv[64] {
	case 27, 28:
		rsv[64] -= 27
	case 0, 1:
	default:
		return fail(ReasonSignatureFormat, "v must be 27 or 28")
	}
	r, s := new(big.Int).SetBytes(rsv[:32]), new(big.Int).SetBytes(rsv[32:64])
	if !crypto.ValidateSignatureValues(rsv[64], r, s, true) {
		return fail(ReasonInvalidSignature, "r or s out of range (s must be in the lower half)")
	}
	pub, err := crypto.SigToPub(digest[:], rsv[:])
	if err != nil {
		return fail(ReasonInvalidSignature, "signature does not recover to a public key")
	}
	from, _ := parseAddress(auth.From) // checked by CheckExactTerms
	if crypto.PubkeyToAddress(*pub) != from {
		return fail(ReasonInvalidSignature, "signature does not recover to authorization.from")
	}
	return from.Hex(), nil
}

// CheckExactTerms makes every check of VerifyExact except the signature: use it only where
// the signature is verified elsewhere, as by a facilitator that settles the payment. A failure
// is a *wire.VerifyError with the reference code.
func CheckExactTerms(p *wire.PaymentPayload, req wire.PaymentRequirements, now time.Time) error {
	_, err := checkTerms(p, req, now)
	return err
}

// checkTerms is CheckExactTerms, returning the decoded payload.
func checkTerms(p *wire.PaymentPayload, req wire.PaymentRequirements, now time.Time) (*ExactPayload, error) {
	if p == nil {
		return nil, &wire.VerifyError{Reason: ReasonInvalidPayload, Message: "no payload"}
	}
	e, err := DecodeExactPayload(p)
	switch {
	case errors.Is(err, errMissingSignature):
		return nil, &wire.VerifyError{Reason: ReasonMissingSignature, Message: "missing signature"}
	case err != nil:
		return nil, &wire.VerifyError{Reason: ReasonInvalidPayload, Message: err.Error()}
	}
	return e, checkExact(p, e, req, now)
}

// checkExact checks the terms of the decoded payload e of p against req.
func checkExact(p *wire.PaymentPayload, e *ExactPayload, req wire.PaymentRequirements, now time.Time) error {
	auth := &e.Authorization
	fail := func(reason, msg string) error {
		return &wire.VerifyError{Reason: reason, Message: msg, Payer: auth.From}
	}
	scheme, network := p.ChosenScheme()
	if scheme != SchemeExact || req.Scheme != SchemeExact {
		return fail(ReasonInvalidScheme, "scheme must be exact")
	}
	if network != req.Network {
		return fail(ReasonNetworkMismatch, "payload network is not the required network")
	}
	if p.X402Version == 2 && !strings.EqualFold(p.Accepted.Asset, req.Asset) {
		return fail(ReasonAssetMismatch, "accepted asset is not the required asset")
	}
	if len(e.Signature) == 0 {
		return fail(ReasonMissingSignature, "missing signature")
	}
	if _, err := ChainID(req.Network); err != nil {
		return fail(ReasonUnknownNetwork, "network "+err.Error())
	}
	if !hexstr.IsAddress(req.Asset) {
		return fail(ReasonUnknownNetwork, "required asset is not a hex address")
	}
	if !sameAddress(auth.To, req.PayTo) {
		return fail(ReasonRecipientMismatch, "authorization.to is not payTo")
	}
	if !hexstr.IsAddress(auth.From) || !wire.FitsUint256(auth.Value) || !wire.FitsUint256(auth.ValidAfter) || !wire.FitsUint256(auth.ValidBefore) {
		return fail(ReasonInvalidPayload, "authorization is incomplete or out of range")
	}
	if !wire.FitsUint256(req.Amount) {
		return fail(ReasonInvalidAmount, "required amount is missing or out of range")
	}
	if auth.Value.Cmp(req.Amount) != 0 {
		return fail(ReasonValueMismatch, "authorization.value "+auth.Value.String()+" != amount "+req.Amount.String())
	}
	unix := big.NewInt(now.Unix())
	if auth.ValidBefore.Cmp(new(big.Int).Add(unix, big.NewInt(validBeforeMargin))) < 0 {
		return fail(ReasonValidBefore, "authorization expires too soon: validBefore "+auth.ValidBefore.String())
	}
	if auth.ValidAfter.Cmp(unix) > 0 {
		return fail(ReasonValidAfter, "authorization not yet valid: validAfter "+auth.ValidAfter.String())
	}
	if _, _, ok := TokenDomain(&req); !ok {
		return fail(ReasonMissingEIP712Domain, "requirements lack extra.name or extra.version")
	}
	return nil
}

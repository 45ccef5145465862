package evm

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/agentapis/sdk/internal/hexstr"
	"github.com/agentapis/sdk/x402/wire"
)

// Authorization is the EIP-3009 TransferWithAuthorization message the payer signs: it lets
// the token contract move Value from From to To once, between ValidAfter and ValidBefore
// (unix seconds), under a random Nonce.
type Authorization struct {
	From        string
	To          string
	Value       *big.Int
	ValidAfter  *big.Int
	ValidBefore *big.Int
	Nonce       [32]byte
}

// MarshalJSON writes the wire form: addresses and a 0x nonce as strings, numbers as decimal
// strings.
func (a Authorization) MarshalJSON() ([]byte, error) {
	w, err := a.wire()
	if err != nil {
		return nil, err
	}
	return wire.MarshalCompact(w)
}

// authorizationOut is the wire form of an authorization.
type authorizationOut struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

// wire checks a and returns its wire form.
func (a *Authorization) wire() (authorizationOut, error) {
	if !wire.FitsUint256(a.Value) || !wire.FitsUint256(a.ValidAfter) || !wire.FitsUint256(a.ValidBefore) {
		return authorizationOut{}, errors.New("x402: authorization value, validAfter and validBefore must be uint256 values")
	}
	if !hexstr.IsAddress(a.From) || !hexstr.IsAddress(a.To) {
		return authorizationOut{}, errors.New("x402: authorization from and to must be hex addresses")
	}
	return authorizationOut{From: a.From, To: a.To, Value: a.Value.String(), ValidAfter: a.ValidAfter.String(),
		ValidBefore: a.ValidBefore.String(), Nonce: string(appendHex(nil, a.Nonce[:]))}, nil
}

// UnmarshalJSON reads the wire form strictly: every field present, addresses as 0x hex,
// numbers as decimal strings that fit a uint256, and a 32-byte 0x nonce.
func (a *Authorization) UnmarshalJSON(b []byte) error {
	var w authorizationWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out, err := w.authorization()
	if err != nil {
		return err
	}
	*a = out
	return nil
}

// authorizationWire is an authorization as sent.
type authorizationWire struct {
	From        *string `json:"from"`
	To          *string `json:"to"`
	Value       *string `json:"value"`
	ValidAfter  *string `json:"validAfter"`
	ValidBefore *string `json:"validBefore"`
	Nonce       *string `json:"nonce"`
}

// authorization checks the wire form and converts it.
func (w *authorizationWire) authorization() (Authorization, error) {
	var out Authorization
	for _, f := range [...]struct {
		name string
		v    *string
	}{{"from", w.From}, {"to", w.To}, {"value", w.Value}, {"validAfter", w.ValidAfter}, {"validBefore", w.ValidBefore}, {"nonce", w.Nonce}} {
		if f.v == nil {
			return out, fmt.Errorf("authorization.%s is missing", f.name)
		}
	}
	if !hexstr.IsAddress(*w.From) {
		return out, errors.New("authorization.from is not a hex address")
	}
	if !hexstr.IsAddress(*w.To) {
		return out, errors.New("authorization.to is not a hex address")
	}
	out.From, out.To = *w.From, *w.To
	var err error
	if out.Value, err = wire.ParseUint256(*w.Value); err != nil {
		return out, fmt.Errorf("authorization.value %w", err)
	}
	if out.ValidAfter, err = wire.ParseUint256(*w.ValidAfter); err != nil {
		return out, fmt.Errorf("authorization.validAfter %w", err)
	}
	if out.ValidBefore, err = wire.ParseUint256(*w.ValidBefore); err != nil {
		return out, fmt.Errorf("authorization.validBefore %w", err)
	}
	if out.Nonce, err = decodeHex32(*w.Nonce); err != nil {
		return out, fmt.Errorf("authorization.nonce %w", err)
	}
	return out, nil
}

// ExactPayload is the payload of the EVM "exact" scheme: the authorization and its 65-byte
// signature r‖s‖v (v = 27 or 28).
type ExactPayload struct {
	Signature     []byte
	Authorization Authorization
}

// MarshalJSON writes the signature as 0x hex and the authorization in its wire form.
func (e ExactPayload) MarshalJSON() ([]byte, error) {
	w, err := e.wire()
	if err != nil {
		return nil, err
	}
	return wire.MarshalCompact(w)
}

// exactOut is the wire form of an EVM "exact" payload.
type exactOut struct {
	Signature     string           `json:"signature"`
	Authorization authorizationOut `json:"authorization"`
}

// wire checks e and returns its wire form.
func (e *ExactPayload) wire() (exactOut, error) {
	auth, err := e.Authorization.wire()
	if err != nil {
		return exactOut{}, err
	}
	out := exactOut{Authorization: auth}
	if len(e.Signature) > 0 {
		out.Signature = string(appendHex(nil, e.Signature))
	}
	return out, nil
}

// UnmarshalJSON reads a payload with a 0x-hex signature and a complete authorization.
func (e *ExactPayload) UnmarshalJSON(b []byte) error {
	var w exactWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out, err := w.payload()
	if err != nil {
		return err
	}
	*e = out
	return nil
}

// DecodeExactPayload reads the payload member of a PaymentPayload of the EVM "exact" scheme,
// as a server does: a 0x-hex signature and a complete EIP-3009 authorization.
func DecodeExactPayload(p *wire.PaymentPayload) (*ExactPayload, error) {
	if p == nil {
		return nil, errors.New("no payload")
	}
	var e ExactPayload
	if err := e.UnmarshalJSON(p.Payload); err != nil { // not json.Unmarshal, which scans it once more
		return nil, err
	}
	return &e, nil
}

// errMissingSignature reports a payload without a signature, which a facilitator reports with
// its own code (ReasonMissingSignature).
var errMissingSignature = errors.New("payload.signature is missing")

// exactWire is an EVM "exact" payload as sent.
type exactWire struct {
	Signature     *string            `json:"signature"`
	Authorization *authorizationWire `json:"authorization"`
}

// payload checks the wire form and converts it.
func (w *exactWire) payload() (ExactPayload, error) {
	if w.Signature == nil || *w.Signature == "" {
		return ExactPayload{}, errMissingSignature
	}
	s := *w.Signature
	if !hexstr.Has0x(s) || len(s)%2 != 0 || !hexstr.IsHex(s[2:]) {
		return ExactPayload{}, errors.New("payload.signature is not 0x-prefixed hex")
	}
	if w.Authorization == nil {
		return ExactPayload{}, errors.New("payload.authorization is missing (only EIP-3009 payloads are supported)")
	}
	auth, err := w.Authorization.authorization()
	if err != nil {
		return ExactPayload{}, err
	}
	sig, _ := hex.DecodeString(s[2:]) // checked by isHex and the even length above
	return ExactPayload{Signature: sig, Authorization: auth}, nil
}

package x402

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
)

// SchemeExact is the payment scheme this package signs and verifies: a fixed amount paid with
// an EIP-3009 TransferWithAuthorization.
const SchemeExact = "exact"

// ResourceInfo describes the resource a v2 challenge asks payment for.
type ResourceInfo struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	// Raw is the object as the server sent it. When set, MarshalJSON writes it unchanged, so a
	// payment echoes the server's bytes; clear it after changing the fields.
	Raw json.RawMessage `json:"-"`
}

// MarshalJSON writes Raw when it is set, and the fields otherwise.
func (r ResourceInfo) MarshalJSON() ([]byte, error) {
	return r.appendJSON(nil), nil
}

// appendJSON appends Raw, or the fields, to dst.
func (r *ResourceInfo) appendJSON(dst []byte) []byte {
	if len(r.Raw) > 0 {
		return append(dst, r.Raw...)
	}
	dst = append(dst, `{"url":`...)
	dst = appendJSONString(dst, r.URL)
	if r.Description != "" {
		dst = append(dst, `,"description":`...)
		dst = appendJSONString(dst, r.Description)
	}
	if r.MimeType != "" {
		dst = append(dst, `,"mimeType":`...)
		dst = appendJSONString(dst, r.MimeType)
	}
	return append(dst, '}')
}

// UnmarshalJSON decodes the fields and keeps the object's bytes in Raw.
func (r *ResourceInfo) UnmarshalJSON(b []byte) error {
	type plain ResourceInfo
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = ResourceInfo(p)
	r.Raw = append(json.RawMessage(nil), bytes.TrimSpace(b)...)
	return nil
}

// PaymentRequirements is one entry of a challenge's accepts list: one way the server lets the
// client pay. The same type carries v1 entries, whose amount field is maxAmountRequired and
// which hold their own resource description.
//
// An entry read from the wire keeps its bytes in Raw, and is marked Unusable (with the
// reason) when it cannot be paid safely: an amount that is not a non-negative decimal integer
// string of at most 78 digits, a network that is not CAIP-2, or, on an EVM network, a
// malformed address or a missing extra.name or extra.version. The other entries of the same
// challenge stay usable.
type PaymentRequirements struct {
	// Scheme is the payment scheme, such as "exact".
	Scheme string
	// Network is the chain in CAIP-2 form, such as "eip155:8453" (v1: a name such as "base").
	Network string
	// Amount is the price in the token's atomic units (USDC has 6 decimals: 10000 is $0.01).
	// It is nil when the entry's amount was unusable.
	Amount *big.Int
	// Asset is the token contract address.
	Asset string
	// PayTo is the recipient address.
	PayTo string
	// MaxTimeoutSeconds is how long the server allows for the payment; the signed
	// authorization is valid for that long.
	MaxTimeoutSeconds int
	// Extra holds scheme-specific data; for EVM "exact" it holds the token's EIP-712 domain
	// "name" and "version".
	Extra map[string]any
	// Resource, Description, MimeType and OutputSchema are v1 fields; v2 describes the
	// resource once, in PaymentRequired.Resource.
	Resource     string
	Description  string
	MimeType     string
	OutputSchema json.RawMessage
	// Raw is the entry as the server sent it. When set, MarshalJSON writes it unchanged, so the
	// paid request echoes the chosen entry byte for byte; clear it after changing the fields.
	Raw json.RawMessage
	// Unusable says why the entry cannot be paid; it is empty for a usable entry.
	Unusable string
}

// Usable reports whether the entry passed the checks made when it was read.
func (r *PaymentRequirements) Usable() bool { return r.Unusable == "" }

// TokenDomain returns the token's EIP-712 domain name and version from Extra, and whether
// both are present and non-empty.
func (r *PaymentRequirements) TokenDomain() (name, version string, ok bool) {
	name, _ = r.Extra["name"].(string)
	version, _ = r.Extra["version"].(string)
	return name, version, name != "" && version != ""
}

// MarshalJSON writes Raw when it is set, and the v2 form of the fields otherwise.
func (r PaymentRequirements) MarshalJSON() ([]byte, error) {
	return r.appendJSON(nil, 2)
}

// UnmarshalJSON decodes an entry of either protocol version, keeps its bytes in Raw and
// marks it Unusable when its values are unusable. Only a value that is not a JSON object is
// an error.
func (r *PaymentRequirements) UnmarshalJSON(b []byte) error {
	parsed, err := parseRequirements(b, 0)
	if err != nil {
		return err
	}
	*r = parsed
	return nil
}

// appendJSON appends Raw when it is set, and otherwise the fields in the wire form of the
// given protocol version.
func (r *PaymentRequirements) appendJSON(dst []byte, version int) ([]byte, error) {
	if len(r.Raw) > 0 {
		return append(dst, r.Raw...), nil
	}
	if r.Amount == nil {
		return nil, errors.New("x402: PaymentRequirements.Amount is nil")
	}
	field := func(name, value string) {
		dst = append(dst, ',', '"')
		dst = append(dst, name...)
		dst = append(dst, '"', ':')
		dst = appendJSONString(dst, value)
	}
	dst = append(dst, `{"scheme":`...)
	dst = appendJSONString(dst, r.Scheme)
	field("network", r.Network)
	if version == 1 {
		field("maxAmountRequired", r.Amount.String())
		field("resource", r.Resource)
		field("description", r.Description)
		field("mimeType", r.MimeType)
		if len(r.OutputSchema) > 0 {
			dst = append(dst, `,"outputSchema":`...)
			dst = append(dst, r.OutputSchema...)
		}
		field("payTo", r.PayTo)
		dst = append(dst, `,"maxTimeoutSeconds":`...)
		dst = strconv.AppendInt(dst, int64(r.MaxTimeoutSeconds), 10)
		field("asset", r.Asset)
	} else {
		field("amount", r.Amount.String())
		field("asset", r.Asset)
		field("payTo", r.PayTo)
		dst = append(dst, `,"maxTimeoutSeconds":`...)
		dst = strconv.AppendInt(dst, int64(r.MaxTimeoutSeconds), 10)
	}
	if len(r.Extra) > 0 {
		var err error
		dst = append(dst, `,"extra":`...)
		if dst, err = appendJSONObject(dst, r.Extra); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// errNotObject is the error for an accepts entry that is not a JSON object.
var errNotObject = errors.New("not a JSON object")

// requirementsWire is an accepts entry as sent, each field kept raw so that a field of the
// wrong type makes only this entry unusable.
type requirementsWire struct {
	Scheme            json.RawMessage `json:"scheme"`
	Network           json.RawMessage `json:"network"`
	Amount            json.RawMessage `json:"amount"`
	MaxAmountRequired json.RawMessage `json:"maxAmountRequired"`
	Asset             json.RawMessage `json:"asset"`
	PayTo             json.RawMessage `json:"payTo"`
	MaxTimeoutSeconds json.RawMessage `json:"maxTimeoutSeconds"`
	Extra             json.RawMessage `json:"extra"`
	Resource          json.RawMessage `json:"resource"`
	Description       json.RawMessage `json:"description"`
	MimeType          json.RawMessage `json:"mimeType"`
	OutputSchema      json.RawMessage `json:"outputSchema"`
}

// parseRequirements reads one accepts entry of the given protocol version (0: detect from the
// amount field). Only a value that is not a JSON object is an error; every other problem marks
// the entry Unusable and the fields that could be read are kept.
func parseRequirements(raw []byte, version int) (PaymentRequirements, error) {
	raw = bytes.TrimSpace(raw)
	var w requirementsWire
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &w) != nil {
		return PaymentRequirements{}, errNotObject
	}
	r := PaymentRequirements{Raw: append(json.RawMessage(nil), raw...)}
	note := func(format string, args ...any) {
		if r.Unusable == "" {
			r.Unusable = fmt.Sprintf(format, args...)
		}
	}
	str := func(key string, v json.RawMessage, required bool) string {
		if !present(v) {
			if required {
				note("%s is missing", key)
			}
			return ""
		}
		s, ok := jsonString(v)
		if !ok {
			note("%s must be a string", key)
		}
		return s
	}

	r.Scheme = str("scheme", w.Scheme, true)
	r.Network = str("network", w.Network, true)
	amountKey, amount := "amount", w.Amount
	if version == 1 || (version == 0 && len(w.Amount) == 0) {
		amountKey, amount = "maxAmountRequired", w.MaxAmountRequired
	}
	if s := str(amountKey, amount, true); s != "" {
		n, err := parseUint256(s)
		if err != nil {
			note("%s %v", amountKey, err)
		} else {
			r.Amount = n
		}
	} else if present(amount) {
		note("%s %v", amountKey, errNotDecimal)
	}
	r.Asset = str("asset", w.Asset, true)
	r.PayTo = str("payTo", w.PayTo, true)
	switch n, ok := jsonInt(w.MaxTimeoutSeconds, 32); {
	case !present(w.MaxTimeoutSeconds):
		note("maxTimeoutSeconds is missing")
	case !ok || n <= 0:
		note("maxTimeoutSeconds must be a positive integer")
	default:
		r.MaxTimeoutSeconds = int(n)
	}
	if present(w.Extra) {
		if err := json.Unmarshal(w.Extra, &r.Extra); err != nil || r.Extra == nil {
			r.Extra = nil
			note("extra must be an object")
		}
	}
	r.Resource = str("resource", w.Resource, false)
	r.Description = str("description", w.Description, false)
	r.MimeType = str("mimeType", w.MimeType, false)
	if present(w.OutputSchema) {
		r.OutputSchema = append(json.RawMessage(nil), w.OutputSchema...)
	}

	switch {
	case r.Network == "":
	case version == 2 && !isCAIP2(r.Network):
		note("network %q is not a CAIP-2 network id", r.Network)
	case version != 2:
		if _, err := normalizeNetwork(r.Network); err != nil {
			note("network %q is neither CAIP-2 nor a known v1 network name", r.Network)
		}
	}
	if _, err := evmChainID(r.Network); err == nil {
		if r.Asset != "" && !isHexAddress(r.Asset) {
			note("asset is not a 0x-prefixed 20-byte hex address")
		}
		if r.PayTo != "" && !isHexAddress(r.PayTo) {
			note("payTo is not a 0x-prefixed 20-byte hex address")
		}
		if _, _, ok := r.TokenDomain(); !ok {
			note("extra.name and extra.version (the token's EIP-712 domain) are required")
		}
	}
	return r, nil
}

// PaymentRequired is the challenge of a 402 response: in v2 the decoded PAYMENT-REQUIRED
// header, in v1 the JSON body.
type PaymentRequired struct {
	// X402Version is the protocol version, 1 or 2.
	X402Version int
	// Error is the server's reason for the 402, such as "Payment required" or a facilitator
	// code after a rejected payment.
	Error string
	// Resource describes what is paid for (v2 only).
	Resource *ResourceInfo
	// Accepts lists the ways the server accepts payment, in its order of preference. Entries
	// that cannot be paid are kept, marked Unusable.
	Accepts []PaymentRequirements
	// Extensions is the server's extensions object, echoed into the payment.
	Extensions json.RawMessage
}

// UnmarshalJSON decodes a challenge of version 1 or 2. Each accepts entry is read on its own,
// so a malformed entry is marked Unusable instead of failing the challenge.
func (p *PaymentRequired) UnmarshalJSON(b []byte) error {
	return p.decode(b)
}

// decode is UnmarshalJSON without the validation pass encoding/json makes before calling it.
func (p *PaymentRequired) decode(b []byte) error {
	var w struct {
		X402Version *int               `json:"x402Version"`
		Error       string             `json:"error"`
		Resource    *ResourceInfo      `json:"resource"`
		Accepts     *[]json.RawMessage `json:"accepts"`
		Extensions  json.RawMessage    `json:"extensions"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	switch {
	case w.X402Version == nil:
		return errors.New("x402Version is missing")
	case *w.X402Version != 1 && *w.X402Version != 2:
		return fmt.Errorf("unsupported x402Version %d", *w.X402Version)
	case w.Accepts == nil:
		return errors.New("accepts is missing")
	}
	out := PaymentRequired{X402Version: *w.X402Version, Error: w.Error, Resource: w.Resource}
	if present(w.Extensions) {
		out.Extensions = w.Extensions
	}
	out.Accepts = make([]PaymentRequirements, 0, len(*w.Accepts))
	for _, raw := range *w.Accepts {
		r, err := parseRequirements(raw, out.X402Version)
		if err != nil {
			r = PaymentRequirements{Raw: raw, Unusable: "entry is " + err.Error()}
		}
		out.Accepts = append(out.Accepts, r)
	}
	*p = out
	return nil
}

// MarshalJSON encodes the challenge in the wire form of its X402Version; entries with Raw set
// are written unchanged.
func (p PaymentRequired) MarshalJSON() ([]byte, error) {
	return p.appendJSON(make([]byte, 0, 512))
}

// appendJSON appends the wire form of p to dst.
func (p *PaymentRequired) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"x402Version":`...)
	dst = strconv.AppendInt(dst, int64(p.X402Version), 10)
	if p.Error != "" {
		dst = append(dst, `,"error":`...)
		dst = appendJSONString(dst, p.Error)
	}
	if p.Resource != nil {
		dst = append(dst, `,"resource":`...)
		dst = p.Resource.appendJSON(dst)
	}
	dst = append(dst, `,"accepts":[`...)
	for i := range p.Accepts {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = p.Accepts[i].appendJSON(dst, p.X402Version); err != nil {
			return nil, err
		}
	}
	dst = append(dst, ']')
	if len(p.Extensions) > 0 {
		dst = append(dst, `,"extensions":`...)
		dst = append(dst, p.Extensions...)
	}
	return append(dst, '}'), nil
}

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
	return a.appendJSON(nil)
}

// appendJSON appends the wire form of a to dst.
func (a *Authorization) appendJSON(dst []byte) ([]byte, error) {
	if !fitsUint256(a.Value) || !fitsUint256(a.ValidAfter) || !fitsUint256(a.ValidBefore) {
		return nil, errors.New("x402: authorization value, validAfter and validBefore must be uint256 values")
	}
	if !isHexAddress(a.From) || !isHexAddress(a.To) {
		return nil, errors.New("x402: authorization from and to must be hex addresses")
	}
	dst = append(dst, `{"from":"`...)
	dst = append(dst, a.From...)
	dst = append(dst, `","to":"`...)
	dst = append(dst, a.To...)
	dst = append(dst, `","value":"`...)
	dst = a.Value.Append(dst, 10)
	dst = append(dst, `","validAfter":"`...)
	dst = a.ValidAfter.Append(dst, 10)
	dst = append(dst, `","validBefore":"`...)
	dst = a.ValidBefore.Append(dst, 10)
	dst = append(dst, `","nonce":"`...)
	dst = appendHex(dst, a.Nonce[:])
	return append(dst, `"}`...), nil
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
	if !isHexAddress(*w.From) {
		return out, errors.New("authorization.from is not a hex address")
	}
	if !isHexAddress(*w.To) {
		return out, errors.New("authorization.to is not a hex address")
	}
	out.From, out.To = *w.From, *w.To
	var err error
	if out.Value, err = parseUint256(*w.Value); err != nil {
		return out, fmt.Errorf("authorization.value %w", err)
	}
	if out.ValidAfter, err = parseUint256(*w.ValidAfter); err != nil {
		return out, fmt.Errorf("authorization.validAfter %w", err)
	}
	if out.ValidBefore, err = parseUint256(*w.ValidBefore); err != nil {
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
	return e.appendJSON(nil)
}

// appendJSON appends the wire form of e to dst.
func (e *ExactPayload) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"signature":"`...)
	dst = appendHex(dst, e.Signature)
	dst = append(dst, `","authorization":`...)
	dst, err := e.Authorization.appendJSON(dst)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
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

// exactWire is an EVM "exact" payload as sent.
type exactWire struct {
	Signature     *string            `json:"signature"`
	Authorization *authorizationWire `json:"authorization"`
}

// payload checks the wire form and converts it.
func (w *exactWire) payload() (ExactPayload, error) {
	if w.Signature == nil || *w.Signature == "" {
		return ExactPayload{}, errors.New("payload.signature is missing")
	}
	s := *w.Signature
	if !has0x(s) || len(s)%2 != 0 || !isHex(s[2:]) {
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

// PaymentPayload is the signed payment a client sends: in v2 the decoded PAYMENT-SIGNATURE
// header, in v1 the decoded X-PAYMENT header.
type PaymentPayload struct {
	// X402Version is the protocol version, 1 or 2.
	X402Version int
	// Resource is the challenge's resource, echoed (v2).
	Resource *ResourceInfo
	// Accepted is the accepts entry the client chose, echoed byte for byte through its Raw
	// field (v2).
	Accepted PaymentRequirements
	// Scheme and Network name the chosen scheme and network (v1, where the payload is flat).
	Scheme  string
	Network string
	// Payload is the signed EIP-3009 authorization.
	Payload ExactPayload
	// Extensions is the challenge's extensions object, echoed (v2).
	Extensions json.RawMessage
}

// scheme returns the scheme the payload says it pays with, whatever its version.
func (p *PaymentPayload) scheme() string {
	if p.X402Version == 1 {
		return p.Scheme
	}
	return p.Accepted.Scheme
}

// network returns the network the payload says it pays on, whatever its version.
func (p *PaymentPayload) network() string {
	if p.X402Version == 1 {
		return p.Network
	}
	return p.Accepted.Network
}

// MarshalJSON writes the compact wire form of the payload's version. In v2 the accepted entry,
// the resource and the extensions are written exactly as received when they carry raw bytes
// (EncodePaymentPayload keeps them byte for byte; json.Marshal re-compacts and HTML-escapes
// what MarshalJSON returns, which changes bytes but not meaning).
func (p PaymentPayload) MarshalJSON() ([]byte, error) {
	return p.appendJSON(make([]byte, 0, 1024))
}

// appendJSON appends the wire form of p to dst.
func (p *PaymentPayload) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"x402Version":`...)
	dst = strconv.AppendInt(dst, int64(p.X402Version), 10)
	switch p.X402Version {
	case 1:
		dst = append(dst, `,"scheme":`...)
		dst = appendJSONString(dst, p.Scheme)
		dst = append(dst, `,"network":`...)
		dst = appendJSONString(dst, p.Network)
	case 2:
		if p.Resource != nil {
			dst = append(dst, `,"resource":`...)
			dst = p.Resource.appendJSON(dst)
		}
		dst = append(dst, `,"accepted":`...)
		var err error
		if dst, err = p.Accepted.appendJSON(dst, 2); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("x402: unsupported x402Version %d", p.X402Version)
	}
	dst = append(dst, `,"payload":`...)
	dst, err := p.Payload.appendJSON(dst)
	if err != nil {
		return nil, err
	}
	if p.X402Version == 2 && len(p.Extensions) > 0 {
		dst = append(dst, `,"extensions":`...)
		dst = append(dst, p.Extensions...)
	}
	return append(dst, '}'), nil
}

// UnmarshalJSON reads a v1 or v2 payload of the EVM "exact" scheme.
func (p *PaymentPayload) UnmarshalJSON(b []byte) error {
	return p.decode(b)
}

// decode is UnmarshalJSON without the validation pass encoding/json makes before calling it:
// the whole payload is decoded in one pass, only the accepted entry a second time.
func (p *PaymentPayload) decode(b []byte) error {
	var w struct {
		X402Version *int            `json:"x402Version"`
		Resource    *ResourceInfo   `json:"resource"`
		Accepted    json.RawMessage `json:"accepted"`
		Scheme      string          `json:"scheme"`
		Network     string          `json:"network"`
		Payload     *exactWire      `json:"payload"`
		Extensions  json.RawMessage `json:"extensions"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.X402Version == nil {
		return errors.New("x402Version is missing")
	}
	out := PaymentPayload{X402Version: *w.X402Version}
	switch out.X402Version {
	case 1:
		if w.Scheme == "" || w.Network == "" {
			return errors.New("scheme and network are required in a v1 payload")
		}
		out.Scheme, out.Network = w.Scheme, w.Network
	case 2:
		if !present(w.Accepted) {
			return errors.New("accepted is missing")
		}
		acc, err := parseRequirements(w.Accepted, 2)
		if err != nil {
			return fmt.Errorf("accepted is %w", err)
		}
		out.Accepted = acc
		out.Resource = w.Resource
		if present(w.Extensions) {
			out.Extensions = w.Extensions
		}
	default:
		return fmt.Errorf("unsupported x402Version %d", out.X402Version)
	}
	if w.Payload == nil {
		return errors.New("payload is missing")
	}
	payload, err := w.Payload.payload()
	if err != nil {
		return err
	}
	out.Payload = payload
	*p = out
	return nil
}

// SettleResponse is the settlement result a server returns in PAYMENT-RESPONSE (v1:
// X-PAYMENT-RESPONSE): the receipt of a payment.
type SettleResponse struct {
	// Success reports whether the payment was settled.
	Success bool `json:"success"`
	// ErrorReason is the facilitator's code when settlement failed.
	ErrorReason string `json:"errorReason,omitempty"`
	// ErrorMessage is a human-readable explanation of a failure.
	ErrorMessage string `json:"errorMessage,omitempty"`
	// Payer is the paying address.
	Payer string `json:"payer,omitempty"`
	// Transaction is the settlement transaction hash (empty on failure).
	Transaction string `json:"transaction"`
	// Network is the CAIP-2 network the payment settled on.
	Network string `json:"network"`
	// Amount is the settled amount in atomic units, when the server reports it.
	Amount string `json:"amount,omitempty"`
	// Extensions is the server's extensions object.
	Extensions json.RawMessage `json:"extensions,omitempty"`
}

// appendJSON appends the compact JSON of s to dst, field for field as encoding/json writes
// the struct with HTML escaping off; Extensions is validated and compacted as json.Marshal
// does with a json.RawMessage.
func (s *SettleResponse) appendJSON(dst []byte) ([]byte, error) {
	optional := func(name, value string) {
		if value != "" {
			dst = append(dst, ',', '"')
			dst = append(dst, name...)
			dst = append(dst, '"', ':')
			dst = appendJSONString(dst, value)
		}
	}
	dst = append(dst, `{"success":`...)
	dst = strconv.AppendBool(dst, s.Success)
	optional("errorReason", s.ErrorReason)
	optional("errorMessage", s.ErrorMessage)
	optional("payer", s.Payer)
	dst = append(dst, `,"transaction":`...)
	dst = appendJSONString(dst, s.Transaction)
	dst = append(dst, `,"network":`...)
	dst = appendJSONString(dst, s.Network)
	optional("amount", s.Amount)
	if len(s.Extensions) > 0 {
		var ext bytes.Buffer
		if err := json.Compact(&ext, s.Extensions); err != nil {
			return nil, fmt.Errorf("x402: SettleResponse.Extensions: %w", err)
		}
		dst = append(dst, `,"extensions":`...)
		dst = append(dst, ext.Bytes()...)
	}
	return append(dst, '}'), nil
}

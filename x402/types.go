package x402

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/agentapis/sdk/internal/hexstr"
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
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	type plain ResourceInfo // the fields, without this method
	return marshalCompact(plain(r))
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
func (r PaymentRequirements) MarshalJSON() ([]byte, error) { return marshalWire(r.wire(2)) }

// UnmarshalJSON decodes an entry of either protocol version, keeps its bytes in Raw and
// marks it Unusable when its values are unusable. Only a value that is not a JSON object is
// an error.
func (r *PaymentRequirements) UnmarshalJSON(b []byte) error {
	parsed, err := parseRequirements(bytes.Clone(b), 0)
	if err != nil {
		return err
	}
	*r = parsed
	return nil
}

// requirementsV2 is the v2 wire form of an entry written from its fields.
type requirementsV2 struct {
	Scheme            string         `json:"scheme"`
	Network           string         `json:"network"`
	Amount            string         `json:"amount"`
	Asset             string         `json:"asset"`
	PayTo             string         `json:"payTo"`
	MaxTimeoutSeconds int            `json:"maxTimeoutSeconds"`
	Extra             map[string]any `json:"extra,omitempty"`
}

// requirementsV1 is the v1 wire form of an entry written from its fields.
type requirementsV1 struct {
	Scheme            string          `json:"scheme"`
	Network           string          `json:"network"`
	MaxAmountRequired string          `json:"maxAmountRequired"`
	Resource          string          `json:"resource"`
	Description       string          `json:"description"`
	MimeType          string          `json:"mimeType"`
	OutputSchema      json.RawMessage `json:"outputSchema,omitempty"`
	PayTo             string          `json:"payTo"`
	MaxTimeoutSeconds int             `json:"maxTimeoutSeconds"`
	Asset             string          `json:"asset"`
	Extra             map[string]any  `json:"extra,omitempty"`
}

// wire returns what encoding/json writes for the entry in the given protocol version: Raw
// when it is set, the fields otherwise.
func (r *PaymentRequirements) wire(version int) (any, error) {
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	if r.Amount == nil {
		return nil, errors.New("x402: PaymentRequirements.Amount is nil")
	}
	if version == 1 {
		return requirementsV1{Scheme: r.Scheme, Network: r.Network, MaxAmountRequired: r.Amount.String(),
			Resource: r.Resource, Description: r.Description, MimeType: r.MimeType, OutputSchema: r.OutputSchema,
			PayTo: r.PayTo, MaxTimeoutSeconds: r.MaxTimeoutSeconds, Asset: r.Asset, Extra: r.Extra}, nil
	}
	return requirementsV2{Scheme: r.Scheme, Network: r.Network, Amount: r.Amount.String(), Asset: r.Asset,
		PayTo: r.PayTo, MaxTimeoutSeconds: r.MaxTimeoutSeconds, Extra: r.Extra}, nil
}

// errNotObject is the error for an accepts entry that is not a JSON object.
var errNotObject = errors.New("not a JSON object")

// requirementsIn is an accepts entry as sent, read in one pass. A member of the wrong type
// makes only this entry unusable: encoding/json reports it and goes on with the others.
type requirementsIn struct {
	Scheme            string          `json:"scheme"`
	Network           string          `json:"network"`
	Amount            *string         `json:"amount"`
	MaxAmountRequired *string         `json:"maxAmountRequired"`
	Asset             string          `json:"asset"`
	PayTo             string          `json:"payTo"`
	MaxTimeoutSeconds *int64          `json:"maxTimeoutSeconds"`
	Extra             map[string]any  `json:"extra"`
	Resource          string          `json:"resource"`
	Description       string          `json:"description"`
	MimeType          string          `json:"mimeType"`
	OutputSchema      json.RawMessage `json:"outputSchema"`
}

// parseRequirements reads one accepts entry of the given protocol version (0: detect from the
// amount member), keeping raw, which the caller hands over, as the entry's Raw. Only a value
// that is not a JSON object is an error; every other problem marks the entry Unusable and the
// members that could be read are kept.
func parseRequirements(raw []byte, version int) (PaymentRequirements, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return PaymentRequirements{}, errNotObject
	}
	var w requirementsIn
	err := json.Unmarshal(raw, &w)
	var typeErr *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &typeErr) {
		return PaymentRequirements{}, errNotObject
	}
	r := PaymentRequirements{Raw: raw, Scheme: w.Scheme, Network: w.Network, Asset: w.Asset, PayTo: w.PayTo,
		Extra: w.Extra, Resource: w.Resource, Description: w.Description, MimeType: w.MimeType}
	note := func(format string, args ...any) {
		if r.Unusable == "" {
			r.Unusable = fmt.Sprintf(format, args...)
		}
	}
	if typeErr != nil {
		note("%s must be %s", typeErr.Field, expectedKind(typeErr.Field))
	}
	required := func(key, v string) {
		if v == "" {
			note("%s is missing", key)
		}
	}
	required("scheme", r.Scheme)
	required("network", r.Network)
	amountKey, amount := "amount", w.Amount
	if version == 1 || (version == 0 && w.Amount == nil && (typeErr == nil || typeErr.Field != "amount")) {
		amountKey, amount = "maxAmountRequired", w.MaxAmountRequired
	}
	if amount == nil {
		note("%s is missing", amountKey)
	} else if n, err := parseUint256(*amount); err != nil {
		note("%s %v", amountKey, err)
	} else {
		r.Amount = n
	}
	required("asset", r.Asset)
	required("payTo", r.PayTo)
	switch t := w.MaxTimeoutSeconds; {
	case t == nil:
		note("maxTimeoutSeconds is missing")
	case *t <= 0 || *t > math.MaxInt32:
		note("maxTimeoutSeconds must be a positive integer")
	default:
		r.MaxTimeoutSeconds = int(*t)
	}
	if present(w.OutputSchema) {
		r.OutputSchema = w.OutputSchema
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
		if r.Asset != "" && !hexstr.IsAddress(r.Asset) {
			note("asset is not a 0x-prefixed 20-byte hex address")
		}
		if r.PayTo != "" && !hexstr.IsAddress(r.PayTo) {
			note("payTo is not a 0x-prefixed 20-byte hex address")
		}
		if _, _, ok := r.TokenDomain(); !ok {
			note("extra.name and extra.version (the token's EIP-712 domain) are required")
		}
	}
	return r, nil
}

// expectedKind names what an entry's member must be, for the reason of an unusable entry.
func expectedKind(member string) string {
	switch member {
	case "maxTimeoutSeconds":
		return "a positive integer"
	case "extra":
		return "an object"
	}
	return "a string"
}

// present reports whether a member was sent with a value other than null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
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
	for _, raw := range *w.Accepts { // each a copy of its own, which the entry keeps as Raw
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
	w := challengeOut{X402Version: p.X402Version, Error: p.Error, Resource: p.Resource,
		Accepts: make([]any, len(p.Accepts)), Extensions: p.Extensions}
	for i := range p.Accepts {
		var err error
		if w.Accepts[i], err = p.Accepts[i].wire(p.X402Version); err != nil {
			return nil, err
		}
	}
	return marshalCompact(w)
}

// challengeOut is the wire form of a challenge.
type challengeOut struct {
	X402Version int             `json:"x402Version"`
	Error       string          `json:"error,omitempty"`
	Resource    *ResourceInfo   `json:"resource,omitempty"`
	Accepts     []any           `json:"accepts"`
	Extensions  json.RawMessage `json:"extensions,omitempty"`
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
func (a Authorization) MarshalJSON() ([]byte, error) { return marshalWire(a.wire()) }

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
	if !fitsUint256(a.Value) || !fitsUint256(a.ValidAfter) || !fitsUint256(a.ValidBefore) {
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
	return unmarshalWire(b, a, (*authorizationWire).authorization)
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
func (e ExactPayload) MarshalJSON() ([]byte, error) { return marshalWire(e.wire()) }

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
	return exactOut{Signature: string(appendHex(nil, e.Signature)), Authorization: auth}, nil
}

// UnmarshalJSON reads a payload with a 0x-hex signature and a complete authorization.
func (e *ExactPayload) UnmarshalJSON(b []byte) error {
	return unmarshalWire(b, e, (*exactWire).payload)
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

// MarshalJSON writes the compact wire form of the payload's version. In v2 the accepted entry
// is written byte for byte as the server sent it, and the resource and the extensions as
// received when they carry raw bytes; EncodePaymentPayload keeps them so, while json.Marshal
// compacts and HTML-escapes what MarshalJSON returns, which changes bytes but not meaning.
func (p PaymentPayload) MarshalJSON() ([]byte, error) {
	w, err := p.wire()
	if err != nil {
		return nil, err
	}
	raw, ok := w.Accepted.(json.RawMessage)
	if !ok {
		return marshalCompact(w)
	}
	// encoding/json would compact the server's entry, so it goes in between the members
	// before it and those after it, each part encoded by encoding/json.
	head, err := marshalCompact(payloadOut{X402Version: w.X402Version, Resource: w.Resource})
	if err != nil {
		return nil, err
	}
	tail, err := marshalCompact(payloadOut{Payload: w.Payload, Extensions: w.Extensions})
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(head)+len(raw)+len(tail)+len(`,"accepted":,`))
	out = append(out, head[:len(head)-1]...) // without its closing brace
	out = append(out, `,"accepted":`...)
	out = append(out, raw...)
	out = append(out, ',')
	return append(out, tail[1:]...), nil // without its opening brace
}

// payloadOut is the wire form of a payment payload: scheme and network in v1; resource,
// accepted and extensions in v2. Every member may be left out, so that MarshalJSON can
// encode the members around a raw accepted entry on their own.
type payloadOut struct {
	X402Version int             `json:"x402Version,omitempty"`
	Scheme      string          `json:"scheme,omitempty"`
	Network     string          `json:"network,omitempty"`
	Resource    *ResourceInfo   `json:"resource,omitempty"`
	Accepted    any             `json:"accepted,omitempty"`
	Payload     *exactOut       `json:"payload,omitempty"`
	Extensions  json.RawMessage `json:"extensions,omitempty"`
}

// wire checks p and returns its wire form.
func (p *PaymentPayload) wire() (payloadOut, error) {
	w := payloadOut{X402Version: p.X402Version}
	switch p.X402Version {
	case 1:
		w.Scheme, w.Network = p.Scheme, p.Network
	case 2:
		accepted, err := p.Accepted.wire(2)
		if err != nil {
			return w, err
		}
		w.Resource, w.Accepted, w.Extensions = p.Resource, accepted, p.Extensions
	default:
		return w, fmt.Errorf("x402: unsupported x402Version %d", p.X402Version)
	}
	payload, err := p.Payload.wire()
	w.Payload = &payload
	return w, err
}

// UnmarshalJSON reads a v1 or v2 payload of the EVM "exact" scheme.
func (p *PaymentPayload) UnmarshalJSON(b []byte) error {
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
		acc, err := parseRequirements(w.Accepted, 2) // a copy of its own, kept as Raw
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
	// Network is the network the payment settled on, in CAIP-2 form: a server speaking x402
	// v1 names its network ("base"), which ParseSettleResponse translates (eip155:8453).
	Network string `json:"network"`
	// RawNetwork is the network as the server wrote it, when ParseSettleResponse translated
	// it; "" otherwise.
	RawNetwork string `json:"-"`
	// Amount is the settled amount in atomic units, when the server reports it.
	Amount string `json:"amount,omitempty"`
	// Extensions is the server's extensions object.
	Extensions json.RawMessage `json:"extensions,omitempty"`
}

// marshalCompact encodes v as compact JSON as the reference implementations write it
// (JavaScript's JSON.stringify): without HTML escaping and without a trailing newline.
func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// marshalWire encodes w, a wire form, with marshalCompact, or returns the error of building
// it.
func marshalWire[W any](w W, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return marshalCompact(w)
}

// unmarshalWire decodes b into a wire form W, which convert checks and turns into *dst.
func unmarshalWire[W, T any](b []byte, dst *T, convert func(*W) (T, error)) error {
	var w W
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out, err := convert(&w)
	if err != nil {
		return err
	}
	*dst = out
	return nil
}

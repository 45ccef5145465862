package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
)

// PaymentRequirements is one entry of a challenge's accepts list: one way the server lets the
// client pay. The same type carries v1 entries, whose amount field is maxAmountRequired and
// which hold their own resource description.
//
// An entry read from the wire keeps its bytes in Raw, and is marked Unusable (with the
// reason) when it cannot be paid safely whatever the scheme: an amount that is not a
// non-negative decimal integer string of at most 78 digits, a network that is neither CAIP-2
// nor a known v1 name, a missing member. The other entries of the same challenge stay
// usable; what a scheme needs beyond that (an EVM token's EIP-712 domain, a Solana fee
// payer) its package checks when it is asked to pay.
type PaymentRequirements struct {
	// Scheme is the payment scheme, such as "exact".
	Scheme string
	// Network is the chain in CAIP-2 form, such as "eip155:8453" (v1: a name such as "base").
	Network string
	// Amount is the price in the token's atomic units (USDC has 6 decimals: 10000 is $0.01).
	// It is nil when the entry's amount was unusable.
	Amount *big.Int
	// Asset is the token: its contract address (EVM), its mint (Solana).
	Asset string
	// PayTo is the recipient address, in its chain's notation.
	PayTo string
	// MaxTimeoutSeconds is how long the server allows for the payment; the signed
	// authorization is valid for that long.
	MaxTimeoutSeconds int
	// Extra holds scheme-specific data: for EVM "exact" the token's EIP-712 domain "name" and
	// "version"; for Solana "exact" the facilitator's "feePayer" and an optional "memo".
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

// Clone returns a deep copy of r: a caller changing the copy changes nothing in r.
func (r *PaymentRequirements) Clone() PaymentRequirements {
	c := *r
	if r.Amount != nil {
		c.Amount = new(big.Int).Set(r.Amount)
	}
	if r.Extra != nil {
		c.Extra, _ = copyJSONValue(r.Extra).(map[string]any)
	}
	c.OutputSchema = append(json.RawMessage(nil), r.OutputSchema...)
	c.Raw = append(json.RawMessage(nil), r.Raw...)
	return c
}

// copyJSONValue returns a deep copy of a value decoded from JSON into an any.
func copyJSONValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = copyJSONValue(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = copyJSONValue(e)
		}
		return s
	}
	return v
}

// ExtraString returns the string member key of Extra, "" when it is absent or not a string.
func (r *PaymentRequirements) ExtraString(key string) string {
	s, _ := r.Extra[key].(string)
	return s
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
	} else if n, err := ParseUint256(*amount); err != nil {
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
	case version == 2 && !IsCAIP2(r.Network):
		note("network %q is not a CAIP-2 network id", r.Network)
	case version != 2:
		if _, err := NormalizeNetwork(r.Network); err != nil {
			note("network %q is neither CAIP-2 nor a known v1 network name", r.Network)
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

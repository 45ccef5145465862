package wire

import (
	"encoding/json"
	"errors"
	"fmt"
)

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
	return MarshalCompact(w)
}

// challengeOut is the wire form of a challenge.
type challengeOut struct {
	X402Version int             `json:"x402Version"`
	Error       string          `json:"error,omitempty"`
	Resource    *ResourceInfo   `json:"resource,omitempty"`
	Accepts     []any           `json:"accepts"`
	Extensions  json.RawMessage `json:"extensions,omitempty"`
}

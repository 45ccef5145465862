package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// PaymentPayload is the signed payment a client sends: in v2 the decoded PAYMENT-SIGNATURE
// header, in v1 the decoded X-PAYMENT header. Its Payload member is the scheme's own (an EVM
// authorization and its signature, a Solana transaction), kept as raw JSON for the scheme's
// package to read.
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
	// Payload is the scheme's payload object, compact JSON.
	Payload json.RawMessage
	// Extensions is the challenge's extensions object, echoed (v2).
	Extensions json.RawMessage
}

// ChosenScheme returns the scheme and the network the payment is for: Accepted's in v2, the
// payload's own members in v1.
func (p *PaymentPayload) ChosenScheme() (scheme, network string) {
	if p.X402Version == 1 {
		return p.Scheme, p.Network
	}
	return p.Accepted.Scheme, p.Accepted.Network
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
		return MarshalCompact(w)
	}
	// encoding/json would compact the server's entry, so it goes in between the members
	// before it and those after it, each part encoded by encoding/json.
	head, err := MarshalCompact(payloadOut{X402Version: w.X402Version, Resource: w.Resource})
	if err != nil {
		return nil, err
	}
	tail, err := MarshalCompact(payloadOut{Payload: w.Payload, Extensions: w.Extensions})
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
	Payload     json.RawMessage `json:"payload,omitempty"`
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
	if !isObject(p.Payload) || !json.Valid(p.Payload) {
		return w, errors.New("x402: PaymentPayload.Payload must be a JSON object")
	}
	w.Payload = p.Payload
	return w, nil
}

// UnmarshalJSON reads a v1 or v2 payload of any scheme: the envelope strictly (the version,
// v1's scheme and network, v2's accepted entry), the scheme's payload as a raw object.
func (p *PaymentPayload) UnmarshalJSON(b []byte) error {
	var w struct {
		X402Version *int            `json:"x402Version"`
		Resource    *ResourceInfo   `json:"resource"`
		Accepted    json.RawMessage `json:"accepted"`
		Scheme      string          `json:"scheme"`
		Network     string          `json:"network"`
		Payload     json.RawMessage `json:"payload"`
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
	if !present(w.Payload) {
		return errors.New("payload is missing")
	}
	if !isObject(w.Payload) {
		return errors.New("payload is not a JSON object")
	}
	out.Payload = bytes.TrimSpace(w.Payload)
	*p = out
	return nil
}

// secretMembers are the members of a scheme's payload that hold a signature or a signed
// transaction: what must never reach an error or a log line, whatever the scheme.
var secretMembers = map[string]bool{"signature": true, "transaction": true}

// Secrets returns the forms of p's signatures and signed transactions that must never appear
// in an error or a log line: the string members named "signature" or "transaction" at any
// depth of its payload (an EVM authorization's signature, with and without its 0x; a Solana
// transaction), so that a caller scrubs them from what a server echoes without knowing the
// scheme.
func (p *PaymentPayload) Secrets() []string {
	var v any
	if json.Unmarshal(p.Payload, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				if s, ok := e.(string); ok && secretMembers[k] && s != "" {
					out = append(out, s)
					if rest, ok := strings.CutPrefix(s, "0x"); ok && rest != "" {
						out = append(out, rest)
					}
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

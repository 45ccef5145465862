package wire

import (
	"bytes"
	"encoding/json"
)

// MarshalCompact encodes v as compact JSON as the reference implementations write it
// (JavaScript's JSON.stringify): without HTML escaping and without a trailing newline. The
// schemes' packages write their payloads with it too.
func MarshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// present reports whether a member was sent with a value other than null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// isObject reports whether raw is a JSON object (its first byte, after white space, is "{").
func isObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// marshalWire encodes w, a wire form, with MarshalCompact, or returns the error of building
// it.
func marshalWire[W any](w W, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return MarshalCompact(w)
}

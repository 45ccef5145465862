package reportstore

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The store's API description does not show its response bodies, so the free operations
// decode them leniently: an object's keys are matched without regard to case, "_", "-" or
// spaces ("price_usd", "priceUsd" and "PriceUSD" are one key), numbers may arrive as strings
// and strings as numbers, and every value keeps its raw JSON.

// fields is a JSON object indexed by normalised key.
type fields map[string]json.RawMessage

// normKey folds a JSON key to the form fields uses.
func normKey(k string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, k)
}

// rawObject decodes raw as a JSON object with its keys as sent; ok is false for anything
// else.
func rawObject(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	return m, true
}

// objectFields decodes raw as a JSON object indexed by normalised key; ok is false for
// anything else.
func objectFields(raw json.RawMessage) (fields, bool) {
	m, ok := rawObject(raw)
	if !ok {
		return nil, false
	}
	f := make(fields, len(m))
	for k, v := range m {
		nk := normKey(k)
		if _, dup := f[nk]; !dup || k == nk {
			f[nk] = v
		}
	}
	return f, true
}

// get returns the first present, non-null value among keys (given in normalised form).
func (f fields) get(keys ...string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v, ok := f[k]; ok && !isNull(v) {
			return v, true
		}
	}
	return nil, false
}

// str returns the first of keys holding a string (or a number, as its text).
func (f fields) str(keys ...string) string {
	for _, k := range keys {
		if v, ok := f[k]; ok {
			if s, ok := scalarText(v); ok {
				return s
			}
		}
	}
	return ""
}

// integer returns the first of keys holding an integer, as a JSON number or a numeric string.
func (f fields) integer(keys ...string) (int, bool) {
	for _, k := range keys {
		if v, ok := f[k]; ok {
			if s, ok := scalarText(v); ok {
				if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
					return n, true
				}
			}
		}
	}
	return 0, false
}

// optInt returns the first of keys holding an integer (see integer), or nil when none does:
// a count or year the body does not give is absent, never 0.
func (f fields) optInt(keys ...string) *int {
	n, ok := f.integer(keys...)
	if !ok {
		return nil
	}
	return &n
}

// intRef returns a pointer to n, for an optional count or year that is known.
func intRef(n int) *int { return &n }

// cloneInt returns a pointer to a copy of *p, or nil for nil, so that decoded values never
// share an int.
func cloneInt(p *int) *int {
	if p == nil {
		return nil
	}
	return intRef(*p)
}

// isNull reports whether raw is JSON null (or empty).
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// scalarText returns a JSON string's value or a JSON number's text; ok is false for other
// values.
func scalarText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	// A number, or a string without escapes in valid UTF-8, reads as its own bytes: the
	// same text encoding/json gives, without its allocations.
	if c := raw[0]; (c == '-' || c >= '0' && c <= '9') && json.Valid(raw) {
		return string(raw), true
	}
	if raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) && json.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return "", false
	}
	return n.String(), true
}

// number returns the value of a JSON number or numeric string; ok is false for null, an
// empty string, a missing-value marker ("..", "NA") or anything that is not a number.
func number(raw json.RawMessage) (float64, bool) {
	s, ok := scalarText(raw)
	if !ok {
		return 0, false
	}
	return parseValue(s)
}

// parseValue reads a statistic written as text. Empty cells and the usual missing-value
// markers are not values; ok is false for them and for text that is not a number.
func parseValue(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if isMissing(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// isMissing reports whether a cell holds no value: empty, or a missing-value marker of
// statistical files ("..", "NA", "N/A", "null", "NaN").
func isMissing(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "..", "na", "n/a", "null", "nan", "-":
		return true
	}
	return false
}

// arrayItems decodes raw as a JSON array; ok is false for anything else.
func arrayItems(raw json.RawMessage) ([]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	return items, true
}

// clone copies raw so that a kept value does not alias a larger buffer.
func clone(raw json.RawMessage) json.RawMessage {
	return append(json.RawMessage(nil), bytes.TrimSpace(raw)...)
}

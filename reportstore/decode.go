package reportstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentapis/sdk/internal/jsonscan"
	"github.com/agentapis/sdk/internal/lenient"
)

// The store's API description does not show its response bodies, so the free operations
// decode them leniently: an object's keys are matched without regard to case, "_", "-" or
// spaces ("price_usd", "priceUsd" and "PriceUSD" are one key), numbers may arrive as strings
// and strings as numbers, and every value keeps its raw JSON.

// fields is a JSON object's members in document order, read without copying: every value
// shares the bytes of the object. Lookups take keys in normalised form (see value).
type fields []jsonscan.Member

// normKey folds a JSON key to the normalised form lookups use: lower case, without "_", "-"
// or spaces.
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

// foldsTo reports whether key folds to norm, a key in normalised form, without building
// the folded key.
func foldsTo(key []byte, norm string) bool {
	j := 0
	for _, c := range key {
		switch {
		case c == '_' || c == '-' || c == ' ':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if j == len(norm) || norm[j] != c {
			return false
		}
		j++
	}
	return j == len(norm)
}

// value returns the value of the member whose key is norm, a key in normalised form: the
// last member whose key is exactly norm, else the last one whose key folds to it (so
// "year" wins over "Year", and of "Year" and "YEAR" the later one); nil when none does.
func (f fields) value(norm string) json.RawMessage {
	var folded json.RawMessage
	for i := len(f) - 1; i >= 0; i-- {
		m := &f[i]
		if string(m.Key) == norm {
			return m.Value
		}
		if folded == nil && foldsTo(m.Key, norm) {
			folded = m.Value
		}
	}
	return folded
}

// objectFields reads raw, which must be valid JSON (checkJSON), as an object; ok is false
// for anything else.
func objectFields(raw json.RawMessage) (fields, bool) {
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
		return nil, false // without allocating, for the many values that are not objects
	}
	return make(fields, 0, 8).read(raw)
}

// read is objectFields reusing f's memory: it returns raw's members in f[:0], for a reader
// of many objects that keeps none of them.
func (f fields) read(raw json.RawMessage) (fields, bool) {
	members, ok := jsonscan.AppendMembers(f[:0], raw)
	if !ok {
		return nil, false
	}
	return members, true
}

// arrayItems reads raw, which must be valid JSON (checkJSON), as an array; its items share
// raw's bytes. ok is false for anything else.
func arrayItems(raw json.RawMessage) ([]json.RawMessage, bool) {
	return jsonscan.Items(raw)
}

// checkJSON returns nil when b is one valid JSON value, else the syntax error encoding/json
// reports. The readers of this file rely on it having held.
func checkJSON(b []byte) error {
	if json.Valid(b) {
		return nil
	}
	var v json.RawMessage
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	return errors.New("invalid JSON")
}

// rawObject reads raw, which must be valid JSON (checkJSON), as an object keyed as sent, the
// later of two equal keys counting as in encoding/json; its values share raw's bytes. ok is
// false for anything else.
func rawObject(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	f, ok := objectFields(raw)
	if !ok {
		return nil, false
	}
	m := make(map[string]json.RawMessage, len(f))
	for _, member := range f {
		m[string(member.Key)] = member.Value
	}
	return m, true
}

// get returns the first present, non-null value among keys (given in normalised form).
func (f fields) get(keys ...string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v := f.value(k); v != nil && !isNull(v) {
			return v, true
		}
	}
	return nil, false
}

// str returns the first of keys holding a string (or a number, as its text).
func (f fields) str(keys ...string) string {
	for _, k := range keys {
		if s, ok := scalarText(f.value(k)); ok {
			return s
		}
	}
	return ""
}

// integer returns the first of keys holding an integer, as a JSON number or a numeric string.
func (f fields) integer(keys ...string) (int, bool) {
	for _, k := range keys {
		if n, ok := integerValue(f.value(k)); ok {
			return n, true
		}
	}
	return 0, false
}

// integerValue reads raw as an integer, a JSON number or a numeric string.
func integerValue(raw json.RawMessage) (int, bool) {
	if text, ok := plainScalar(raw); ok {
		n, err := strconv.Atoi(string(bytes.TrimSpace(text))) // Atoi keeps no reference: no copy is made
		return n, err == nil
	}
	s, ok := scalarText(raw)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil
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
	if text, ok := plainScalar(raw); ok {
		return string(text), true
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		return lenient.Unquote(raw)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return "", false
	}
	return n.String(), true
}

// plainScalar returns the text of a JSON number, or of a JSON string without escapes in
// valid UTF-8, as raw's own bytes: the text encoding/json gives, without copying it. ok is
// false for anything else, which scalarText decodes.
func plainScalar(raw json.RawMessage) ([]byte, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	if isNumber(raw) {
		return raw, true
	}
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		inner := raw[1 : len(raw)-1]
		for _, c := range inner {
			if c < 0x20 || c == '"' || c == '\\' {
				return nil, false
			}
		}
		if utf8.Valid(inner) {
			return inner, true
		}
	}
	return nil, false
}

// isNumber reports whether b is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func isNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := digits(b, i); j > i {
			i = j
		} else {
			return false
		}
	}
	return i == len(b)
}

// digits returns the index of the first byte of b at or after i that is not a decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// number returns the value of a JSON number or numeric string; ok is false for null, an
// empty string, a missing-value marker ("..", "NA") or anything that is not a number.
func number(raw json.RawMessage) (float64, bool) {
	if text, ok := plainScalar(raw); ok {
		return parseValue(string(text)) // parseValue keeps no reference: no copy is made
	}
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

// clone copies raw so that a kept value does not alias a larger buffer, for a body the
// parser does not own.
func clone(raw json.RawMessage) json.RawMessage {
	return append(json.RawMessage(nil), bytes.TrimSpace(raw)...)
}

// keep returns raw without the white space around it, to be kept as a Raw that shares a body
// the parser owns; its capacity ends with it, so an append to it never writes over the body.
func keep(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	return raw[:len(raw):len(raw)]
}

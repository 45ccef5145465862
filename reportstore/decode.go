package reportstore

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentapis/sdk/internal/jsonmember"
)

// The store's API description does not show its response bodies, so the free operations and
// the JSON report are decoded leniently: encoding/json decodes each object into a map of its
// members, which are then looked up by normalised name, without regard to case, "_", "-" or
// spaces ("price_usd", "priceUsd" and "PriceUSD" are one name); numbers may arrive as
// strings and strings as numbers, and every value keeps its raw JSON.

// fields is a JSON object's member values by normalised name (see normKey).
type fields map[string]json.RawMessage

// normKey folds a member name to the form lookups use: lower case, without "_", "-" or spaces.
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

// decodeTop decodes a body whose shape the store does not document: the members of a JSON
// object, or the items of a JSON array; both are nil for any other JSON value. A body that is
// not JSON is encoding/json's *json.SyntaxError.
func decodeTop(body []byte) (fields, []json.RawMessage, error) {
	var m map[string]json.RawMessage
	err := json.Unmarshal(body, &m)
	if _, syntax := err.(*json.SyntaxError); syntax {
		return nil, nil, err
	}
	if err == nil && m != nil {
		return fold(m), nil, nil
	}
	items, _ := arrayItems(body)
	return nil, items, nil
}

// objectFields decodes raw as a JSON object; ok is false for anything else.
func objectFields(raw json.RawMessage) (fields, bool) {
	m, ok := rawObject(raw)
	if !ok {
		return nil, false
	}
	return fold(m), true
}

// fold indexes the members of m by normalised name. Of several members whose names fold to
// one, the one whose name is already normalised wins ("year" over "Year"), else the first
// name in byte order ("YEAR" over "Year"): the choice does not depend on the order the
// members were sent in, which a map does not keep. Of two members with one name the later
// counts, as encoding/json decides. When every name is already normalised, as in most
// bodies, no two names fold to one and m itself is the index.
func fold(m map[string]json.RawMessage) fields {
	for k := range m {
		if normKey(k) != k {
			return refold(m)
		}
	}
	return fields(m)
}

// refold is fold for members of which some names are not normalised: a new index, with the
// name chosen for each normalised one.
func refold(m map[string]json.RawMessage) fields {
	f := make(fields, len(m))
	chosen := make(map[string]string, len(m))
	for k, v := range m {
		n := normKey(k)
		if cur, ok := chosen[n]; ok && (cur == n || k != n && k > cur) {
			continue
		}
		chosen[n] = k
		f[n] = v
	}
	return f
}

// rawObject decodes raw as a JSON object keyed as sent; ok is false for anything else, and
// for an absent member (nil), which is not decoded at all.
func rawObject(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if raw == nil {
		return nil, false
	}
	var m map[string]json.RawMessage
	return m, json.Unmarshal(raw, &m) == nil && m != nil
}

// arrayItems decodes raw as a JSON array; ok is false for anything else, and for an absent
// member (nil), which is not decoded at all.
func arrayItems(raw json.RawMessage) ([]json.RawMessage, bool) {
	if raw == nil {
		return nil, false
	}
	var items []json.RawMessage
	return items, json.Unmarshal(raw, &items) == nil && items != nil
}

// array returns the items of the first of keys holding a JSON array, and that key ("" for none).
func (f fields) array(keys ...string) ([]json.RawMessage, string) {
	for _, k := range keys {
		if items, ok := arrayItems(f[k]); ok {
			return items, k
		}
	}
	return nil, ""
}

// get returns the first present, non-null value among keys (given in normalised form).
func (f fields) get(keys ...string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v := f[k]; v != nil && !jsonmember.IsNull(v) {
			return v, true
		}
	}
	return nil, false
}

// str returns the first of keys holding a string (or a number, as its text).
func (f fields) str(keys ...string) string {
	for _, k := range keys {
		if s, ok := jsonmember.ScalarText(f[k]); ok {
			return s
		}
	}
	return ""
}

// optInt returns the first of keys holding an integer, as a JSON number or a numeric
// string, or nil when none does: a count or year the body does not give is absent, never 0.
func (f fields) optInt(keys ...string) *int {
	for _, k := range keys {
		if s, ok := jsonmember.ScalarText(f[k]); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
				return &n
			}
		}
	}
	return nil
}

// intRef returns a pointer to n, for an optional count or year that is known.
func intRef(n int) *int { return &n }

// cloneInt copies *p (nil for nil), so that decoded values never share an int.
func cloneInt(p *int) *int {
	if p == nil {
		return nil
	}
	return intRef(*p)
}

// number returns the value of a JSON number or numeric string; ok is false for null, an
// empty string, a missing-value marker ("..", "NA") or anything that is not a finite number.
func number(raw json.RawMessage) (float64, bool) {
	s, ok := jsonmember.ScalarText(raw)
	if !ok {
		return 0, false
	}
	return parseValue(s)
}

// parseValue reads a statistic written as text by the SDK's one rule for numbers sent as text
// (jsonmember.ParseNumber: JSON's grammar, finite). Empty cells and the usual missing-value
// markers are not values; ok is false for them and for text that is not such a number.
func parseValue(s string) (float64, bool) {
	if isMissing(s) {
		return 0, false
	}
	v, err := jsonmember.ParseNumber(s)
	return v, err == nil
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

package gpuprice

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentapis/sdk/internal/jsonmember"
)

// The API description shows one body, the cheapest price; every other shape is "not shown".
// The wire types of this package read those shapes leniently: each member is optional and
// read under the names of its field in fieldNames, a value of an unexpected type is passed
// over rather than failing the answer, and the raw JSON is kept beside the decoded values. A
// list the client cannot find at all is an error, never an empty result.

// members are the members of a JSON object, found by the names of a field.
type members struct {
	raw map[string]json.RawMessage
	// folded maps each member's folded name to its name; among members whose names fold
	// alike, the greatest name, so that the choice never depends on map order.
	folded map[string]string
}

// readMembers reads b, which must be a JSON object (or null, which has no members).
func readMembers(b []byte) (members, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return members{}, err
	}
	return newMembers(raw), nil
}

// newMembers indexes raw by folded name.
func newMembers(raw map[string]json.RawMessage) members {
	m := members{raw: raw, folded: make(map[string]string, len(raw))}
	for name := range raw {
		f := fold(name)
		if prev, ok := m.folded[f]; !ok || name > prev {
			m.folded[f] = name
		}
	}
	return m
}

// member returns the value of the member named name exactly, or else of one whose name folds
// to folded.
func (m members) member(name, folded string) (json.RawMessage, bool) {
	if raw, ok := m.raw[name]; ok {
		return raw, true
	}
	name, ok := m.folded[folded]
	return m.raw[name], ok
}

// first returns the value of the first member, by the spellings of fs in their order, that is
// not null and decodes as a T, and whether there is one: a member of another type is passed
// over and never fails the answer.
func first[T any](m members, fs ...field) (T, bool) {
	for _, f := range fs {
		for i, name := range fieldNames[f] {
			raw, ok := m.member(name, foldedFieldNames[f][i])
			if !ok || jsonmember.IsNull(raw) {
				continue
			}
			var v T
			if json.Unmarshal(raw, &v) == nil {
				return v, true
			}
		}
	}
	var zero T
	return zero, false
}

// firstPtr is first for an optional value: a pointer to it, nil when there is none.
func firstPtr[T any](m members, fs ...field) *T {
	if v, ok := first[T](m, fs...); ok {
		return &v
	}
	return nil
}

// number returns the first number of fs, nil when there is none. Every number the service
// may send as text is a jsonmember.Number: finite, so that NaN and infinities, whatever their
// spelling, are absent.
func (m members) number(fs ...field) *float64 {
	return (*float64)(firstPtr[jsonmember.Number](m, fs...))
}

// integer returns the first whole number of fs, nil when there is none.
func (m members) integer(fs ...field) *int {
	return (*int)(firstPtr[integer](m, fs...))
}

// text returns the first string (or number, as sent) of fs, "" when there is none.
func (m members) text(fs ...field) string {
	v, _ := first[jsonmember.Text](m, fs...)
	return string(v)
}

// time returns the first time of fs, nil when there is none.
func (m members) time(fs ...field) *time.Time {
	return (*time.Time)(firstPtr[timestamp](m, fs...))
}

// flag returns the first boolean of fs, nil when there is none.
func (m members) flag(fs ...field) *bool {
	return firstPtr[bool](m, fs...)
}

// object returns the members of the first object of f.
func (m members) object(f field) (members, bool) {
	raw, ok := first[map[string]json.RawMessage](m, f)
	return newMembers(raw), ok
}

// carried returns the list of f and whether the object carried one of its spellings, null
// included. The list decodes strictly: a value of another type fails the answer, so that a
// renamed or reshaped list never reads as an empty one.
func carried[T any](m members, f field) ([]T, bool, error) {
	for i, name := range fieldNames[f] {
		raw, ok := m.member(name, foldedFieldNames[f][i])
		if !ok {
			continue
		}
		var items []T
		if jsonmember.IsNull(raw) {
			return nil, true, nil
		}
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, true, err
		}
		return items, true, nil
	}
	return nil, false, nil
}

// list returns the list of f by jsonmember.List's rule: a list absent or null is empty when
// count says 0, and an error otherwise. what names the value being read, for the error.
func list[T any](m members, what string, f field, count *int) ([]T, error) {
	items, found, err := carried[T](m, f)
	if err != nil {
		return nil, err
	}
	return jsonmember.List(what, items, found, count, fieldNames[f]...)
}

// listAnswer reads the answer of a list endpoint: a bare list, or an object carrying the list
// of f by the rule of list, with the object's count or total. It returns the object's
// members too, for the values beside the list; a bare list has none.
func listAnswer[T any](b []byte, what string, f field) ([]T, members, error) {
	if bareArray(b) {
		var items []T
		err := json.Unmarshal(b, &items)
		return items, members{}, err
	}
	m, err := readMembers(b)
	if err != nil {
		return nil, members{}, err
	}
	items, err := list[T](m, what, f, m.integer(fieldCount, fieldTotal))
	return items, m, err
}

// integer is a whole number, also accepted as a numeric string.
type integer int

// UnmarshalJSON reads a whole number or a string holding one, as a jsonmember.Number.
func (n *integer) UnmarshalJSON(b []byte) error {
	var f jsonmember.Number
	if err := f.UnmarshalJSON(b); err != nil {
		return err
	}
	if f != jsonmember.Number(int(f)) {
		return errNotInteger
	}
	*n = integer(f)
	return nil
}

// errNotInteger is the decoding error of a number that should be whole.
var errNotInteger = errors.New("expected a whole number")

// timestamp is a time sent as RFC 3339 text, a date (2026-01-31), or Unix seconds or
// milliseconds.
type timestamp time.Time

// UnmarshalJSON reads the forms above.
func (t *timestamp) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		for _, layout := range []string{time.RFC3339Nano, time.DateOnly, "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05"} {
			if v, err := time.Parse(layout, s); err == nil {
				*t = timestamp(v.UTC())
				return nil
			}
		}
		return fmt.Errorf("not a time: %q", s)
	}
	var n jsonmember.Number
	if err := n.UnmarshalJSON(b); err != nil {
		return err
	}
	secs := float64(n)
	if secs > 1e12 { // milliseconds
		secs /= 1000
	}
	*t = timestamp(time.Unix(0, int64(secs*float64(time.Second))).UTC())
	return nil
}

// fold returns name without letter case and without the separators "_", "-", "." and
// spaces, so that the spellings of one name compare equal: best_price_usd_hr,
// bestPriceUsdHr and Best-Price-USD-Hr all fold to bestpriceusdhr.
func fold(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, name)
}

// bareArray reports whether b is a JSON array (a list sent without an object around it).
func bareArray(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '['
}

// Package jsonmember is how the SDK reads the JSON members of its services' answers, named by
// the API description or not. A member whose name the description does not show is optional
// (Optional): a value of an unexpected type is left unset rather than failing the answer (the
// caller keeps the raw body), and where the presence of a member matters it is recorded apart
// from its value (Tracked). A member the description names is required (Required), so that a
// renamed or retyped one fails the answer instead of reading as a zero.
package jsonmember

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Optional is a member whose name the API description does not show: set when the answer carried
// it with the expected type, and otherwise left unset, without failing the answer. null, with
// or without white space around it, leaves it unset.
//
// The zero Optional is unset.
type Optional[T any] struct {
	v   T
	set bool
}

// Known returns an Optional set to v, for a value the caller found by other means (such as a
// member sent in a shorter form).
func Known[T any](v T) Optional[T] { return Optional[T]{v: v, set: true} }

// UnmarshalJSON sets the value when b decodes as a T and is not null; it never fails, so that
// a value of an unexpected type does not fail the answer around it.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	if IsNull(b) {
		return nil
	}
	var v T
	if json.Unmarshal(b, &v) == nil {
		o.v, o.set = v, true
	}
	return nil
}

// Get returns the value and whether it is set (the zero value when it is not).
func (o Optional[T]) Get() (T, bool) { return o.v, o.set }

// IsSet reports whether the answer carried the member with the expected type.
func (o Optional[T]) IsSet() bool { return o.set }

// Or returns the value, or def when it is unset.
func (o Optional[T]) Or(def T) T {
	if !o.set {
		return def
	}
	return o.v
}

// Ptr returns a pointer to a copy of the value, or nil when it is unset: the form of an
// optional field of a public type, where nil means the answer did not carry it.
func (o Optional[T]) Ptr() *T {
	if !o.set {
		return nil
	}
	v := o.v
	return &v
}

// First returns the value of the first of opts that is set, and whether one is; it reads a
// member the answer may spell in several ways, the likeliest first.
func First[T any](opts ...Optional[T]) (T, bool) {
	for _, o := range opts {
		if o.set {
			return o.v, true
		}
	}
	var zero T
	return zero, false
}

// FirstPtr is First for an optional field of a public type: a pointer to a copy of the first
// value set, or nil when none is.
func FirstPtr[T any](opts ...Optional[T]) *T {
	for _, o := range opts {
		if o.set {
			return o.Ptr()
		}
	}
	return nil
}

// Tracked is a member whose presence matters, such as a list that must not read as empty when
// the answer renamed it: IsSet records that the answer carried its name, even with null (which
// leaves the value zero). Its value decodes strictly: a value of another type fails the answer.
type Tracked[T any] struct {
	v   T
	set bool
}

// UnmarshalJSON records the member and decodes its value strictly; null leaves the value as it
// is.
func (f *Tracked[T]) UnmarshalJSON(b []byte) error {
	f.set = true
	if IsNull(b) {
		return nil
	}
	return json.Unmarshal(b, &f.v)
}

// Get returns the value and whether the answer carried the member.
func (f Tracked[T]) Get() (T, bool) { return f.v, f.set }

// IsSet reports whether the answer carried the member, null included.
func (f Tracked[T]) IsSet() bool { return f.set }

// FirstTracked returns the value of the first of fields the answer carried, and whether any was
// carried; it reads a member the answer may spell in several ways, the likeliest first.
func FirstTracked[T any](fields ...Tracked[T]) (T, bool) {
	for _, f := range fields {
		if f.set {
			return f.v, true
		}
	}
	var zero T
	return zero, false
}

// Text is a string also accepted as a JSON number, for an identifier that services send
// either way; a number keeps its text as sent (12, 1e3, -0.5), and null reads as "".
type Text string

// ErrNotText is the decoding error of a Text that is neither a string nor a number.
var ErrNotText = errors.New("expected a string or a number")

// UnmarshalJSON reads a string or a number, and returns ErrNotText for any other value. The
// first byte chooses the one check made: encoding/json decodes a string, and validates a
// number, whose text is then what a json.Number would hold.
func (t *Text) UnmarshalJSON(b []byte) error {
	v := bytes.Trim(b, jsonSpace)
	switch {
	case len(v) > 0 && v[0] == '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return ErrNotText
		}
		*t = Text(s)
	case len(v) > 0 && (v[0] == '-' || '0' <= v[0] && v[0] <= '9') && json.Valid(v):
		*t = Text(v) // a JSON value that starts so is a number
	case string(v) == "null":
		*t = ""
	default:
		return ErrNotText
	}
	return nil
}

// jsonSpace is the white space JSON allows around a value.
const jsonSpace = " \t\r\n"

// IsNull reports whether b is the JSON null, JSON's white space around it allowed (and no
// other: "\fnull" is not JSON).
func IsNull(b []byte) bool { return string(bytes.Trim(b, jsonSpace)) == "null" }

package jsonmember

import (
	"encoding/json"
	"fmt"
)

// Required is a member the API description names, inside an object whose other members are
// read leniently: decoding it never fails, but records whether the answer carried it, with
// null, or with a value of another type than T, so that Value can refuse the answer by the
// member's name once the whole object is read. A renamed or retyped member then fails the
// answer instead of reading as a zero.
//
// The zero Required is absent.
type Required[T any] struct {
	v     T
	state presence
}

// presence is what the answer carried for a Required member.
type presence uint8

// The states of a Required member.
const (
	absent presence = iota
	null
	wrongType
	present
)

// UnmarshalJSON records the value, or that it was null or of another type; it never fails.
func (r *Required[T]) UnmarshalJSON(b []byte) error {
	var v T
	switch {
	case IsNull(b):
		r.state = null
	case json.Unmarshal(b, &v) == nil:
		r.v, r.state = v, present
	default:
		r.state = wrongType
	}
	return nil
}

// Value returns the value, or an error naming the member (as name) when the answer did not
// carry it with a value of type T: "field "ASIN" is missing", "is null", "has the wrong
// type".
func (r *Required[T]) Value(name string) (T, error) {
	var err error
	switch r.state {
	case absent:
		err = fmt.Errorf("field %q is missing", name)
	case null:
		err = fmt.Errorf("field %q is null", name)
	case wrongType:
		err = fmt.Errorf("field %q has the wrong type (want %T)", name, r.v)
	}
	return r.v, err
}

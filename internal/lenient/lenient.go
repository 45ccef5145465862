// Package lenient is the old name of package jsonmember, kept while the service packages move
// to it; every name here is jsonmember's under its old spelling.
//
// Deprecated: use internal/jsonmember; this package is removed once every client moved.
package lenient

import "github.com/agentapis/sdk/internal/jsonmember"

// Opt is jsonmember.Optional.
//
// Deprecated: use jsonmember.Optional; removed once every client moved.
type Opt[T any] = jsonmember.Optional[T]

// Some is jsonmember.Known.
//
// Deprecated: use jsonmember.Known; removed once every client moved.
func Some[T any](v T) Opt[T] { return jsonmember.Known(v) }

// First is jsonmember.First.
//
// Deprecated: use jsonmember.First; removed once every client moved.
func First[T any](opts ...Opt[T]) (T, bool) { return jsonmember.First(opts...) }

// FirstPtr is jsonmember.FirstPtr.
//
// Deprecated: use jsonmember.FirstPtr; removed once every client moved.
func FirstPtr[T any](opts ...Opt[T]) *T { return jsonmember.FirstPtr(opts...) }

// Field is jsonmember.Tracked.
//
// Deprecated: use jsonmember.Tracked; removed once every client moved.
type Field[T any] = jsonmember.Tracked[T]

// FirstField is jsonmember.FirstTracked.
//
// Deprecated: use jsonmember.FirstTracked; removed once every client moved.
func FirstField[T any](fields ...Field[T]) (T, bool) { return jsonmember.FirstTracked(fields...) }

// Required is jsonmember.Required.
//
// Deprecated: use jsonmember.Required; removed once every client moved.
type Required[T any] = jsonmember.Required[T]

// Text is jsonmember.Text.
//
// Deprecated: use jsonmember.Text; removed once every client moved.
type Text = jsonmember.Text

// Number is jsonmember.Number.
//
// Deprecated: use jsonmember.Number; removed once every client moved.
type Number = jsonmember.Number

// IsNull is jsonmember.IsNull.
//
// Deprecated: use jsonmember.IsNull; removed once every client moved.
func IsNull(b []byte) bool { return jsonmember.IsNull(b) }

// ParseNumber is jsonmember.ParseNumber.
//
// Deprecated: use jsonmember.ParseNumber; removed once every client moved.
func ParseNumber(s string) (float64, error) { return jsonmember.ParseNumber(s) }

// ScalarText is jsonmember.ScalarText.
//
// Deprecated: use jsonmember.ScalarText; removed once every client moved.
func ScalarText(raw []byte) (string, bool) { return jsonmember.ScalarText(raw) }

// Object is jsonmember.Object.
//
// Deprecated: use jsonmember.Object; removed once every client moved.
func Object(b []byte, v any) error { return jsonmember.Object(b, v) }

// Missing is jsonmember.Missing.
//
// Deprecated: use jsonmember.Missing; removed once every client moved.
func Missing(what, member string) error { return jsonmember.Missing(what, member) }

// List is jsonmember.List.
//
// Deprecated: use jsonmember.List; removed once every client moved.
func List[T any](what string, items []T, found bool, count *int, names ...string) ([]T, error) {
	return jsonmember.List(what, items, found, count, names...)
}

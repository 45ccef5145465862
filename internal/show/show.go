// Package show prints the SDK's result types readably with fmt. A result keeps an optional
// value as a pointer (nil when the service did not send it), which fmt prints as an address
// inside a struct ("USDPerHour:0xc000012345"); each result type has a Format method that calls
// Struct, so that %v and %+v print the value instead, and a result reads the same in a log
// line as in its fields.
package show

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// rawMessage is the type of the Raw fields that keep an answer's JSON.
var rawMessage = reflect.TypeFor[json.RawMessage]()

// Struct writes v, a struct or a pointer to one, for verb as fmt writes a struct (with the
// field names for %+v), except that:
//
//   - a pointer prints the value it points to, or <nil>, where fmt prints an address;
//   - a json.RawMessage prints as its JSON text, not as a list of bytes;
//   - a number of math/big prints without the sign %+v would add to it ("Amount:5");
//   - unexported fields are left out: they are the type's own bookkeeping (a stream's body, a
//     context), not part of the result.
//
// A value whose type formats itself (a Formatter, a Stringer, an error: time.Time, *big.Int,
// sdk.Secret's mask, another result) is printed by its own method, as fmt would. %#v keeps
// fmt's Go syntax, addresses included.
func Struct(f fmt.State, verb rune, v any) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			io.WriteString(f, "<nil>")
			return
		}
		rv = rv.Elem()
	}
	if verb == 'v' && f.Flag('#') {
		goSyntax(f, rv)
		return
	}
	p := printer{w: f, spec: fmt.FormatString(f, verb), names: verb == 'v' && f.Flag('+')}
	p.fields(rv)
}

// printer writes values as Struct says.
type printer struct {
	w io.Writer
	// spec is the verb with its flags, width and precision, for the values fmt writes.
	spec string
	// names reports %+v: struct fields print with their names.
	names bool
}

// fields writes the exported fields of the struct v between braces.
func (p printer) fields(v reflect.Value) {
	io.WriteString(p.w, "{")
	t := v.Type()
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if !first {
			io.WriteString(p.w, " ")
		}
		first = false
		if p.names {
			io.WriteString(p.w, f.Name+":")
		}
		p.value(v.Field(i))
	}
	io.WriteString(p.w, "}")
}

// value writes one value: by its own method when its type has one, else pointers followed,
// structs, slices and arrays element by element, and anything else by fmt.
func (p printer) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Func, reflect.Chan:
		if v.IsNil() {
			io.WriteString(p.w, "<nil>")
			return
		}
	}
	if v.Type() == rawMessage {
		p.w.Write(v.Bytes())
		return
	}
	switch v.Interface().(type) {
	case fmt.Formatter, fmt.Stringer, error:
		spec := p.spec
		if plusIsSign(v.Type()) {
			spec = strings.Replace(spec, "+", "", 1)
		}
		fmt.Fprintf(p.w, spec, v.Interface())
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		p.value(v.Elem())
	case reflect.Struct:
		p.fields(v)
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			fmt.Fprintf(p.w, p.spec, v.Interface())
			return
		}
		io.WriteString(p.w, "[")
		for i := range v.Len() {
			if i > 0 {
				io.WriteString(p.w, " ")
			}
			p.value(v.Index(i))
		}
		io.WriteString(p.w, "]")
	default:
		fmt.Fprintf(p.w, p.spec, v.Interface())
	}
}

// plusIsSign reports whether t, or what it points to, is a number of math/big, whose Format
// reads the + of %+v as "always print the sign": it prints as %v would print it ("Amount:5",
// not "Amount:+5").
func plusIsSign(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == "math/big"
}

// goSyntax writes the struct v as fmt's %#v does: its type, then each field by name in Go
// syntax.
func goSyntax(w io.Writer, v reflect.Value) {
	t := v.Type()
	io.WriteString(w, t.String()+"{")
	for i := range t.NumField() {
		if i > 0 {
			io.WriteString(w, ", ")
		}
		io.WriteString(w, t.Field(i).Name+":")
		// fmt prints what a reflect.Value holds, by its own methods when it may.
		fmt.Fprintf(w, "%#v", v.Field(i))
	}
	io.WriteString(w, "}")
}

// String returns v as Struct writes it for %+v. It serves a type that cannot have a Format
// method because a field has that name: its String method then prints %v and %+v alike, with
// the field names.
func String(v any) string { return fmt.Sprintf("%+v", structOf{v}) }

// structOf formats the struct it holds with Struct.
type structOf struct{ v any }

// Format writes s.v with Struct.
func (s structOf) Format(f fmt.State, verb rune) { Struct(f, verb, s.v) }

package mcpserver

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema returns the JSON schema of a tool's input type In, derived by go-sdk's schema
// inference and bounded by the fields' tags, so that no amount, length or count reaches a
// handler unbounded:
//
//	bounds:"min=1,max=200"      a string's length, a number's value or a slice's item count
//	items:"max=64"              the length of each string of a slice of strings
//	enum:"html|json|csv"        the only values of a string
//	pattern:"^[0-9]+$"          a regular expression a string must match
//
// Every string, number and slice of In must carry bounds (an enum or a pattern anchored at
// both ends bounds a string's length too when bounds also gives max): a missing bound is an
// error, so that a tool cannot be registered with an unbounded input.
func inputSchema[In any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, err
	}
	if err := bound(reflect.TypeFor[In](), s, reflect.TypeFor[In]().Name()); err != nil {
		return nil, err
	}
	return s, nil
}

// bound adds the bounds of t's fields to s, the schema inferred for t, recursively.
func bound(t reflect.Type, s *jsonschema.Schema, where string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("%s: input types are structs, not %s", where, t.Kind())
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := s.Properties[name]
		if p == nil {
			return fmt.Errorf("%s.%s: no property %q in the inferred schema", where, f.Name, name)
		}
		if err := boundField(f, p, where+"."+name); err != nil {
			return err
		}
	}
	return nil
}

// boundField bounds the property p of field f.
func boundField(f reflect.StructField, p *jsonschema.Schema, where string) error {
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	min, max, err := parseBounds(f.Tag.Get("bounds"))
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	switch t.Kind() {
	case reflect.Bool:
		return nil
	case reflect.String:
		if enum := f.Tag.Get("enum"); enum != "" {
			for _, v := range strings.Split(enum, "|") {
				p.Enum = append(p.Enum, v)
			}
		}
		p.Pattern = f.Tag.Get("pattern")
		if max == nil {
			return fmt.Errorf("%s: a string without a maximum length (bounds:\"max=...\")", where)
		}
		p.MaxLength = intPtr(int(*max))
		if min != nil {
			p.MinLength = intPtr(int(*min))
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		if min == nil || max == nil {
			return fmt.Errorf("%s: a number without both bounds (bounds:\"min=...,max=...\")", where)
		}
		p.Minimum, p.Maximum = min, max
		return nil
	case reflect.Slice:
		if max == nil {
			return fmt.Errorf("%s: a list without a maximum count (bounds:\"max=...\")", where)
		}
		p.MaxItems = intPtr(int(*max))
		if min != nil {
			p.MinItems = intPtr(int(*min))
		}
		elem := t.Elem()
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		switch elem.Kind() {
		case reflect.String:
			imin, imax, err := parseBounds(f.Tag.Get("items"))
			if err != nil || imax == nil {
				return fmt.Errorf("%s: a list of strings without a maximum length of each (items:\"max=...\")", where)
			}
			p.Items.MaxLength = intPtr(int(*imax))
			if imin != nil {
				p.Items.MinLength = intPtr(int(*imin))
			}
			p.Items.Pattern = f.Tag.Get("pattern")
			return nil
		case reflect.Struct:
			return bound(elem, p.Items, where+"[]")
		}
		return fmt.Errorf("%s: lists of %s are not bounded", where, elem.Kind())
	case reflect.Struct:
		return bound(t, p, where)
	}
	return fmt.Errorf("%s: a field of kind %s cannot be bounded", where, t.Kind())
}

// parseBounds reads a bounds tag: "min=1,max=200", either part optional.
func parseBounds(tag string) (min, max *float64, err error) {
	if tag == "" {
		return nil, nil, nil
	}
	for _, part := range strings.Split(tag, ",") {
		k, v, ok := strings.Cut(part, "=")
		n, perr := strconv.ParseFloat(v, 64)
		if !ok || perr != nil {
			return nil, nil, fmt.Errorf("bad bounds tag %q", tag)
		}
		switch k {
		case "min":
			min = &n
		case "max":
			max = &n
		default:
			return nil, nil, fmt.Errorf("bad bounds tag %q", tag)
		}
	}
	return min, max, nil
}

// intPtr returns a pointer to n.
func intPtr(n int) *int { return &n }

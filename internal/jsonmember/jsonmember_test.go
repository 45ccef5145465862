package jsonmember

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"
)

// TestOptional decodes an optional member from whole objects, as the services do.
func TestOptional(t *testing.T) {
	tests := []struct {
		name string
		body string
		want int
		set  bool
	}{
		{"absent", `{}`, 0, false},
		{"null", `{"a":null}`, 0, false},
		{"null with white space", `{"a" :  null  }`, 0, false},
		{"number", `{"a":12}`, 12, true},
		{"zero is set", `{"a":0}`, 0, true},
		{"negative", `{"a":-3}`, -3, true},
		{"numeric text is the wrong type", `{"a":"12"}`, 0, false},
		{"fraction is the wrong type", `{"a":1.5}`, 0, false},
		{"boolean is the wrong type", `{"a":true}`, 0, false},
		{"object is the wrong type", `{"a":{"b":1}}`, 0, false},
		{"array is the wrong type", `{"a":[1]}`, 0, false},
		{"overflow is the wrong type", `{"a":1e400}`, 0, false},
		{"other member", `{"b":12}`, 0, false},
		{"repeated, a wrong value keeps the first", `{"a":1,"a":"x"}`, 1, true},
		{"repeated, null keeps the first", `{"a":1,"a":null}`, 1, true},
		{"repeated, the last good value wins", `{"a":1,"a":2}`, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w struct {
				A Optional[int] `json:"a"`
			}
			if err := json.Unmarshal([]byte(tt.body), &w); err != nil {
				t.Fatalf("Unmarshal(%s) failed: %v", tt.body, err)
			}
			v, ok := w.A.Get()
			if v != tt.want || ok != tt.set || w.A.IsSet() != tt.set {
				t.Errorf("Get() = %d, %t; want %d, %t", v, ok, tt.want, tt.set)
			}
			if got := w.A.Or(-1); tt.set && got != tt.want || !tt.set && got != -1 {
				t.Errorf("Or(-1) = %d", got)
			}
			if p := w.A.Ptr(); (p != nil) != tt.set || p != nil && *p != tt.want {
				t.Errorf("Ptr() = %v; want a pointer to %d: %t", p, tt.want, tt.set)
			}
		})
	}
}

// TestOptDirect calls UnmarshalJSON with the bytes as given, white space included.
func TestOptDirect(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
		set  bool
	}{
		{"text", []byte(`"abc"`), "abc", true},
		{"empty text is set", []byte(`""`), "", true},
		{"null", []byte(`null`), "", false},
		{"null with white space", []byte(" \t\nnull\r\n"), "", false},
		{"text null is text", []byte(`"null"`), "null", true},
		{"number is the wrong type", []byte(`12`), "", false},
		{"invalid UTF-8 in a text is replaced", []byte("\"a\xffb\""), "a\uFFFDb", true},
		{"invalid UTF-8 outside a text", []byte("\xff"), "", false},
		{"not JSON", []byte(`nul`), "", false},
		{"empty", nil, "", false},
		{"two values", []byte(`"a" "b"`), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o Optional[string]
			if err := o.UnmarshalJSON(tt.in); err != nil {
				t.Fatalf("UnmarshalJSON(%q) = %v; want nil", tt.in, err)
			}
			if v, ok := o.Get(); v != tt.want || ok != tt.set {
				t.Errorf("UnmarshalJSON(%q): Get() = %q, %t; want %q, %t", tt.in, v, ok, tt.want, tt.set)
			}
		})
	}
}

// TestOptKeepsItsValueOnAWrongType decodes a value of the wrong type over a set Optional of each
// kind decoded in place, and over one that is not: the Optional keeps its value either way.
func TestOptKeepsItsValueOnAWrongType(t *testing.T) {
	for _, in := range []string{`{"b":1}`, `[1]`, `1e400`, `1.5`, `"x"`, `true`, `"a" "b"`, `nul`} {
		s := Known("kept")
		if err := s.UnmarshalJSON([]byte(in)); err != nil || !s.IsSet() {
			t.Fatalf("Optional[string].UnmarshalJSON(%q) = %v, set %t", in, err, s.IsSet())
		}
		if in != `"x"` && s.Or("") != "kept" {
			t.Errorf("Optional[string] after %q holds %q; want kept", in, s.Or(""))
		}
		n := Known(int64(7))
		_ = n.UnmarshalJSON([]byte(in))
		if v := n.Or(0); v != 7 {
			t.Errorf("Optional[int64] after %q holds %d; want 7", in, v)
		}
		f := Known(2.5)
		_ = f.UnmarshalJSON([]byte(in))
		if v := f.Or(0); in != `1.5` && v != 2.5 {
			t.Errorf("Optional[float64] after %q holds %v; want 2.5", in, v)
		}
		b := Known(false)
		_ = b.UnmarshalJSON([]byte(in))
		if v := b.Or(true); in != `true` && v {
			t.Errorf("Optional[bool] after %q holds true; want false", in)
		}
		l := Known([]int{9})
		_ = l.UnmarshalJSON([]byte(in))
		if v := l.Or(nil); in != `[1]` && !reflect.DeepEqual(v, []int{9}) {
			t.Errorf("Optional[[]int] after %q holds %v; want [9]", in, v)
		}
	}
}

// TestOptValue covers Known, Or and the copy Ptr returns.
func TestOptValue(t *testing.T) {
	var unset Optional[[]string]
	if v, ok := unset.Get(); v != nil || ok || unset.IsSet() || unset.Ptr() != nil {
		t.Errorf("zero Optional: Get() = %v, %t, Ptr() = %v; want unset", v, ok, unset.Ptr())
	}
	if got := unset.Or([]string{"d"}); !reflect.DeepEqual(got, []string{"d"}) {
		t.Errorf("zero Optional: Or = %v; want [d]", got)
	}
	o := Known(7)
	if v, ok := o.Get(); v != 7 || !ok {
		t.Errorf("Known(7).Get() = %d, %t", v, ok)
	}
	p := o.Ptr()
	*p = 8
	if v, _ := o.Get(); v != 7 {
		t.Errorf("writing through Ptr changed the Optional to %d", v)
	}
	if q := o.Ptr(); q == p {
		t.Error("two calls of Ptr share a pointer")
	}
	if got := Known(0).Or(5); got != 0 {
		t.Errorf("Known(0).Or(5) = %d; want 0", got)
	}
}

// TestFirst picks the first spelling set.
func TestFirst(t *testing.T) {
	tests := []struct {
		name string
		opts []Optional[string]
		want string
		ok   bool
	}{
		{"none", nil, "", false},
		{"all unset", []Optional[string]{{}, {}}, "", false},
		{"first set", []Optional[string]{Known("a"), Known("b")}, "a", true},
		{"later set", []Optional[string]{{}, Known("b")}, "b", true},
		{"empty value counts as set", []Optional[string]{Known(""), Known("b")}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := First(tt.opts...)
			if v != tt.want || ok != tt.ok {
				t.Errorf("First = %q, %t; want %q, %t", v, ok, tt.want, tt.ok)
			}
			p := FirstPtr(tt.opts...)
			if (p != nil) != tt.ok || p != nil && *p != tt.want {
				t.Errorf("FirstPtr = %v; want a pointer to %q: %t", p, tt.want, tt.ok)
			}
		})
	}
}

// TestTracked decodes a member whose presence matters, strictly.
func TestTracked(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    []int
		set     bool
		wantErr bool
	}{
		{"absent", `{}`, nil, false, false},
		{"null is present", `{"a":null}`, nil, true, false},
		{"null with white space", `{"a": null }`, nil, true, false},
		{"empty", `{"a":[]}`, []int{}, true, false},
		{"values", `{"a":[1,2]}`, []int{1, 2}, true, false},
		{"wrong type fails", `{"a":"x"}`, nil, true, true},
		{"wrong element fails", `{"a":[1,"x"]}`, nil, true, true},
		{"object fails", `{"a":{}}`, nil, true, true},
		{"repeated, null keeps the first", `{"a":[1],"a":null}`, []int{1}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w struct {
				A Tracked[[]int] `json:"a"`
			}
			err := json.Unmarshal([]byte(tt.body), &w)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal(%s) = %v; want an error: %t", tt.body, err, tt.wantErr)
			}
			if w.A.IsSet() != tt.set {
				t.Errorf("IsSet() = %t; want %t", w.A.IsSet(), tt.set)
			}
			if tt.wantErr {
				return
			}
			if v, ok := w.A.Get(); !reflect.DeepEqual(v, tt.want) || ok != tt.set {
				t.Errorf("Get() = %#v, %t; want %#v, %t", v, ok, tt.want, tt.set)
			}
		})
	}
}

// TestTrackedDirect calls UnmarshalJSON with the bytes as given.
func TestTrackedDirect(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    string
		wantErr bool
	}{
		{"text", []byte(`"a"`), "a", false},
		{"null with white space", []byte(" null\n"), "", false},
		{"number fails", []byte(`1`), "", true},
		{"invalid UTF-8 in a text is replaced", []byte("\"\xfe\""), "\uFFFD", false},
		{"invalid UTF-8 outside a text fails", []byte("\xfe"), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f Tracked[string]
			err := f.UnmarshalJSON(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("UnmarshalJSON(%q) = %v; want an error: %t", tt.in, err, tt.wantErr)
			}
			if v, ok := f.Get(); !tt.wantErr && (v != tt.want || !ok) {
				t.Errorf("Get() = %q, %t; want %q, true", v, ok, tt.want)
			}
		})
	}
}

// TestFirstTracked picks the first spelling carried, null included.
func TestFirstTracked(t *testing.T) {
	var w struct {
		A Tracked[[]int] `json:"a"`
		B Tracked[[]int] `json:"b"`
		C Tracked[[]int] `json:"c"`
	}
	if v, ok := FirstTracked(w.A, w.B, w.C); v != nil || ok {
		t.Errorf("none carried: FirstTracked = %v, %t", v, ok)
	}
	if err := json.Unmarshal([]byte(`{"b":null,"c":[3]}`), &w); err != nil {
		t.Fatal(err)
	}
	if v, ok := FirstTracked(w.A, w.B, w.C); v != nil || !ok {
		t.Errorf("b null: FirstTracked = %v, %t; want [], true", v, ok)
	}
	if v, ok := FirstTracked(w.A, w.C); !reflect.DeepEqual(v, []int{3}) || !ok {
		t.Errorf("FirstTracked(a, c) = %v, %t; want [3], true", v, ok)
	}
}

// TestText reads a string or a number.
func TestText(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want Text
		err  bool
	}{
		{"text", []byte(`"abc"`), "abc", false},
		{"empty text", []byte(`""`), "", false},
		{"integer", []byte(`12`), "12", false},
		{"negative fraction", []byte(`-0.5`), "-0.5", false},
		{"exponent kept as sent", []byte(`1E3`), "1E3", false},
		{"big number kept whole", []byte(`123456789012345678901234567890`), "123456789012345678901234567890", false},
		{"numeric text", []byte(`"12"`), "12", false},
		{"white space", []byte(" 12\n"), "12", false},
		{"escaped text", []byte(`"a\u00e9\n"`), "a\u00e9\n", false},
		{"null reads as empty", []byte(`null`), "", false},
		{"invalid UTF-8 in a text is replaced", []byte("\"\xff\xfe\""), "\uFFFD\uFFFD", false},
		{"invalid UTF-8 outside a text", []byte("\xff"), "prev", true},
		{"boolean", []byte(`true`), "prev", true},
		{"object", []byte(`{"id":1}`), "prev", true},
		{"array", []byte(`[1]`), "prev", true},
		{"not JSON", []byte(`12a`), "prev", true},
		{"empty", nil, "prev", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx := Text("prev")
			err := tx.UnmarshalJSON(tt.in)
			if tt.err != (err != nil) || err != nil && !errors.Is(err, ErrNotText) {
				t.Fatalf("UnmarshalJSON(%q) = %v; want ErrNotText: %t", tt.in, err, tt.err)
			}
			if tx != tt.want {
				t.Errorf("UnmarshalJSON(%q) read %q; want %q", tt.in, tx, tt.want)
			}
		})
	}
}

// TestTextInOptional is the common use: an identifier of another type is left unset.
func TestTextInOptional(t *testing.T) {
	var w struct {
		ID  Optional[Text] `json:"id"`
		Bad Optional[Text] `json:"bad"`
	}
	if err := json.Unmarshal([]byte(`{"id":42,"bad":{"x":1}}`), &w); err != nil {
		t.Fatal(err)
	}
	if v, ok := w.ID.Get(); v != "42" || !ok {
		t.Errorf("id = %q, %t; want 42, true", v, ok)
	}
	if w.Bad.IsSet() {
		t.Error("an object was read as a Text")
	}
}

// TestIsNull tells the JSON null from everything else.
func TestIsNull(t *testing.T) {
	tests := []struct {
		in   []byte
		want bool
	}{
		{[]byte(`null`), true},
		{[]byte(" \t\r\nnull \n"), true},
		{[]byte(`"null"`), false},
		{[]byte(`Null`), false},
		{[]byte(`nul`), false},
		{[]byte(`nullnull`), false},
		{[]byte(`0`), false},
		{[]byte("null\xff"), false},
		{[]byte{}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := IsNull(tt.in); got != tt.want {
			t.Errorf("IsNull(%q) = %t; want %t", tt.in, got, tt.want)
		}
	}
}

// FuzzText checks Text against encoding/json's own reading of any bytes: a string reads as
// itself, a number as its text, null as "", anything else (invalid JSON included) fails with
// ErrNotText and leaves the Text as it was. The same bytes never fail an Optional, which is set
// exactly when they hold a string or a number, and always mark a Tracked present.
func FuzzText(f *testing.F) {
	for _, s := range []string{`"abc"`, `12`, `-0.5e+3`, `null`, ` null `, `true`, `{}`, `[1]`, "\"\xff\"", "\xff", ``, `"a" "b"`, `"\u00e9"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want Text
		ok := false
		if json.Valid(b) {
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				t.Fatalf("Decode(%q) of valid JSON: %v", b, err)
			}
			switch v := v.(type) {
			case string:
				want, ok = Text(v), true
			case json.Number:
				want, ok = Text(v), true
			case nil:
				want, ok = "", true
			}
		}
		const prev = Text("\x00prev")
		tx := prev
		err := tx.UnmarshalJSON(b)
		switch {
		case ok && err != nil:
			t.Fatalf("UnmarshalJSON(%q) = %v; want %q", b, err, want)
		case ok && tx != want:
			t.Fatalf("UnmarshalJSON(%q) read %q; want %q", b, tx, want)
		case ok && !utf8.ValidString(string(tx)):
			t.Fatalf("UnmarshalJSON(%q) read invalid UTF-8 %q", b, tx)
		case !ok && !errors.Is(err, ErrNotText):
			t.Fatalf("UnmarshalJSON(%q) = %v; want ErrNotText", b, err)
		case !ok && tx != prev:
			t.Fatalf("UnmarshalJSON(%q) failed but changed the Text to %q", b, tx)
		}

		var o Optional[Text]
		if err := o.UnmarshalJSON(b); err != nil {
			t.Fatalf("Optional.UnmarshalJSON(%q) = %v; want nil", b, err)
		}
		if v, set := o.Get(); set != (ok && !IsNull(b)) || set && v != want {
			t.Fatalf("Optional.UnmarshalJSON(%q): Get() = %q, %t; want %q, %t", b, v, set, want, ok && !IsNull(b))
		}

		var fl Tracked[Text]
		err = fl.UnmarshalJSON(b)
		if !fl.IsSet() || (err == nil) != ok {
			t.Fatalf("Tracked.UnmarshalJSON(%q) = %v, IsSet %t; want an error: %t, set", b, err, fl.IsSet(), !ok)
		}
	})
}

package lenient

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnquote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`"abc"`:                "abc",
		` "a b" `:              "a b",
		`"\u003cp\u003e\n"`:    "<p>\n",
		`"\"\\\/\b\f\n\r\t"`:   "\"\\/\b\f\n\r\t",
		`"\ud83d\ude00"`:       "😀",
		`"\ud83d"`:             "\uFFFD",
		`"\ud83dx"`:            "\uFFFDx",
		`"\ud83d\u0041"`:       "\uFFFDA",
		`"\ude00\ud83d\ude00"`: "\uFFFD😀",
		"\"caf\xc3\xa9\"":      "café",
		"\"a\xffb\"":           "a\uFFFDb",
		`""`:                   "",
		`"\u00E9\u00e9"`:       "éé",
	} {
		got, ok := Unquote([]byte(in))
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
		var std string
		assert.NoError(t, json.Unmarshal([]byte(in), &std), in)
		assert.Equal(t, std, got, "encoding/json reads %s otherwise", in)
	}
	for _, bad := range []string{``, `"`, `abc`, `"a"b"`, "\"a\nb\"", `"\x"`, `"\u12"`, `"\u12g4"`, `"a\"`, `1`, `null`, `"a" "b"`, "\v\"a\""} {
		_, ok := Unquote([]byte(bad))
		assert.False(t, ok, bad)
	}
}

// FuzzUnquote checks Unquote against encoding/json for any bytes: the same value for what
// encoding/json decodes as a string, and a refusal for everything else.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"abc"`, `"\u003c\n"`, `"\ud83d\ude00"`, `"\ud83d"`, "\"\xff\"", `"\ud800\udbff"`, ` "x" `, `"a\"`, `"\u00zz"`, "\"\x01\"", `12`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := Unquote(b)
		var want string
		wantOK := len(trimJSONSpace(b)) > 0 && trimJSONSpace(b)[0] == '"' && json.Unmarshal(b, &want) == nil
		if ok != wantOK || got != want {
			t.Fatalf("Unquote(%q) = %q, %t; encoding/json reads %q, %t", b, got, ok, want, wantOK)
		}
	})
}

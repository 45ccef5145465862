package x402

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendJSONStringAgreesWithEncodingJSON checks that the hand-written string encoder
// writes, byte for byte, what encoding/json writes for the same string with HTML escaping off.
func TestAppendJSONStringAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	cases := []string{"", "plain", `quo"te`, `back\slash`, "new\nline\r\t\b\f", "\x00\x01\x1f\x7f", "café ₮ 🚀",
		"bad \xff utf8", "\u2028\u2029", "<&>", "\xed\xa0\x80"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		var std bytes.Buffer
		enc := json.NewEncoder(&std)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		assert.Equal(t, strings.TrimSuffix(std.String(), "\n"), string(appendJSONString(nil, s)), "%q", s)
	}
}

func TestAppendJSONObjectAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	m := map[string]any{"version": "2", "name": "USD Coin", "n": 1.5, "list": []any{"a", true}, "nested": map[string]any{"x": nil}, "é\"": "<>"}
	got, err := appendJSONObject(nil, m)
	require.NoError(t, err)
	want, err := json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))

	_, err = appendJSONObject(nil, map[string]any{"f": func() {}})
	assert.Error(t, err)
}

func TestJSONStringReader(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{`"abc"`: "abc", `"a\"b"`: `a"b`, `"\u00e9"`: "é", `"é"`: "é", `""`: ""} {
		got, ok := jsonString(json.RawMessage(raw))
		assert.True(t, ok, raw)
		assert.Equal(t, want, got, raw)
	}
	for _, raw := range []string{`1`, `null`, `{}`, `[]`, `true`, ``} {
		_, ok := jsonString(json.RawMessage(raw))
		assert.False(t, ok, raw)
	}
}

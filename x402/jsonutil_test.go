package x402

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendJSONStringAgreesWithEncodingJSON checks that the hand-written string encoder
// produces valid JSON that decodes to what encoding/json would produce for the same string.
func TestAppendJSONStringAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	cases := []string{"", "plain", `quo"te`, `back\slash`, "new\nline\r\t", "\x00\x01\x1f\x7f", "café ₮ 🚀",
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
		enc := appendJSONString(nil, s)
		require.True(t, json.Valid(enc), "%q -> %s", s, enc)
		var got, want string
		require.NoError(t, json.Unmarshal(enc, &got))
		std, err := json.Marshal(s)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(std, &want))
		assert.Equal(t, want, got, "%q", s)
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

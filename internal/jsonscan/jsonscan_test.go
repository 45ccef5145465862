package jsonscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendMembers(t *testing.T) {
	t.Parallel()
	body := []byte(` { "a" : [1, {"b": "}"}] , "k\u0041": "x\"y", "a": null, "e": {} } `)
	members, ok := AppendMembers(nil, body)
	require.True(t, ok)
	var got []string
	for _, m := range members {
		got = append(got, string(m.Key)+"="+string(m.Value))
	}
	assert.Equal(t, []string{`a=[1, {"b": "}"}]`, `kA="x\"y"`, `a=null`, `e={}`}, got)

	// The values' capacity ends with them.
	v := members[0].Value
	_ = append(v, '!')
	assert.Equal(t, body, []byte(` { "a" : [1, {"b": "}"}] , "k\u0041": "x\"y", "a": null, "e": {} } `))

	// Appending keeps what dst held.
	more, ok := AppendMembers(members[:1], []byte(`{"z":1}`))
	require.True(t, ok)
	assert.Len(t, more, 2)
	assert.Equal(t, "z", string(more[1].Key))

	for _, notObject := range []string{``, `[]`, `"a"`, `1`, `null`, `{"a":1`, `{"a" 1}`, `{"a":1,}`, `{"a":1} x`} {
		_, ok := AppendMembers(nil, []byte(notObject))
		assert.False(t, ok, notObject)
	}
}

func TestItems(t *testing.T) {
	t.Parallel()
	items, ok := Items([]byte(`[ 1 ,"a]" , {"b":[2,3]}, null,[] ]`))
	require.True(t, ok)
	var got []string
	for _, it := range items {
		got = append(got, string(it))
	}
	assert.Equal(t, []string{`1`, `"a]"`, `{"b":[2,3]}`, `null`, `[]`}, got)

	empty, ok := Items([]byte(` [ ] `))
	assert.True(t, ok)
	assert.NotNil(t, empty)
	assert.Empty(t, empty)

	// AppendItems reuses dst.
	reused, ok := AppendItems(items[:0], []byte(`[true]`))
	require.True(t, ok)
	assert.Equal(t, []json.RawMessage{json.RawMessage(`true`)}, reused)
	assert.Same(t, &items[0], &reused[0])

	for _, notArray := range []string{``, `{}`, `"a"`, `[1`, `[1,]`, `[1 2]`, `[1] x`} {
		_, ok := Items([]byte(notArray))
		assert.False(t, ok, notArray)
	}
}

// FuzzMatchesEncodingJSON checks both readers against encoding/json for any valid JSON:
// AppendMembers gives the members encoding/json decodes into a map (the later of two equal
// keys counting there), and Items the items it decodes into a []json.RawMessage. On invalid
// bytes they must not panic.
func FuzzMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"A":2,"a":3}`, `{"k\u0041":[1,{"x":"}]"}],"b":"\"{"}`, "{\"\xff\":1,\"\\ud800\":2}",
		` [1 , "a" ,{"b":[2]} ,null ] `, `{ }`, `[ ]`, `"s"`, `-0.5e+3`, `{"a":{"b":1},"a":2}`,
		`{"a":1}x`, `[1,]`, `{"a" 1}`, `{"a":"\`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		members, isObj := AppendMembers(nil, b)
		items, isArr := Items(b)
		if !json.Valid(b) {
			return
		}
		trimmed := bytes.TrimSpace(b)

		var want map[string]json.RawMessage
		wantObj := trimmed[0] == '{' && json.Unmarshal(b, &want) == nil
		if isObj != wantObj {
			t.Fatalf("AppendMembers(%q) ok = %t, encoding/json reads an object: %t", b, isObj, wantObj)
		}
		if isObj {
			last := map[string]json.RawMessage{}
			for _, m := range members {
				last[string(m.Key)] = m.Value
			}
			if len(last) != len(want) {
				t.Fatalf("AppendMembers(%q): %d keys, encoding/json %d", b, len(last), len(want))
			}
			for k, v := range want {
				if !bytes.Equal(last[k], v) {
					t.Fatalf("AppendMembers(%q)[%q] = %s, encoding/json %s", b, k, last[k], v)
				}
			}
		}

		var wantItems []json.RawMessage
		wantArr := trimmed[0] == '[' && json.Unmarshal(b, &wantItems) == nil
		if isArr != wantArr || !slices.EqualFunc(items, wantItems, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
			t.Fatalf("Items(%q) = %q, %t; encoding/json reads %q, %t", b, items, isArr, wantItems, wantArr)
		}
	})
}

// Package jsonscan walks JSON that has already been checked (json.Valid, or decoded by
// encoding/json) without decoding it: the members of an object and the items of an array,
// each value as a part of the input rather than a copy. Readers that decode leniently use it
// to find values by key, and to keep the bytes of each item of a list that encoding/json
// decodes in one pass, without a second pass of encoding/json over each.
//
// Its input must be valid JSON. On other bytes the functions never panic, but they may
// accept what encoding/json refuses.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Member is one member of a JSON object.
type Member struct {
	// Key is the member's key as encoding/json gives it: unescaped, with invalid UTF-8
	// replaced. It is a part of the input when the key has neither.
	Key []byte
	// Value is the member's value, a part of the input (its capacity ends with it, so an
	// append never writes over what follows).
	Value json.RawMessage
}

// AppendMembers appends the members of raw, a JSON object, to dst in document order, keys
// that occur twice included; ok is false when raw is not an object.
func AppendMembers(dst []Member, raw []byte) (members []Member, ok bool) {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return dst, false
	}
	if i = skipSpace(raw, i+1); i < len(raw) && raw[i] == '}' {
		return dst, skipSpace(raw, i+1) == len(raw)
	}
	for i < len(raw) && raw[i] == '"' {
		end, ok := stringEnd(raw, i)
		if !ok {
			return dst, false
		}
		key, ok := keyText(raw[i:end])
		if !ok {
			return dst, false
		}
		if i = skipSpace(raw, end); i == len(raw) || raw[i] != ':' {
			return dst, false
		}
		i = skipSpace(raw, i+1)
		if end, ok = valueEnd(raw, i); !ok {
			return dst, false
		}
		dst = append(dst, Member{Key: key, Value: raw[i:end:end]})
		var closed bool
		if i, closed, ok = afterValue(raw, end, '}'); closed || !ok {
			return dst, ok
		}
	}
	return dst, false
}

// Items returns the items of raw, a JSON array, each a part of raw (its capacity ends with
// it); ok is false when raw is not an array. The items of an empty array are an empty,
// non-nil slice.
func Items(raw []byte) (items []json.RawMessage, ok bool) {
	return AppendItems(make([]json.RawMessage, 0, 8), raw)
}

// AppendItems is Items appending to dst, for a reader of many arrays that reuses one slice.
func AppendItems(dst []json.RawMessage, raw []byte) (items []json.RawMessage, ok bool) {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '[' {
		return dst, false
	}
	if i = skipSpace(raw, i+1); i < len(raw) && raw[i] == ']' {
		return dst, skipSpace(raw, i+1) == len(raw)
	}
	for i < len(raw) {
		end, ok := valueEnd(raw, i)
		if !ok {
			return dst, false
		}
		dst = append(dst, raw[i:end:end])
		var closed bool
		if i, closed, ok = afterValue(raw, end, ']'); closed || !ok {
			return dst, ok
		}
	}
	return dst, false
}

// afterValue reads what follows a member or an item that ends at raw[end], inside an object
// or an array that closer ends: closed when closer ends raw there, else the index of the next
// member or item after a comma; ok is false for anything else.
func afterValue(raw []byte, end int, closer byte) (next int, closed, ok bool) {
	i := skipSpace(raw, end)
	switch {
	case i == len(raw):
		return 0, false, false
	case raw[i] == closer:
		return 0, true, skipSpace(raw, i+1) == len(raw)
	case raw[i] == ',':
		return skipSpace(raw, i+1), false, true
	}
	return 0, false, false
}

// keyText returns the text of quoted, a JSON string used as a key, as encoding/json gives
// it: its own bytes when it has no escapes and is valid UTF-8, else decoded.
func keyText(quoted []byte) ([]byte, bool) {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner, true
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// skipSpace returns the index of the first byte of b at or after i that is not JSON
// whitespace, or len(b).
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// valueEnd returns the index just past the JSON value that starts at b[i]; ok is false when
// b ends first.
func valueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, ok := stringEnd(b, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	}
	start := i
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
			return i, i > start
		}
		i++
	}
	return i, true
}

// stringEnd returns the index just past the JSON string that starts at b[i].
func stringEnd(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

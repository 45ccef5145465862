package x402

import (
	"encoding/json"
	"sort"
	"strconv"
	"unicode/utf8"
)

// This file holds the small JSON helpers that let the hot paths (a payment per request)
// decode in one pass and encode without reflection.

// appendJSONString appends s as a JSON string, byte for byte as encoding/json writes it with
// HTML escaping off: invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029 are escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 0x20 && c != '"' && c != '\\':
				dst = append(dst, c)
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\b':
				dst = append(dst, '\\', 'b')
			case c == '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// appendJSONObject appends a map as a JSON object with sorted keys, as encoding/json does.
func appendJSONObject(dst []byte, m map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		if s, ok := m[k].(string); ok {
			dst = appendJSONString(dst, s)
			continue
		}
		v, err := json.Marshal(m[k])
		if err != nil {
			return nil, err
		}
		dst = append(dst, v...)
	}
	return append(dst, '}'), nil
}

// jsonString reads a JSON string value from raw, already validated JSON. It reports false
// for any other kind of value. Strings without escapes or non-ASCII bytes take a fast path.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", false
			}
			return s, true
		}
	}
	return string(body), true
}

// present reports whether a field was sent with a value other than null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// jsonInt reads a JSON integer from raw, already validated JSON, within bitSize bits.
func jsonInt(raw json.RawMessage, bitSize int) (int64, bool) {
	n, err := strconv.ParseInt(string(raw), 10, bitSize)
	return n, err == nil
}

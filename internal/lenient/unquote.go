package lenient

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote reads b, with JSON white space around it allowed, as one JSON string, and returns
// its value as encoding/json decodes it: escapes resolved, a lone UTF-16 surrogate and each
// byte of invalid UTF-8 replaced with U+FFFD. ok is false for anything else, a string with a
// control character or a bad escape included.
//
// It is for a string that encoding/json has already checked as part of an answer (handed to
// an UnmarshalJSON, or found with jsonscan): json.Unmarshal would check it a second time,
// and for a file's content, read back whole, that second pass was a tenth of the call.
// FuzzUnquote checks Unquote against encoding/json for any bytes.
func Unquote(b []byte) (string, bool) {
	b = trimJSONSpace(b)
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	s := b[1 : len(b)-1]
	plain := true
	for _, c := range s {
		if c < 0x20 {
			return "", false
		}
		if c == '\\' || c == '"' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(s), true
	}
	out := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < 0x20 || c == '"':
			return "", false
		case c == '\\':
			if i+1 == len(s) {
				return "", false
			}
			switch s[i+1] {
			case '"', '\\', '/':
				out = append(out, s[i+1])
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(s[i+2:])
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if len(s) >= i+6 && s[i] == '\\' && s[i+1] == 'u' {
						if r2, ok := hex4(s[i+2:]); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								out = utf8.AppendRune(out, dec)
								i += 6
								continue
							}
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s[i:i+size]...)
			}
			i += size
		}
	}
	return string(out), true
}

// hex4 reads the four hexadecimal digits that start b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// trimJSONSpace returns b without the JSON white space (space, tab, CR, LF) around it.
func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

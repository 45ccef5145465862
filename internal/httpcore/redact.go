package httpcore

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// redacted replaces a secret wherever one would have been shown.
const redacted = "[REDACTED]"

// minSecretLen is the shortest secret the redactor scrubs: shorter values would match ordinary
// words and numbers, and credential validation rejects them anyway.
const minSecretLen = 4

// redactor scrubs known secret values from any text that leaves the SDK (error strings, body
// excerpts, paths, headers kept in errors, log attributes). It is a second line of defence:
// secrets travel only in headers, but a server may echo them back in a body, a header or a
// redirect's path, in any letter case, URL-escaped or base64-encoded. Matching ignores the
// case of ASCII letters, which covers keys, tokens, hex signatures and base64.
type redactor struct {
	secrets []string // each in ASCII lower case
}

// with returns a redactor that also scrubs the given values, in every form of encodedForms.
func (r redactor) with(values ...string) redactor {
	out := redactor{secrets: append([]string(nil), r.secrets...)}
	for _, v := range values {
		if len(v) < minSecretLen {
			continue
		}
		for _, f := range encodedForms(v) {
			if f = asciiLower(f); !slices.Contains(out.secrets, f) {
				out.secrets = append(out.secrets, f)
			}
		}
	}
	// Longer forms first, so that a form containing a shorter one is scrubbed whole.
	slices.SortStableFunc(out.secrets, func(a, b string) int { return len(b) - len(a) })
	return out
}

// minEncodedLen is the shortest encoded form scrubbed: shorter runs of base64 or escapes
// would match ordinary text.
const minEncodedLen = 8

// encodedForms returns v and the forms a server may echo it in: URL-escaped (query and path
// escaping), and base64 in the standard and the URL alphabets. A base64 echo usually encodes
// more than the secret (a whole "Bearer <token>" header, a JSON document), so the secret's
// bytes may start at any of the three positions of a base64 group: for each, the form is the
// run of characters that only the secret's bytes determine, the same wherever it sits.
func encodedForms(v string) []string {
	forms := []string{v}
	add := func(f string) {
		if len(f) >= minEncodedLen && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	add(url.QueryEscape(v))
	add(url.PathEscape(v))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for offset := range 3 {
			padded := make([]byte, offset, offset+len(v))
			encoded := enc.EncodeToString(append(padded, v...))
			first := (8*offset + 5) / 6       // the first character of the secret's bits alone
			last := (8*offset + 8*len(v)) / 6 // past the last character wholly of its bits
			if first < last && last <= len(encoded) {
				add(encoded[first:last])
			}
		}
	}
	return forms
}

// text scrubs every known secret from s, whatever the letter case it appears in.
func (r redactor) text(s string) string {
	if len(r.secrets) == 0 || s == "" {
		return s
	}
	lower := asciiLower(s)
	for _, secret := range r.secrets {
		if !strings.Contains(lower, secret) {
			continue
		}
		var b strings.Builder
		for {
			i := strings.Index(lower, secret)
			if i < 0 {
				break
			}
			b.WriteString(s[:i])
			b.WriteString(redacted)
			s, lower = s[i+len(secret):], lower[i+len(secret):]
		}
		b.WriteString(s)
		s = b.String()
		lower = asciiLower(s)
	}
	return s
}

// bytes scrubs every known secret from b, returning b itself when it holds none.
func (r redactor) bytes(b []byte) []byte {
	s := string(b)
	if scrubbed := r.text(s); scrubbed != s {
		return []byte(scrubbed)
	}
	return b
}

// header returns a copy of h with every known secret scrubbed from its names and values.
func (r redactor) header(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		k = r.text(k)
		for _, v := range vs {
			out[k] = append(out[k], r.text(v))
		}
	}
	return out
}

// asciiLower lowers the ASCII letters of s and leaves every other byte as it is, so the result
// has the same length and byte offsets as s.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// Scrub returns s with every one of secrets (those of at least 4 bytes) replaced by
// [REDACTED], whatever the letter case of their ASCII letters: packages that build errors
// outside a Client (such as the x402 payer, with a payment's signature) use it.
func Scrub(s string, secrets ...string) string { return redactor{}.with(secrets...).text(s) }

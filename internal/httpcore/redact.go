package httpcore

import (
	"net/http"
	"strings"
)

// redacted replaces a secret wherever one would have been shown.
const redacted = "[REDACTED]"

// minSecretLen is the shortest secret the redactor scrubs: shorter values would match ordinary
// words and numbers, and credential validation rejects them anyway.
const minSecretLen = 4

// redactor scrubs known secret values from any text that leaves the SDK (error strings, body
// excerpts, headers kept in errors, log attributes). It is a second line of defence: secrets
// travel only in headers, but a server may echo them back in a body or a header, in any letter
// case. Matching ignores the case of ASCII letters, which covers keys, tokens, hex signatures
// and base64.
type redactor struct {
	secrets []string // each in ASCII lower case
}

// with returns a redactor that also scrubs the given values.
func (r redactor) with(values ...string) redactor {
	out := redactor{secrets: append([]string(nil), r.secrets...)}
	for _, v := range values {
		if len(v) >= minSecretLen {
			out.secrets = append(out.secrets, asciiLower(v))
		}
	}
	return out
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
		var b, lb strings.Builder
		for {
			i := strings.Index(lower, secret)
			if i < 0 {
				break
			}
			b.WriteString(s[:i])
			b.WriteString(redacted)
			lb.WriteString(lower[:i])
			lb.WriteString(redacted)
			s, lower = s[i+len(secret):], lower[i+len(secret):]
		}
		b.WriteString(s)
		lb.WriteString(lower)
		s, lower = b.String(), asciiLower(lb.String())
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

// header returns a copy of h with every known secret scrubbed from its values.
func (r redactor) header(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		scrubbed := make([]string, len(vs))
		for i, v := range vs {
			scrubbed[i] = r.text(v)
		}
		out[k] = scrubbed
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

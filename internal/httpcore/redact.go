package httpcore

import "strings"

// redacted replaces a secret wherever one would have been shown.
const redacted = "[REDACTED]"

// minSecretLen is the shortest secret the redactor scrubs: shorter values would match ordinary
// words and numbers, and credential validation rejects them anyway.
const minSecretLen = 4

// redactor scrubs known secret values from any text that leaves the SDK (error strings, body
// excerpts, log attributes). It is a second line of defence: secrets travel only in headers,
// but a server may echo them back in a body or a header.
type redactor struct {
	secrets []string
}

// with returns a redactor that also scrubs the given values.
func (r redactor) with(values ...string) redactor {
	out := redactor{secrets: append([]string(nil), r.secrets...)}
	for _, v := range values {
		if len(v) >= minSecretLen {
			out.secrets = append(out.secrets, v)
		}
	}
	return out
}

// text scrubs every known secret from s.
func (r redactor) text(s string) string {
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, redacted)
		}
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

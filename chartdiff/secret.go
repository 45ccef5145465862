package chartdiff

import (
	"fmt"
	"io"
	"log/slog"
)

// APIKey is the plaintext of an API key, which the service shows once: in the answer of
// CreateKey or RotateKey. Store it with Reveal right away; it cannot be read again.
//
// Every way of printing it shows only a mask such as "sk-…1a2b" (the last four hexadecimal
// characters, enough to tell keys apart): String, the fmt verbs (%v, %+v, %#v, %s, %q, %x...),
// slog (through LogValue) and text and JSON encoding (through MarshalText). Only Reveal returns
// the plaintext. Encoding a struct that holds an APIKey therefore stores the mask, not the key:
// persist Reveal's result explicitly.
type APIKey struct {
	plaintext string
}

// Reveal returns the plaintext key, for WithAPIKey or a secret store. Never log it.
func (k APIKey) Reveal() string { return k.plaintext }

// IsZero reports whether k holds no key.
func (k APIKey) IsZero() bool { return k.plaintext == "" }

// String returns the mask: "sk-…" and the last four characters, or "" for no key.
func (k APIKey) String() string { return maskKey(k.plaintext) }

// GoString returns the mask, so that %#v does not show the key either.
func (k APIKey) GoString() string { return "chartdiff.APIKey(" + maskKey(k.plaintext) + ")" }

// Format prints the mask for every verb: %q quotes it, %#v uses GoString, and every other verb
// writes it as it is.
func (k APIKey) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		_, _ = io.WriteString(f, k.GoString())
	case verb == 'q':
		_, _ = fmt.Fprintf(f, "%q", k.String())
	default:
		_, _ = io.WriteString(f, k.String())
	}
}

// LogValue makes slog record the mask.
func (k APIKey) LogValue() slog.Value { return slog.StringValue(k.String()) }

// MarshalText returns the mask, so that encoding/json and other encoders never write the key.
func (k APIKey) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// maskKey keeps "sk-…" and the last four characters of a well-formed key, and shows anything
// else as "[REDACTED]".
func maskKey(s string) string {
	switch {
	case s == "":
		return ""
	case isAPIKey(s):
		return "sk-…" + s[len(s)-4:]
	}
	return "[REDACTED]"
}

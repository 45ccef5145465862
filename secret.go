package sdk

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// Secret is a credential handed to the caller, such as an API key the service shows only
// once. Store it with Reveal right away.
//
// Every way of printing a Secret shows only a mask such as "sk-…1a2b" (a short prefix that
// names the kind of key, and the last four characters, enough to tell keys apart): String,
// every fmt verb (%v, %+v, %#v, %s, %q, %x...), slog (through LogValue) and text and JSON
// encoding (through MarshalText). Only Reveal returns the value. Encoding a struct that holds
// a Secret therefore stores the mask, not the key: persist Reveal's result explicitly.
type Secret struct {
	value string
}

// NewSecret wraps value.
func NewSecret(value string) Secret { return Secret{value: value} }

// Reveal returns the secret value, for a client option or a secret store. Never log it.
func (s Secret) Reveal() string { return s.value }

// IsZero reports whether s holds nothing.
func (s Secret) IsZero() bool { return s.value == "" }

// String returns the mask: a prefix such as "sk-" when the value starts with one, "…" and the
// last four characters; "[REDACTED]" for a value too short to show any of it; "" for none.
func (s Secret) String() string { return mask(s.value) }

// GoString returns the mask, so that %#v does not show the value either.
func (s Secret) GoString() string { return "sdk.Secret(" + mask(s.value) + ")" }

// Format prints the mask for every verb: %q quotes it, %#v uses GoString, and every other verb
// writes it as it is.
func (s Secret) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		_, _ = io.WriteString(f, s.GoString())
	case verb == 'q':
		_, _ = fmt.Fprintf(f, "%q", s.String())
	default:
		_, _ = io.WriteString(f, s.String())
	}
}

// LogValue makes slog record the mask.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText returns the mask, so that encoding/json and other encoders never write the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// minMaskedLen is the shortest value whose last four characters the mask may show: shorter
// ones would give away too large a share of the value.
const minMaskedLen = 16

// mask keeps a kind prefix (up to and including a "-" or "_" within the first six
// characters, such as "sk-") and the last four characters of a long value.
func mask(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) < minMaskedLen:
		return "[REDACTED]"
	}
	prefix := ""
	if i := strings.IndexAny(s, "-_"); i >= 0 && i < 6 {
		prefix = s[:i+1]
	}
	return prefix + "…" + s[len(s)-4:]
}

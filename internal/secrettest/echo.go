package secrettest

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// Echo is one form in which a hostile server may send a credential back.
type Echo struct {
	// Name says the form, for test messages.
	Name string
	// Encode returns secret in this form.
	Encode func(secret string) string
}

// Echoes is a list of the forms a hostile-server test tries.
type Echoes []Echo

// EchoesOf returns the forms a server may echo a credential in: as sent, in another letter
// case, URL-escaped (query and path), and base64 in both alphabets, padded or not, the
// secret after 0, 1, 2 or more other bytes (every alignment within a base64 group). The
// padded standard form is the Authorization header's value, scheme and secret, as a server
// that echoes that header would send it.
func EchoesOf(scheme string) Echoes {
	return Echoes{
		{"as sent", func(s string) string { return s }},
		{"upper case", strings.ToUpper},
		{"query-escaped", url.QueryEscape},
		{"path-escaped", url.PathEscape},
		{"base64 std", func(s string) string { return base64.StdEncoding.EncodeToString([]byte(scheme + " " + s)) }},
		{"base64 std raw", func(s string) string { return base64.RawStdEncoding.EncodeToString([]byte("k=" + s + `"}`)) }},
		{"base64 url", func(s string) string { return base64.URLEncoding.EncodeToString([]byte("x" + s)) }},
		{"base64 url raw", func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s + "!")) }},
	}
}

// Numbered returns the form a hostile server's request names by number (1 for the first),
// failing t for a number out of range.
func (es Echoes) Numbered(t testing.TB, n string) Echo {
	t.Helper()
	i, err := strconv.Atoi(n)
	if err != nil || i < 1 || i > len(es) {
		t.Errorf("no echo form %q", n)
		return es[0]
	}
	return es[i-1]
}

// Telltales returns, in lower case, what must not appear where secret may have been echoed:
// the secret and each of its echoes, and for an echo longer than the secret (base64 of more
// bytes) the middle of the echo, which only the secret's bytes determine.
func (es Echoes) Telltales(secret string) []string {
	out := []string{strings.ToLower(secret)}
	for _, f := range es {
		echo := f.Encode(secret)
		out = append(out, strings.ToLower(echo))
		if mid := len(echo) / 2; len(echo) > len(secret) {
			out = append(out, strings.ToLower(echo[mid-6:mid+6]))
		}
	}
	return out
}

// AssertNoTelltale fails t when one of texts holds, in any letter case, a telltale of one of
// secrets; what names the texts in the message.
func (es Echoes) AssertNoTelltale(t testing.TB, what string, secrets []string, texts ...string) {
	t.Helper()
	for _, secret := range secrets {
		for _, tell := range es.Telltales(secret) {
			for _, text := range texts {
				if strings.Contains(strings.ToLower(text), tell) {
					t.Errorf("%s: a credential leaked: %q holds %q", what, text, tell)
				}
			}
		}
	}
}

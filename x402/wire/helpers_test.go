package wire_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// shopAddress receives the payments in these tests.
const shopAddress = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// strictBase64 matches standard base64 with its padding, as the reference implementations
// write it.
var strictBase64 = regexp.MustCompile(`^[A-Za-z0-9+/]*={0,2}$`)

// decodeStd decodes strict, padded standard base64.
func decodeStd(t testing.TB, v string) string {
	t.Helper()
	require.Regexp(t, strictBase64, v)
	require.Zero(t, len(v)%4, "padded")
	b, err := base64.StdEncoding.Strict().DecodeString(v)
	require.NoError(t, err)
	return string(b)
}

// encodingJSON returns the compact JSON encoding/json writes for v without HTML escaping.
func encodingJSON(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return strings.TrimSuffix(buf.String(), "\n")
}

package wire_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/wire"
)

// shopAddress receives the payments in these tests.
const shopAddress = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// strictBase64 matches standard base64 with its padding, as the reference implementations
// write it.
var strictBase64 = regexp.MustCompile(`^[A-Za-z0-9+/]*={0,2}$`)

// readFixture returns the trimmed content of testdata/name.
func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

// specPayload decodes the PAYMENT-SIGNATURE example of the v2 HTTP transport spec.
func specPayload(t testing.TB) *wire.PaymentPayload {
	t.Helper()
	p, err := wire.DecodePaymentPayload(readFixture(t, "spec_payment_signature.b64"))
	require.NoError(t, err)
	return p
}

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

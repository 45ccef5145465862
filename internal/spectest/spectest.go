// Package spectest holds the examples of the x402 v2 HTTP transport specification: the
// base64 headers of its challenge (PAYMENT-REQUIRED), its payment (PAYMENT-SIGNATURE) and its
// two receipts (PAYMENT-RESPONSE, a success and a failure), which the tests of x402/wire and
// x402/evm read, so that both read the same bytes.
package spectest

import (
	"embed"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/agentapis/sdk/x402/wire"
)

//go:embed testdata/*.b64
var examples embed.FS

// Header returns the example in testdata/name, trimmed: spec_payment_required.b64,
// spec_payment_signature.b64, spec_payment_response_success.b64 or
// spec_payment_response_failure.b64.
func Header(t testing.TB, name string) string {
	t.Helper()
	b, err := examples.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatalf("no example %s: %v", name, err)
	}
	return strings.TrimSpace(string(b))
}

// Payload decodes the PAYMENT-SIGNATURE example.
func Payload(t testing.TB) *wire.PaymentPayload {
	t.Helper()
	p, err := wire.DecodePaymentPayload(Header(t, "spec_payment_signature.b64"))
	if err != nil {
		t.Fatalf("decode the spec's payment: %v", err)
	}
	return p
}

// strictBase64 is the check the TypeScript reference applies to header values: standard
// base64 with its padding.
var strictBase64 = regexp.MustCompile(`^[A-Za-z0-9+/]*={0,2}$`)

// DecodeStd decodes a header value that must be strict standard base64 with padding, as
// the reference implementations write it, failing the test when it is not.
func DecodeStd(t testing.TB, v string) string {
	t.Helper()
	if !strictBase64.MatchString(v) || len(v)%4 != 0 {
		t.Fatalf("not strict, padded standard base64: %q", v)
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v)
	if err != nil {
		t.Fatalf("decode %q: %v", v, err)
	}
	return string(b)
}

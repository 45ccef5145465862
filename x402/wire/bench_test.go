package wire_test

import (
	"testing"

	"github.com/agentapis/sdk/internal/spectest"
	"github.com/agentapis/sdk/x402/wire"
)

// BenchmarkCodec measures the x402 messages of one payment, to show where a paid request's
// time goes besides HTTP and the signature.
func BenchmarkCodec(b *testing.B) {
	challenge := spectest.Header(b, "spec_payment_required.b64")
	payment := spectest.Header(b, "spec_payment_signature.b64")
	receipt := spectest.Header(b, "spec_payment_response_success.b64")
	p, err := wire.DecodePaymentPayload(payment)
	if err != nil {
		b.Fatal(err)
	}
	pr := &wire.PaymentRequired{X402Version: 2, Resource: &wire.ResourceInfo{URL: "https://h/r"}, Accepts: []wire.PaymentRequirements{p.Accepted}}
	pr.Accepts[0].Raw = nil
	run := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("encode-challenge", func() error { _, err := wire.EncodePaymentRequired(pr); return err })
	run("decode-challenge", func() error { _, err := wire.DecodePaymentRequired(challenge); return err })
	run("encode-payment", func() error { _, err := wire.EncodePaymentPayload(p); return err })
	run("decode-payment", func() error { _, err := wire.DecodePaymentPayload(payment); return err })
	run("parse-receipt", func() error { _, err := wire.DecodeSettleResponse(receipt); return err })
}

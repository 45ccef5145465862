package x402

import (
	"cmp"
	"net/http"

	"github.com/agentapis/sdk/x402/wire"
)

// ReceiptFrom returns the settlement receipt of a response to a paid request, read from its
// PAYMENT-RESPONSE header (v1: X-PAYMENT-RESPONSE). It reports false when the response carries
// no receipt or an unreadable one; use wire.DecodeSettleResponse on the header to see why.
func ReceiptFrom(resp *http.Response) (*wire.SettleResponse, bool) {
	if resp == nil {
		return nil, false
	}
	v := cmp.Or(resp.Header.Get(wire.HeaderPaymentResponse), resp.Header.Get(wire.HeaderPaymentResponseV1))
	if v == "" {
		return nil, false
	}
	s, err := wire.DecodeSettleResponse(v)
	if err != nil {
		return nil, false
	}
	return s, true
}

package x402

import (
	"net/http"
	"sync/atomic"

	"github.com/agentapis/sdk/x402/wire"
)

// PayOffline runs the client's side of one paid request without a server, as RoundTrip does
// it: read the challenge of the 402 answer, choose and check an entry, reserve the amount,
// sign, encode the payment into a copy of req, read the receipt and commit. It returns the
// paid request.
func (p *Payer) PayOffline(req *http.Request, challenge *http.Response, receipt string) (*http.Request, error) {
	pr, err := wire.ReadPaymentRequired(challenge)
	if err != nil {
		return nil, err
	}
	pay, err := p.prepare(req.Context(), pr, targetOf(req), false)
	if err != nil {
		return nil, err
	}
	var writes atomic.Int32
	paid, err := paidRequest(req, pay, &writes)
	if err != nil {
		_ = pay.hold.Discard(req.Context())
		return nil, err
	}
	if _, err := wire.DecodeSettleResponse(receipt); err != nil {
		_ = pay.hold.InDoubt(req.Context())
		return nil, err
	}
	return paid, pay.hold.Commit(req.Context())
}

// HTTPHeader returns the header the RoundTripper sends an attempt's payment in.
func (a *Attempt) HTTPHeader() (name, value string) { return a.httpHeader() }

package x402

import (
	"net/http"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/poll"
)

// RoundTripper returns an http.RoundTripper that pays for resources answering 402, sending
// requests through next (http.DefaultTransport when nil).
//
// A request is first sent unpaid. A 402 without an x402 challenge (no PAYMENT-REQUIRED
// header, and no x402 v1 body) is returned as it is; an unreadable PAYMENT-REQUIRED header is
// a *FormatError. On a challenge, the payer chooses an accepts entry, applies the policy
// (refusals are a *PolicyError or a *NoUsableRequirementsError, and nothing is signed),
// reserves the amount, signs once, and sends the request again with the payment header, its
// body replayed through GetBody (a body without GetBody is ErrBodyNotReplayable). Then:
//
//   - a 2xx answer commits the payment and is returned; ReceiptFrom reads its receipt;
//   - a network failure or a 5xx answer is retried with the same signed payment (see
//     WithResend); if no clear answer ever comes, the amount stays reserved, and a network
//     failure is a *PaymentUnconfirmedError;
//   - another 402 releases the reservation and is a *PaymentRejectedError carrying the
//     server's reason; it is paid again (once) only with Policy.AllowRequote and a new quote
//     that passes the policy;
//   - any other answer (a 3xx, another 4xx) is returned, and the amount stays reserved, as
//     the server may have settled the payment;
//   - a receipt in the answer overrides the status: Success commits, a failure releases.
//
// Do not wrap the returned transport in a retry layer that repeats a request after a 5xx
// answer or an error: the repeat would meet a new 402 and sign a new payment while the first
// may have settled. Resending the same payment is done here (WithResend); the payment errors
// report RetryableError() false for retry layers that ask, and the SDK's clients do.
//
// Requests that already carry a PAYMENT-SIGNATURE or X-PAYMENT header are passed through
// untouched. One request is paid at most once (twice with AllowRequote).
func (p *Payer) RoundTripper(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &payingTransport{p: p, next: next}
}

// payingTransport is the http.RoundTripper returned by Payer.RoundTripper.
type payingTransport struct {
	p    *Payer
	next http.RoundTripper
}

// RoundTrip sends req, paying for it when the server answers 402.
func (t *payingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(HeaderPaymentSignature) != "" || req.Header.Get(HeaderPaymentV1) != "" {
		return t.next.RoundTrip(req)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		return resp, err
	}
	pr, err := ParsePaymentRequired(resp)
	if err != nil && resp.Header.Get(HeaderPaymentRequired) == "" {
		return resp, nil // a 402 without an x402 challenge is the caller's to handle
	}
	httpcore.Drain(resp)
	if err != nil {
		return nil, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return nil, ErrBodyNotReplayable
	}
	ctx := req.Context()
	var rejected *PaymentRejectedError
	for {
		pay, err := t.p.prepare(ctx, req, pr, rejected != nil)
		if err != nil {
			if rejected != nil {
				rejected.Requote = err
				return nil, rejected
			}
			return nil, err
		}
		resp, err := t.sendPaid(req, pay)
		if err != nil {
			return nil, err
		}
		receipt := t.p.settle(pay, resp)
		if resp.StatusCode != http.StatusPaymentRequired {
			return resp, nil
		}
		again := rejected != nil
		rejected = &PaymentRejectedError{Requirements: pay.req, Settlement: receipt}
		next, perr := ParsePaymentRequired(resp)
		httpcore.Drain(resp)
		if perr == nil {
			rejected.Reason = next.Error
		}
		switch {
		case again || !t.p.rules.allowRequote:
			return nil, rejected
		case perr != nil:
			rejected.Requote = perr
			return nil, rejected
		}
		pr = next
	}
}

// repeatableMethods are the methods a paid request may be sent again with.
var repeatableMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodOptions: true,
	http.MethodTrace: true, http.MethodPut: true, http.MethodDelete: true,
}

// sendPaid sends req with the payment, again with the same payment after a network failure or
// a 5xx as WithResend allows. It returns the first clear answer, or the last 5xx; a network
// failure after the payment left is a *PaymentUnconfirmedError. A failure before anything was
// sent releases the reservation.
func (t *payingTransport) sendPaid(req *http.Request, pay *payment) (*http.Response, error) {
	ctx := req.Context()
	delay := t.p.resendDelay
	for attempt := 0; ; attempt++ {
		paid, err := paidRequest(req, pay)
		if err != nil {
			if attempt == 0 {
				pay.res.release()
				return nil, err
			}
			return nil, t.unconfirmed(pay, err)
		}
		resp, err := t.next.RoundTrip(paid)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		pay.inDoubt = true
		stop := attempt >= t.p.resends || !repeatableMethods[req.Method] ||
			t.p.now().Unix()+validBeforeMargin > pay.expires
		if stop {
			if err != nil {
				return nil, t.unconfirmed(pay, err)
			}
			return resp, nil
		}
		if resp != nil {
			httpcore.Drain(resp)
		}
		if err := poll.Real.Sleep(ctx, delay); err != nil {
			return nil, t.unconfirmed(pay, err)
		}
		delay *= 2
	}
}

// unconfirmed returns the error for a payment whose outcome is unknown; its amount stays
// reserved.
func (t *payingTransport) unconfirmed(pay *payment, err error) error {
	return &PaymentUnconfirmedError{Requirements: pay.req, Payer: t.p.signer.Address(), Nonce: pay.nonce, Err: err}
}

// paidRequest returns a copy of req carrying the payment header, with a fresh body.
func paidRequest(req *http.Request, pay *payment) (*http.Request, error) {
	paid := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		paid.Body = body
	}
	paid.Header.Set(pay.header, pay.value)
	return paid, nil
}

package x402

import (
	"cmp"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/agentapis/sdk/internal/excerpt"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/poll"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/wire"
)

// RoundTripper returns an http.RoundTripper that pays for resources answering 402, sending
// requests through next (http.DefaultTransport when nil).
//
// A request is first sent unpaid. A 402 without an x402 challenge (no PAYMENT-REQUIRED
// header, and no x402 v1 body) is returned as it is; an unreadable PAYMENT-REQUIRED header is
// a *FormatError. On a challenge, the payer chooses an accepts entry, applies the policy
// (refusals are a *PolicyError or a *NoUsableRequirementsError, and nothing is signed),
// reserves the amount in its Budget, signs once, and sends the request again with the
// payment header, its body replayed through GetBody (a body without GetBody is
// ErrBodyNotReplayable). A request that an HTTP redirect brought to another origin than the
// one it was sent to is paid only when Policy.RedirectOrigins lists that origin.
//
// Every outcome after the payment left is a 2xx answer or a typed error, and says what it
// means for the money:
//
//   - a 2xx answer commits the payment and is returned; ReceiptFrom reads its receipt;
//   - a receipt with Success true on any other status commits the payment and is a
//     *PaymentSettledError: the resource was not delivered, and a redirect is not followed;
//   - a clean refusal (a 402, or another 4xx without a success receipt, while nothing about
//     the payment was in doubt) is a *PaymentRejectedError; the authorization stays counted
//     until it expires, since the payee still holds it. With Policy.AllowRequote a new 402
//     quote that passes the policy is paid once more;
//   - anything that leaves the outcome unknown is a *PaymentUnconfirmedError, and the amount
//     stays counted until resolved: no answer (a network failure, the context ending), a
//     5xx, a redirect, or any answer after an attempt of the same payment was in doubt or
//     after the underlying transport sent the paid request more than once.
//
// The payer itself may send the same signed payment again after a network failure or a 5xx
// (see WithResend); the same authorization cannot settle twice. It keeps net/http from
// re-sending a paid request on its own (a reused keep-alive connection the server closed):
// the paid request's body cannot be replayed by the transport, and the request headers the
// transport writes are counted through net/http/httptrace, so that a re-send by a transport
// that does it anyway is noticed and treated as in doubt. A transport that writes requests
// without reporting to httptrace must not re-send them.
//
// Do not wrap the returned transport in a retry layer that repeats a request after a 5xx
// answer or an error: the repeat would meet a new 402 and sign a new payment while the first
// may have settled. The payment errors report RetryableError() false for retry layers that
// ask, and the SDK's clients do.
//
// Requests that already carry a PAYMENT-SIGNATURE or X-PAYMENT header are passed through
// untouched. One request is paid at most once (twice with AllowRequote).
func (p *Payer) RoundTripper(next http.RoundTripper) http.RoundTripper {
	return &payingTransport{p: p, next: cmp.Or(next, http.DefaultTransport)}
}

// payingTransport is the http.RoundTripper returned by Payer.RoundTripper.
type payingTransport struct {
	p    *Payer
	next http.RoundTripper
}

// RoundTrip sends req, paying for it when the server answers 402.
func (t *payingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(wire.HeaderPaymentSignature) != "" || req.Header.Get(wire.HeaderPaymentV1) != "" {
		return t.next.RoundTrip(req)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		return resp, err
	}
	pr, err := wire.ReadPaymentRequired(resp)
	if err != nil && resp.Header.Get(wire.HeaderPaymentRequired) == "" {
		return resp, nil // a 402 without an x402 challenge is the caller's to handle
	}
	httpcore.Drain(resp)
	if err != nil {
		return nil, err
	}
	if err := t.p.checkOrigin(req); err != nil {
		return nil, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return nil, ErrBodyNotReplayable
	}
	return t.pay(req, pr)
}

// checkOrigin refuses to pay a request that an HTTP redirect brought to another origin than
// the one it was sent to, unless the policy lists that origin.
func (p *Payer) checkOrigin(req *http.Request) error {
	if req.Response == nil || req.URL == nil {
		return nil
	}
	first := req
	for first.Response != nil && first.Response.Request != nil && first.Response.Request.URL != nil {
		first = first.Response.Request
	}
	origin := originOf(req.URL)
	if origin == originOf(first.URL) || p.rules.origins[origin] {
		return nil
	}
	return &PolicyError{Rule: ErrOriginNotAllowed, Origin: origin}
}

// pay pays challenge pr for req, once, or twice when the server re-quotes and the policy
// allows it.
func (t *payingTransport) pay(req *http.Request, pr *wire.PaymentRequired) (*http.Response, error) {
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
		resp, ref, err := t.sendPaid(req, pay)
		if ref == nil {
			return resp, err
		}
		// A clean refusal: pay a new quote once, when the policy allows it.
		again := rejected != nil
		rejected = ref.err
		switch {
		case again || !t.p.rules.allowRequote:
			return nil, rejected
		case ref.next == nil:
			rejected.Requote = ref.nextErr
			return nil, rejected
		}
		pr = ref.next
	}
}

// refusal is a clean refusal of a paid request: its error, and the server's new challenge
// when it sent a readable one.
type refusal struct {
	err     *PaymentRejectedError
	next    *wire.PaymentRequired
	nextErr error
}

// sent is what became of one payment's attempts.
type sent struct {
	resp  *http.Response // the last answer, nil when none came
	err   error          // the last attempt's failure, when no answer came
	doubt bool           // an attempt ended without a clear answer, or was sent twice
	left  bool           // the payment was handed to the transport at least once
}

// sendPaid sends req with the payment, again with the same payment after a network failure
// or a 5xx as WithResend allows, and books the outcome in the payment's hold. It returns the
// 2xx answer to hand to the caller, the typed error of an outcome that is settled or in
// doubt, or the refusal of a clean refusal.
//
// The outcome is booked in the budget whatever happened to the request's context. A failure
// of the store to book it is not reported: the hold then stays counted as signed, and the
// answer or error is the same.
func (t *payingTransport) sendPaid(req *http.Request, pay *payment) (*http.Response, *refusal, error) {
	s := t.attempts(req, pay)
	book := context.WithoutCancel(req.Context())
	if !s.left {
		_ = pay.hold.Discard(book) // the signed payment never left this process
		return nil, nil, s.err
	}
	if s.resp == nil {
		_ = pay.hold.InDoubt(book)
		return nil, nil, t.unconfirmed(pay, 0, "", s.err)
	}
	resp := s.resp
	receipt, hasReceipt := ReceiptFrom(resp)
	status := resp.StatusCode
	switch {
	case status >= 200 && status <= 299:
		_ = pay.hold.Commit(book) // delivered: the payment went through
		return withPayment(resp, req, pay), nil, nil
	case hasReceipt && receipt.Success:
		_ = pay.hold.Commit(book)
		location := resp.Header.Get("Location")
		httpcore.Drain(resp)
		return nil, nil, &PaymentSettledError{Payment: pay.id.clone(), Requirements: pay.req, StatusCode: status,
			Location: pay.scrub(location), Receipt: scrubReceipt(receipt, pay)}
	case status >= 500, status >= 300 && status <= 399, s.doubt:
		_ = pay.hold.InDoubt(book)
		return nil, nil, t.unconfirmed(pay, status, t.reason(resp, pay), nil)
	}
	ref := &refusal{err: &PaymentRejectedError{Payment: pay.id.clone(), Requirements: pay.req, StatusCode: status}}
	if pay.hold.Refused(book) == nil && !pay.expires.IsZero() {
		ref.err.HeldUntil = pay.expires.Add(ledger.ExpiryMargin)
	}
	if hasReceipt {
		ref.err.Settlement = scrubReceipt(receipt, pay)
	}
	if status != http.StatusPaymentRequired {
		ref.err.Reason = t.reason(resp, pay)
		return nil, ref, nil
	}
	ref.next, ref.nextErr = wire.ReadPaymentRequired(resp)
	httpcore.Drain(resp)
	if ref.nextErr == nil {
		ref.err.Reason = pay.scrub(ref.next.Error)
	}
	return nil, ref, nil
}

// attempts sends the paid request until an answer that is not a 5xx comes, or the resends
// allowed are spent.
func (t *payingTransport) attempts(req *http.Request, pay *payment) sent {
	var s sent
	opts := poll.Options{
		Schedule:    poll.Schedule{Min: t.p.resendDelay},
		MaxAttempts: 1,
	}
	if repeatableMethods[req.Method] {
		opts.MaxAttempts = 1 + t.p.resends
	}
	opts.Clock = t.p.clock
	err := poll.Run(req.Context(), opts, func(_ context.Context, n int) (bool, time.Duration, error) {
		// An authorization about to expire is not sent again: the server would refuse it.
		if n > 1 && t.p.clock.Now().Add(validBeforeMargin).After(pay.expires) {
			return true, 0, nil
		}
		if s.resp != nil {
			httpcore.Drain(s.resp) // the 5xx of the previous attempt
			s.resp = nil
		}
		var writes atomic.Int32
		paid, err := paidRequest(req, pay, &writes)
		if err != nil {
			s.err = err
			return true, 0, nil
		}
		s.left = true
		resp, err := t.next.RoundTrip(paid)
		if writes.Load() > 1 {
			s.doubt = true // the transport sent the paid request more than once on its own
		}
		if err != nil {
			s.err, s.doubt = err, true
			return false, 0, err
		}
		s.err, s.resp = nil, resp
		if resp.StatusCode >= 500 {
			s.doubt = true
			return false, 0, errors.New(resp.Status)
		}
		return true, 0, nil
	})
	var stopped *poll.StoppedError
	if errors.As(err, &stopped) && s.resp == nil && s.err == nil {
		s.err = stopped.Reason // the context ended before the first attempt
	}
	return s
}

// reason reads a short excerpt of a failure answer, with the payment scrubbed, and closes it.
func (t *payingTransport) reason(resp *http.Response, pay *payment) string {
	if pr, err := wire.ReadPaymentRequired(resp); err == nil && resp.StatusCode == http.StatusPaymentRequired {
		httpcore.Drain(resp)
		return pay.scrub(pr.Error)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxReasonBytes))
	httpcore.Drain(resp)
	return excerpt.Of([]byte(pay.scrub(string(b)))) // scrubbed whole, then cut
}

// maxReasonBytes caps the failure body read for an error's reason: enough to hold an echoed
// payment header whole, so it is scrubbed before the excerpt is cut.
const maxReasonBytes = 16 << 10

// scrubReceipt returns a copy of r with the payment scrubbed from its texts.
func scrubReceipt(r *wire.SettleResponse, pay *payment) *wire.SettleResponse {
	c := *r
	c.ErrorReason, c.ErrorMessage = pay.scrub(r.ErrorReason), pay.scrub(r.ErrorMessage)
	c.Transaction, c.Payer, c.Amount = pay.scrub(r.Transaction), pay.scrub(r.Payer), pay.scrub(r.Amount)
	c.Network, c.RawNetwork = pay.scrub(r.Network), pay.scrub(r.RawNetwork)
	c.Extensions = []byte(pay.scrub(string(r.Extensions)))
	if r.Extensions == nil {
		c.Extensions = nil
	}
	return &c
}

// unconfirmed returns the error for a payment whose outcome is unknown; its amount stays
// counted.
func (t *payingTransport) unconfirmed(pay *payment, status int, reason string, err error) error {
	if err != nil {
		if msg := pay.scrub(err.Error()); msg != err.Error() {
			err = errors.New(msg) // the failure quoted the payment: keep only the scrubbed text
		}
	}
	return &PaymentUnconfirmedError{Payment: pay.id.clone(), Requirements: pay.req, StatusCode: status, Reason: reason, Err: err}
}

// repeatableMethods are the methods a paid request may be sent again with.
var repeatableMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodOptions: true,
	http.MethodTrace: true, http.MethodPut: true, http.MethodDelete: true,
}

// unreplayable is the empty body of a paid request that has none: net/http re-sends a
// request on its own only when it can replay its body, and this one it cannot (it has no
// GetBody), so a paid request is never sent twice behind the payer's back. net/http sends
// it as a request without a body.
type unreplayable struct{}

// Read reports the end of the empty body.
func (unreplayable) Read([]byte) (int, error) { return 0, io.EOF }

// Close does nothing.
func (unreplayable) Close() error { return nil }

// paymentKey is the context key of the Payment a paid request carries.
type paymentKey struct{}

// PaymentFrom returns what identifies the payment of a paid answer: the 2xx response the
// payer's RoundTripper returned for a request it paid (a copy). It reports false for an
// answer nothing was paid for. The response's headers are the server's, unchanged: the
// payment travels in the context of resp.Request.
func PaymentFrom(resp *http.Response) (*Payment, bool) {
	if resp == nil || resp.Request == nil {
		return nil, false
	}
	p, ok := resp.Request.Context().Value(paymentKey{}).(*Payment)
	if !ok {
		return nil, false
	}
	c := p.clone()
	return &c, true
}

// withPayment makes sure resp's Request carries pay's Payment, as the paid request did,
// whatever request the transport below set on resp (or none), and returns resp.
func withPayment(resp *http.Response, req *http.Request, pay *payment) *http.Response {
	base := resp.Request
	if base == nil {
		base = req
	} else if p, _ := base.Context().Value(paymentKey{}).(*Payment); p == &pay.id {
		return resp // the paid request itself
	}
	resp.Request = base.WithContext(context.WithValue(base.Context(), paymentKey{}, &pay.id))
	return resp
}

// paidRequest returns a copy of req carrying the payment header, with a fresh body the
// transport cannot replay, and a trace that counts the request headers written into writes.
// Its context carries the payment's identity, so that the answer's Request has it.
func paidRequest(req *http.Request, pay *payment, writes *atomic.Int32) (*http.Request, error) {
	ctx := httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{WroteHeaders: func() { writes.Add(1) }})
	ctx = context.WithValue(ctx, paymentKey{}, &pay.id)
	paid := req.Clone(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		paid.Body = body
	} else {
		paid.Body, paid.ContentLength = unreplayable{}, 0
	}
	paid.GetBody = nil
	paid.Header.Set(pay.header, pay.value)
	return paid, nil
}

// validBeforeMargin is how long a payment must stay valid for the server to take it: the
// reference facilitators require validBefore >= now + 6 s. A payment closer to its expiry is
// not sent again.
const validBeforeMargin = 6 * time.Second

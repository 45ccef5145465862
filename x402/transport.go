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

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/poll"
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
	a, err := t.p.prepare(req.Context(), pr, targetOf(req), false)
	var resp *http.Response
	for err == nil && resp == nil {
		resp, a, err = t.sendPaid(req, a)
	}
	return resp, err
}

// sent is what became of one payment's attempts.
type sent struct {
	resp  *http.Response // the last answer, nil when none came
	err   error          // the last attempt's failure, when no answer came
	doubt bool           // an attempt ended without a clear answer, or was sent twice
}

// sendPaid sends req with the payment, again with the same payment after a network failure
// or a 5xx as WithResend allows, and books the outcome in the attempt (see Answered). It
// returns the 2xx answer to hand to the caller, the attempt that pays a new quote, or the
// typed error of the outcome.
func (t *payingTransport) sendPaid(req *http.Request, a *Attempt) (*http.Response, *Attempt, error) {
	s := t.attempts(req, a)
	if s.resp == nil {
		return nil, nil, a.NoAnswer(req.Context(), s.err)
	}
	resp, status := s.resp, s.resp.StatusCode
	ans := Answer{status: status, Delivered: status >= 200 && status <= 299,
		InDoubt: status >= 500 || (status >= 300 && status <= 399) || s.doubt}
	if ans.Delivered {
		_, _ = a.Answered(req.Context(), ans) // commits
		return withPayment(resp, req, a), nil, nil
	}
	ans.Receipt, _ = ReceiptFrom(resp)
	ans.location = resp.Header.Get("Location")
	ans.Reason, ans.Challenge, ans.ChallengeErr = readFailure(resp)
	if status == http.StatusPaymentRequired && ans.Challenge == nil && !ans.InDoubt && (ans.Receipt == nil || !ans.Receipt.Success) {
		ans.Reason = "" // a refusal whose new challenge cannot be read says why in Requote
	}
	next, err := a.Answered(req.Context(), ans)
	return nil, next, err
}

// readFailure reads the answer to a paid request that delivered nothing: the new challenge of
// a 402 and its error field, or else the start of the body (enough to hold an echoed payment
// header whole, so that the attempt scrubs it before cutting an excerpt); and closes it.
func readFailure(resp *http.Response) (reason string, challenge *wire.PaymentRequired, challengeErr error) {
	if resp.StatusCode == http.StatusPaymentRequired {
		if challenge, challengeErr = wire.ReadPaymentRequired(resp); challengeErr == nil {
			httpcore.Drain(resp)
			return challenge.Error, challenge, nil
		}
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxReasonBytes))
	httpcore.Drain(resp)
	return string(b), nil, challengeErr
}

// attempts sends the paid request until an answer that is not a 5xx comes, or the resends
// allowed are spent.
func (t *payingTransport) attempts(req *http.Request, a *Attempt) sent {
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
		if n > 1 && t.p.clock.Now().Add(validBeforeMargin).After(a.expires) {
			return true, 0, nil
		}
		if s.resp != nil {
			httpcore.Drain(s.resp) // the 5xx of the previous attempt
			s.resp = nil
		}
		var writes atomic.Int32
		paid, err := paidRequest(req, a, &writes)
		if err != nil {
			s.err = err
			return true, 0, nil
		}
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

// maxReasonBytes caps the failure body read for an error's reason: enough to hold an echoed
// payment header whole, so it is scrubbed before the excerpt is cut.
const maxReasonBytes = 16 << 10

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

// withPayment makes sure resp's Request carries a's Payment, as the paid request did,
// whatever request the transport below set on resp (or none), and returns resp.
func withPayment(resp *http.Response, req *http.Request, a *Attempt) *http.Response {
	base := resp.Request
	if base == nil {
		base = req
	} else if p, _ := base.Context().Value(paymentKey{}).(*Payment); p == &a.id {
		return resp // the paid request itself
	}
	resp.Request = base.WithContext(context.WithValue(base.Context(), paymentKey{}, &a.id))
	return resp
}

// paidRequest returns a copy of req carrying the payment header, with a fresh body the
// transport cannot replay, and a trace that counts the request headers written into writes.
// Its context carries the payment's identity, so that the answer's Request has it.
func paidRequest(req *http.Request, a *Attempt, writes *atomic.Int32) (*http.Request, error) {
	ctx := httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{WroteHeaders: func() { writes.Add(1) }})
	ctx = context.WithValue(ctx, paymentKey{}, &a.id)
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
	paid.Header.Set(a.httpHeader())
	return paid, nil
}

// validBeforeMargin is how long a payment must stay valid for the server to take it: the
// reference facilitators require validBefore >= now + 6 s. A payment closer to its expiry is
// not sent again.
const validBeforeMargin = 6 * time.Second

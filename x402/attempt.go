package x402

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"time"

	"github.com/agentapis/sdk/internal/excerpt"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/wire"
)

// Attempt is one signed payment of a challenge on its way to the server, for any transport:
// Prepare makes one, the transport sends its Payload (an MCP tool call's
// _meta["x402/payment"], see package x402/mcppay), then tells it what came back with Answered
// or NoAnswer, which book the outcome in the payer's budget and return the typed outcomes the
// RoundTripper returns. The RoundTripper pays through attempts too, so both follow one set
// of rules: the Policy, the budget, re-quotes (Policy.AllowRequote) and what each answer
// means for the money.
//
// An attempt is for one goroutine, and its outcome is booked once.
type Attempt struct {
	p       *Payer
	hold    *budget.Hold
	id      Payment                  // what identifies it: its chain's id, payer, network, payee, amount
	req     wire.PaymentRequirements // the entry paid, as the policy checked it
	target  target                   // what is paid for
	requote bool                     // it pays a server's new quote after a refusal
	payload json.RawMessage          // the PaymentPayload, compact JSON
	header  string                   // HTTP header name: PAYMENT-SIGNATURE or X-PAYMENT
	value   string                   // HTTP header value: base64 of payload
	// expires is when the payment can no longer settle, and ref what else its scheme's lookup
	// needs.
	expires time.Time
	ref     string
	// secrets are the forms of the payment that must never reach an error: the payload, its
	// header value and the scheme's.
	secrets []string
	taken   bool // the payload was handed to the transport: it may have left
	booked  bool
}

// target is what a payment is for: the request's method and URL, as Policy.Approve sees
// them, and the resource the budget records.
type target struct {
	method   string
	url      *url.URL
	resource string
}

// Prepare pays challenge for a transport of the caller's: it chooses an offer as the
// RoundTripper does (the payer's schemes, the Policy, WithPreference), reserves the amount
// in the budget, asks Policy.Approve, has the scheme sign, records the signature in the
// budget, and returns the attempt whose Payload the transport sends. resource names what is
// paid for, as a URL such as "mcp://tool/search": the budget records it (give it without
// secrets), and Policy.Approve sees it parsed as Quote.URL, with an empty Quote.Method.
//
// A refusal is a *PolicyError or a *NoUsableRequirementsError, and nothing is signed; a nil
// challenge is a *sdk.ValidationError. On any
// error nothing is sent, and nothing stays reserved unless the store could not record the
// release.
func (p *Payer) Prepare(ctx context.Context, challenge *wire.PaymentRequired, resource string) (*Attempt, error) {
	if challenge == nil {
		return nil, invalid("challenge", "must not be nil")
	}
	u, _ := url.Parse(resource) // nil when it is no URL
	return p.prepare(ctx, challenge, target{url: u, resource: resource}, false)
}

// Payload returns the payment to send: the PaymentPayload as compact JSON, the accepts entry
// paid echoed byte for byte. Taking it counts as sending it: from then on, an attempt that
// gets no answer is in doubt (NoAnswer).
func (a *Attempt) Payload() json.RawMessage {
	a.taken = true
	return slices.Clone(a.payload)
}

// httpHeader returns the HTTP header that carries the payment: PAYMENT-SIGNATURE (v1:
// X-PAYMENT) and base64 of Payload. Taking it counts as sending it, as Payload does.
func (a *Attempt) httpHeader() (name, value string) {
	a.taken = true
	return a.header, a.value
}

// Payment returns what identifies the payment (a copy): its id on its chain, the payer, the
// network, the payee, the asset, the amount and the resource.
func (a *Attempt) Payment() Payment { return a.id.clone() }

// scrub returns text with every form of the payment (its payload, its header value, a
// signature, a signed transaction) replaced.
func (a *Attempt) scrub(text string) string { return httpcore.Scrub(text, a.secrets...) }

// Answer is what a server answered to a paid request, as its transport read it. What a
// transport cannot tell stays zero.
type Answer struct {
	// Delivered says the server delivered what was paid for: a 2xx answer, a tool result
	// that is not an error.
	Delivered bool
	// InDoubt says the answer does not settle what became of the payment: a 5xx or a
	// redirect, a protocol error of the server's, or any answer after an earlier sending of
	// the same payment got none, or to a request the transport sent more than once.
	InDoubt bool
	// Reason is the server's reason as it sent it: a new challenge's error field, the start
	// of a failure body, a tool error's text. The attempt scrubs every form of the payment
	// from it, then keeps an excerpt of it, or all of it when it is Challenge's error field.
	Reason string
	// Receipt is the settlement receipt the answer carries, when it is readable.
	Receipt *wire.SettleResponse
	// Challenge is the new challenge the answer carries, when it is readable; ChallengeErr
	// says why it is not, when the answer carries one that is not.
	Challenge    *wire.PaymentRequired
	ChallengeErr error

	// status and location are the HTTP status and a redirect's Location, which the
	// RoundTripper sets; other transports have neither.
	status   int
	location string
}

// Answered books what the server answered, in this order:
//
//   - Delivered: the payment is committed; Answered returns nil, nil, and the transport
//     hands the answer to its caller;
//   - a Receipt with Success true: the money moved but nothing was delivered; the payment is
//     committed and the error is a *PaymentSettledError;
//   - InDoubt: the payment stays counted until a reconciler resolves it, and the error is a
//     *PaymentUnconfirmedError;
//   - anything else is a clean refusal: the payee still holds the authorization, so it
//     stays counted until it expires, and the error is a *PaymentRejectedError. When
//     Policy.AllowRequote allows it and the answer carries a new Challenge, Answered pays
//     that instead, once per request and within the policy, and returns the new attempt
//     with a nil error: the transport sends it as it sent this one.
//
// The outcome is booked whatever happened to ctx; a store that fails to book it leaves the
// payment counted as signed, and the result is the same.
func (a *Attempt) Answered(ctx context.Context, ans Answer) (*Attempt, error) {
	if err := a.book(); err != nil {
		return nil, err
	}
	book := context.WithoutCancel(ctx)
	if ans.Delivered {
		_ = a.hold.Commit(book)
		return nil, nil
	}
	reason := a.scrub(ans.Reason)
	if ans.Challenge == nil || ans.Reason != ans.Challenge.Error {
		reason = excerpt.Of([]byte(reason)) // scrubbed whole, then cut
	}
	switch {
	case ans.Receipt != nil && ans.Receipt.Success:
		_ = a.hold.Commit(book)
		return nil, &PaymentSettledError{Payment: a.id.clone(), Requirements: a.req, StatusCode: ans.status,
			Location: a.scrub(ans.location), Receipt: a.scrubReceipt(ans.Receipt)}
	case ans.InDoubt:
		_ = a.hold.InDoubt(book)
		return nil, a.unconfirmed(ans.status, reason, nil)
	}
	rejected := &PaymentRejectedError{Payment: a.id.clone(), Requirements: a.req, StatusCode: ans.status, Reason: reason}
	if a.hold.Refused(book) == nil && !a.expires.IsZero() {
		rejected.HeldUntil = a.expires.Add(ledger.ExpiryMargin)
	}
	if ans.Receipt != nil {
		rejected.Settlement = a.scrubReceipt(ans.Receipt)
	}
	switch {
	case a.requote || !a.p.rules.allowRequote:
		return nil, rejected
	case ans.Challenge == nil:
		rejected.Requote = ans.ChallengeErr
		return nil, rejected
	}
	next, err := a.p.prepare(ctx, ans.Challenge, a.target, true)
	if err != nil {
		rejected.Requote = err
		return nil, rejected
	}
	return next, nil
}

// NoAnswer books an attempt that got no answer; err says why (a network failure, a dropped
// connection, the context ending). Once its payload was taken (Payload) the payment
// may have reached the server: it stays counted until a reconciler resolves it, and NoAnswer
// returns a *PaymentUnconfirmedError wrapping err, the payment scrubbed from its text. Before
// that nothing left: the signed payment is discarded, and err is returned as it is.
func (a *Attempt) NoAnswer(ctx context.Context, err error) error {
	if e := a.book(); e != nil {
		return e
	}
	book := context.WithoutCancel(ctx)
	if !a.taken {
		_ = a.hold.Discard(book)
		return err
	}
	_ = a.hold.InDoubt(book)
	return a.unconfirmed(0, "", err)
}

// errBooked reports a second outcome for one attempt.
var errBooked = errors.New("x402: the attempt's outcome is booked already")

// book marks the attempt's outcome booked, or reports that it was.
func (a *Attempt) book() error {
	if a.booked {
		return errBooked
	}
	a.booked = true
	return nil
}

// scrubReceipt returns a copy of r with the payment scrubbed from its texts.
func (a *Attempt) scrubReceipt(r *wire.SettleResponse) *wire.SettleResponse {
	c := *r
	c.ErrorReason, c.ErrorMessage = a.scrub(r.ErrorReason), a.scrub(r.ErrorMessage)
	c.Transaction, c.Payer, c.Amount = a.scrub(r.Transaction), a.scrub(r.Payer), a.scrub(r.Amount)
	c.Network, c.RawNetwork = a.scrub(r.Network), a.scrub(r.RawNetwork)
	c.Extensions = []byte(a.scrub(string(r.Extensions)))
	if r.Extensions == nil {
		c.Extensions = nil
	}
	return &c
}

// unconfirmed returns the error for a payment whose outcome is unknown; its amount stays
// counted.
func (a *Attempt) unconfirmed(status int, reason string, err error) error {
	if err != nil {
		if msg := a.scrub(err.Error()); msg != err.Error() {
			err = errors.New(msg) // the failure quoted the payment: keep only the scrubbed text
		}
	}
	return &PaymentUnconfirmedError{Payment: a.id.clone(), Requirements: a.req, StatusCode: status, Reason: reason, Err: err}
}

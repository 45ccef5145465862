package x402

import (
	"context"
	"math/big"
	"net/http"
	"time"
)

// Payer pays for HTTP resources that answer 402, within its Policy. Wrap a transport with
// RoundTripper to use it. A Payer is safe for concurrent use; its running total is shared by
// every request it pays for.
type Payer struct {
	signer      Signer
	rules       *rules
	ledger      ledger
	now         func() time.Time
	resends     int
	resendDelay time.Duration
}

// PayerOption configures a Payer.
type PayerOption func(*Payer) error

// WithClock sets the clock used for the authorization's validity window (default time.Now).
func WithClock(now func() time.Time) PayerOption {
	return func(p *Payer) error {
		if now == nil {
			return invalid("clock", "must not be nil")
		}
		p.now = now
		return nil
	}
}

// WithResend sets how often a paid request that failed in transit or got a 5xx answer is sent
// again with the same signed payment (default 2 times, 250ms apart, doubling). The same
// authorization cannot settle twice, so this never pays twice. Only methods that are safe to
// repeat (GET, HEAD, OPTIONS, TRACE, PUT, DELETE) are sent again; 0 turns it off.
func WithResend(times int, delay time.Duration) PayerOption {
	return func(p *Payer) error {
		if times < 0 || delay < 0 {
			return invalid("resend", "times and delay must not be negative")
		}
		p.resends, p.resendDelay = times, delay
		return nil
	}
}

// NewPayer returns a Payer signing with signer within policy. An invalid policy is a
// *ValidationError naming the field.
func NewPayer(signer Signer, policy Policy, opts ...PayerOption) (*Payer, error) {
	if signer == nil {
		return nil, invalid("signer", "must not be nil")
	}
	if !isHexAddress(signer.Address()) {
		return nil, invalid("signer address", "must be a 0x-prefixed 20-byte hex address")
	}
	r, err := newRules(policy)
	if err != nil {
		return nil, err
	}
	p := &Payer{signer: signer, rules: r, now: time.Now, resends: 2, resendDelay: 250 * time.Millisecond}
	p.ledger.limit = r.maxTotal
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Address returns the paying address.
func (p *Payer) Address() string { return p.signer.Address() }

// Spent returns the total of the payments the servers accepted, in atomic units.
func (p *Payer) Spent() *big.Int {
	committed, _ := p.ledger.totals()
	return committed
}

// Reserved returns the total held for payments in flight and for payments whose outcome is
// unknown (the paid request got no answer, or a 5xx); they count against Policy.MaxTotal for
// the life of the Payer, since they may have settled.
func (p *Payer) Reserved() *big.Int {
	_, reserved := p.ledger.totals()
	return reserved
}

// payment is one signed payment on its way to the server.
type payment struct {
	res     *reservation
	req     PaymentRequirements
	header  string // header name: PAYMENT-SIGNATURE or X-PAYMENT
	value   string // header value
	nonce   string
	expires int64 // validBefore, unix seconds
	// inDoubt is set once an attempt ended without a clear answer (network failure or 5xx);
	// a later refusal then no longer releases the reservation, as the payment may have
	// settled on that attempt.
	inDoubt bool
}

// prepare chooses an entry of pr, applies the policy, reserves the amount, asks the approval
// hook and signs. On any error nothing is signed and nothing stays reserved.
func (p *Payer) prepare(ctx context.Context, req *http.Request, pr *PaymentRequired, requote bool) (*payment, error) {
	r, err := p.rules.choose(pr)
	if err != nil {
		return nil, err
	}
	res, left, ok := p.ledger.reserve(r.Amount)
	if !ok {
		return nil, &PolicyError{Rule: ErrBudgetExceeded, Requirements: *r, Limit: left}
	}
	pay, err := p.authorize(ctx, req, pr, r, requote)
	if err != nil {
		res.release()
		return nil, err
	}
	pay.res = res
	return pay, nil
}

// authorize runs the approval hook and signs r.
func (p *Payer) authorize(ctx context.Context, req *http.Request, pr *PaymentRequired, r *PaymentRequirements, requote bool) (*payment, error) {
	network, _ := normalizeNetwork(r.Network) // checked by choose
	if p.rules.approve != nil {
		q := Quote{Requirements: *r, Network: network, Resource: pr.Resource, Method: req.Method, Requote: requote}
		if pr.X402Version == 1 {
			q.Resource = &ResourceInfo{URL: r.Resource, Description: r.Description, MimeType: r.MimeType}
		}
		if req.URL != nil {
			u := *req.URL
			q.URL = &u
		}
		if err := p.rules.approve(ctx, q); err != nil {
			return nil, &PolicyError{Rule: ErrNotApproved, Requirements: *r, Cause: err}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	payload, err := SignExact(p.signer, pr, r, p.now())
	if err != nil {
		return nil, err
	}
	value, err := EncodePaymentPayload(payload)
	if err != nil {
		return nil, err
	}
	header := HeaderPaymentSignature
	if pr.X402Version == 1 {
		header = HeaderPaymentV1
	}
	auth := &payload.Payload.Authorization
	return &payment{
		req:     *r,
		header:  header,
		value:   value,
		nonce:   string(appendHex(nil, auth.Nonce[:])),
		expires: auth.ValidBefore.Int64(),
	}, nil
}

// settle books the outcome of a paid request that got an answer: a receipt decides when there
// is one; otherwise a 2xx commits, a 402 releases, and anything else keeps the reservation.
func (p *Payer) settle(pay *payment, resp *http.Response) *SettleResponse {
	receipt, ok := ReceiptFrom(resp)
	switch {
	case ok && receipt.Success:
		pay.res.commit()
	case ok && !pay.inDoubt:
		pay.res.release()
	case ok:
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		pay.res.commit()
	case resp.StatusCode == http.StatusPaymentRequired && !pay.inDoubt:
		pay.res.release()
	}
	if !ok {
		return nil
	}
	return receipt
}

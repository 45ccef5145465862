package x402

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"time"

	"github.com/agentapis/sdk/internal/hexstr"
	"github.com/agentapis/sdk/internal/httpcore"
)

// Payer pays for HTTP resources that answer 402, within its Policy and its Budget. Wrap a
// transport with RoundTripper to use it. A Payer is safe for concurrent use; its budget is
// shared by every request it pays for, and may be shared with other payment rails (see
// WithBudget).
type Payer struct {
	signer      Signer
	rules       *rules
	budget      *Budget
	now         func() time.Time
	resends     int
	resendDelay time.Duration
}

// PayerOption configures a Payer.
type PayerOption func(*Payer) error

// WithClock sets the clock used for the authorization's validity window and, for a budget the
// payer makes itself, for its expiry (default time.Now).
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
// authorization cannot settle twice, so this never pays twice; the outcome stays in doubt
// unless an answer settles it (a 2xx or a success receipt). Only methods that are safe to
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

// WithBudget makes the payer draw on b instead of a budget of its own, so that one limit
// bounds several payers and other payment rails (such as a gpuprice key purchase). The
// Policy's MaxTotal must then be nil: the limit is the budget's.
func WithBudget(b *Budget) PayerOption {
	return func(p *Payer) error {
		if b == nil {
			return invalid("budget", "must not be nil")
		}
		p.budget = b
		return nil
	}
}

// NewPayer returns a Payer signing with signer within policy. Without WithBudget it draws on
// a budget of its own, capped at Policy.MaxTotal. An invalid policy is a *sdk.ValidationError
// naming the field.
func NewPayer(signer Signer, policy Policy, opts ...PayerOption) (*Payer, error) {
	if signer == nil {
		return nil, invalid("signer", "must not be nil")
	}
	if !hexstr.IsAddress(signer.Address()) {
		return nil, invalid("signer address", "must be a 0x-prefixed 20-byte hex address")
	}
	r, err := newRules(policy)
	if err != nil {
		return nil, err
	}
	p := &Payer{signer: signer, rules: r, now: time.Now, resends: 2, resendDelay: 250 * time.Millisecond}
	if err := httpcore.Configure("x402", p, opts); err != nil {
		return nil, err
	}
	switch {
	case p.budget != nil && policy.MaxTotal != nil:
		return nil, invalid("Policy.MaxTotal", "must be nil with WithBudget: the shared budget holds the limit")
	case p.budget == nil:
		if p.budget, err = NewBudget(r.maxTotal, WithBudgetClock(p.now)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Address returns the paying address.
func (p *Payer) Address() string { return p.signer.Address() }

// Budget returns the budget the payer draws on.
func (p *Payer) Budget() *Budget { return p.budget }

// Spent returns the total of the payments that went through, in atomic units: the payer's
// budget's Spent (other payers or rails sharing it included).
func (p *Payer) Spent() *big.Int { return p.budget.Spent() }

// Reserved returns what the budget still holds for payments not known to have settled: in
// flight, refused but not yet expired, or of unknown outcome (see Budget).
func (p *Payer) Reserved() *big.Int { return p.budget.Reserved() }

// Outstanding lists the payments the budget still holds.
func (p *Payer) Outstanding() []Outstanding { return p.budget.Outstanding() }

// Evaluate says what the payer would do with challenge pr, without reserving or signing
// anything: the accepts entry it would pay (a copy), or why it would refuse (a *PolicyError
// or a *NoUsableRequirementsError). The budget is not checked: whether it has room depends
// on the payments in flight when the request is made.
func (p *Payer) Evaluate(pr *PaymentRequired) (*PaymentRequirements, error) {
	r, err := p.rules.choose(pr)
	if err != nil {
		return nil, err
	}
	c := copyRequirements(r)
	return &c, nil
}

// payment is one signed payment on its way to the server.
type payment struct {
	hold   *Hold
	id     Payment             // what identifies it: its nonce, payer, network, payee, amount
	req    PaymentRequirements // the entry paid, as the policy checked it
	header string              // header name: PAYMENT-SIGNATURE or X-PAYMENT
	value  string              // header value
	// expires is the authorization's validBefore, unix seconds.
	expires int64
	// secrets are the forms of the payment that must never reach an error: the header value
	// and the signature in hex.
	secrets []string
}

// scrub removes every form of the payment from text the server sent.
func (pay *payment) scrub(text string) string { return httpcore.Scrub(text, pay.secrets...) }

// prepare chooses an entry of pr, applies the policy to a copy of it, reserves the amount,
// asks the approval hook (with a copy of its own), signs the checked copy and records the
// signature in the budget. On any error nothing is sent, and nothing stays reserved unless
// the store could not record the release.
func (p *Payer) prepare(ctx context.Context, req *http.Request, pr *PaymentRequired, requote bool) (*payment, error) {
	chosen, err := p.rules.choose(pr)
	if err != nil {
		return nil, err
	}
	r := copyRequirements(chosen)
	network, _ := normalizeNetwork(r.Network) // checked by choose
	resource := resourceOf(req)
	hold, err := p.budget.Reserve(ctx, Reservation{Amount: r.Amount, PayTo: r.PayTo, Rail: "x402 " + network, Resource: resource,
		Payer: p.signer.Address(), Asset: r.Asset})
	if err != nil {
		if pe, ok := err.(*PolicyError); ok {
			pe.Requirements = copyRequirements(&r)
		}
		return nil, err
	}
	pay, err := p.authorize(ctx, req, pr, &r, requote)
	if err == nil {
		err = hold.Sign(ctx, Signature{ID: pay.id.Nonce, Expires: time.Unix(pay.expires, 0)})
	}
	if err != nil {
		_ = hold.Release(context.WithoutCancel(ctx)) // nothing was sent
		return nil, err
	}
	pay.hold = hold
	pay.id.Payer, pay.id.Network, pay.id.PayTo, pay.id.Resource = p.signer.Address(), network, r.PayTo, resource
	pay.id.Amount = new(big.Int).Set(r.Amount)
	return pay, nil
}

// resourceOf names what a request pays for: its URL without the query.
func resourceOf(req *http.Request) string {
	if req.URL == nil {
		return ""
	}
	u := *req.URL
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}

// authorize runs the approval hook on a copy of the quote and signs r.
func (p *Payer) authorize(ctx context.Context, req *http.Request, pr *PaymentRequired, r *PaymentRequirements, requote bool) (*payment, error) {
	network, _ := normalizeNetwork(r.Network) // checked by choose
	if p.rules.approve != nil {
		q := Quote{Requirements: copyRequirements(r), Network: network, Resource: copyResource(pr.Resource), Method: req.Method, Requote: requote}
		if pr.X402Version == 1 {
			q.Resource = &ResourceInfo{URL: r.Resource, Description: r.Description, MimeType: r.MimeType}
		}
		if req.URL != nil {
			u := *req.URL
			q.URL = &u
		}
		if err := p.rules.approve(ctx, q); err != nil {
			return nil, &PolicyError{Rule: ErrNotApproved, Requirements: copyRequirements(r), Cause: err}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	payload, err := signExact(p.signer, pr, r, p.now(), p.rules.validity(r))
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
	sigHex := string(appendHex(nil, payload.Payload.Signature))
	return &payment{
		req:     *r,
		header:  header,
		value:   value,
		id:      Payment{Nonce: string(appendHex(nil, auth.Nonce[:]))},
		expires: auth.ValidBefore.Int64(),
		secrets: []string{value, sigHex, sigHex[2:]},
	}, nil
}

// copyRequirements returns a deep copy of r: a caller changing the copy changes nothing in r.
func copyRequirements(r *PaymentRequirements) PaymentRequirements {
	c := *r
	if r.Amount != nil {
		c.Amount = new(big.Int).Set(r.Amount)
	}
	if r.Extra != nil {
		c.Extra, _ = copyJSONValue(r.Extra).(map[string]any)
	}
	c.OutputSchema = append(json.RawMessage(nil), r.OutputSchema...)
	c.Raw = append(json.RawMessage(nil), r.Raw...)
	return c
}

// copyResource returns a deep copy of r, or nil.
func copyResource(r *ResourceInfo) *ResourceInfo {
	if r == nil {
		return nil
	}
	c := *r
	c.Raw = append(json.RawMessage(nil), r.Raw...)
	return &c
}

// copyJSONValue returns a deep copy of a value decoded from JSON into an any.
func copyJSONValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = copyJSONValue(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = copyJSONValue(e)
		}
		return s
	}
	return v
}

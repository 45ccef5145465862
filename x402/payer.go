package x402

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"time"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/wire"
)

// Payer pays for HTTP resources that answer 402, with its schemes, within its Policy and its
// Budget. Wrap a transport with RoundTripper to use it. A Payer is safe for concurrent use;
// its budget is shared by every request it pays for, and may be shared with other payment
// rails (see WithBudget).
type Payer struct {
	schemes     []Scheme
	rules       *rules
	budget      *budget.Budget
	clock       sdk.Clock
	resends     int
	resendDelay time.Duration
}

// PayerOption configures a Payer.
type PayerOption func(*Payer) error

// WithClock sets the clock that dates the payments' validity windows and paces the re-sends
// of a paid request, and, for a budget the payer makes itself, decides when refused payments
// expire and which payments a rolling window counts (default sdk.SystemClock()).
func WithClock(c sdk.Clock) PayerOption {
	return func(p *Payer) error {
		if c == nil {
			return invalid("clock", "must not be nil")
		}
		p.clock = c
		return nil
	}
}

// WithResend sets how often a paid request that failed in transit or got a 5xx answer is sent
// again with the same signed payment (default 2 times, 250ms apart, doubling). The same
// payment cannot settle twice, so this never pays twice; the outcome stays in doubt unless an
// answer settles it (a 2xx or a success receipt). Only methods that are safe to repeat (GET,
// HEAD, OPTIONS, TRACE, PUT, DELETE) are sent again; 0 turns it off.
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
func WithBudget(b *budget.Budget) PayerOption {
	return func(p *Payer) error {
		if b == nil {
			return invalid("budget", "must not be nil")
		}
		p.budget = b
		return nil
	}
}

// WithPreference sets the order in which the payer considers a challenge's offers: those on
// the first network listed first, and so on; each entry a CAIP-2 network (or a v1 name) or a
// whole chain family ("solana:*", "eip155:*"). Offers on networks not listed come last.
// Within one rank, and without this option, the server's order counts.
func WithPreference(networks ...string) PayerOption {
	return func(p *Payer) error {
		prefer := make([]string, 0, len(networks))
		for _, n := range networks {
			if ns, ok := cutWildcard(n); ok {
				prefer = append(prefer, ns+":*")
				continue
			}
			c, err := wire.NormalizeNetwork(n)
			if err != nil {
				return invalid("preference", fmt.Sprintf("%q %v, nor a family such as solana:*", n, err))
			}
			prefer = append(prefer, c)
		}
		p.rules.prefer = prefer
		return nil
	}
}

// cutWildcard returns the namespace of a family written "namespace:*".
func cutWildcard(s string) (string, bool) {
	if len(s) < 3 || s[len(s)-2:] != ":*" {
		return "", false
	}
	ns := s[:len(s)-2]
	return ns, wire.IsCAIP2(ns + ":x")
}

// NewPayer returns a Payer that pays with schemes (at least one, no two for the same scheme
// and chain family), within policy. Without WithBudget it draws on a budget of its own,
// capped at Policy.MaxTotal. An invalid policy is a *sdk.ValidationError naming the field.
//
//	scheme, err := evm.NewExact(signer)
//	...
//	payer, err := x402.NewPayer(x402.Policy{MaxPerPayment: usdc.Cents(25), MaxTotal: usdc.Dollars(10)},
//		[]x402.Scheme{scheme})
func NewPayer(policy Policy, schemes []Scheme, opts ...PayerOption) (*Payer, error) {
	if len(schemes) == 0 {
		return nil, invalid("schemes", "give at least one, such as evm.NewExact(signer)")
	}
	for i, s := range schemes {
		if s == nil {
			return nil, invalid("schemes", "must not hold nil")
		}
		if slices.ContainsFunc(schemes[:i], func(o Scheme) bool { return o.Scheme() == s.Scheme() && o.Namespace() == s.Namespace() }) {
			return nil, invalid("schemes", fmt.Sprintf("two schemes pay %q on %s", s.Scheme(), s.Namespace()))
		}
	}
	r, err := newRules(policy, schemes)
	if err != nil {
		return nil, err
	}
	p := &Payer{schemes: slices.Clone(schemes), rules: r, clock: sdk.SystemClock(), resends: 2, resendDelay: 250 * time.Millisecond}
	if err := httpcore.Configure("x402", p, opts); err != nil {
		return nil, err
	}
	switch {
	case p.budget != nil && policy.MaxTotal != nil:
		return nil, invalid("Policy.MaxTotal", "must be nil with WithBudget: the shared budget holds the limit")
	case p.budget == nil:
		limit, err := totalLimit(policy)
		if err != nil {
			return nil, err
		}
		if p.budget, err = budget.New(limit, budget.WithClock(p.clock)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Budget returns the budget the payer draws on.
func (p *Payer) Budget() *budget.Budget { return p.budget }

// Spent returns the total of the payments that went through, in atomic units: the payer's
// budget's Spent (other payers or rails sharing it included).
func (p *Payer) Spent(ctx context.Context) (*big.Int, error) { return p.budget.Spent(ctx) }

// Reserved returns what the budget still holds for payments not known to have settled: in
// flight, refused but not yet expired, or of unknown outcome (see package budget).
func (p *Payer) Reserved(ctx context.Context) (*big.Int, error) { return p.budget.Reserved(ctx) }

// Outstanding lists the payments the budget still holds.
func (p *Payer) Outstanding(ctx context.Context) ([]ledger.Outstanding, error) {
	return p.budget.Outstanding(ctx)
}

// Evaluate says what the payer would do with challenge pr, without reserving or signing
// anything: the accepts entry it would pay (a copy), or why it would refuse (a *PolicyError
// or a *NoUsableRequirementsError). The budget is not checked: whether it has room depends
// on the payments in flight when the request is made.
func (p *Payer) Evaluate(pr *wire.PaymentRequired) (*wire.PaymentRequirements, error) {
	e, _, err := p.rules.choose(pr)
	if err != nil {
		return nil, err
	}
	c := e.Clone()
	return &c, nil
}

// prepare chooses an entry of pr, applies the policy to a copy of it, reserves the amount,
// asks the approval hook (with a copy of its own), has the scheme sign the checked copy and
// records the signature in the budget. On any error nothing is sent, and nothing stays
// reserved unless the store could not record the release.
func (p *Payer) prepare(ctx context.Context, pr *wire.PaymentRequired, t target, requote bool) (*Attempt, error) {
	chosen, scheme, err := p.rules.choose(pr)
	if err != nil {
		return nil, err
	}
	r := chosen.Clone()
	network, _ := wire.NormalizeNetwork(r.Network) // checked by choose
	hold, err := p.budget.Reserve(ctx, ledger.Reservation{Amount: r.Amount, PayTo: r.PayTo, Rail: "x402 " + network,
		Resource: t.resource, Payer: scheme.Payer(), Asset: r.Asset})
	if err != nil {
		return nil, refusalOf(err, &r)
	}
	pay, err := p.authorize(ctx, pr, scheme, &r, network, t, requote)
	if err == nil {
		err = hold.Sign(ctx, ledger.Signature{ID: pay.id.ID, Expires: pay.expires, Ref: pay.ref})
	}
	if err != nil {
		_ = hold.Release(context.WithoutCancel(ctx)) // nothing was sent
		return nil, err
	}
	pay.hold = hold
	pay.id.Payer, pay.id.Network, pay.id.PayTo, pay.id.Asset, pay.id.Resource = scheme.Payer(), network, r.PayTo, r.Asset, t.resource
	pay.id.Amount = new(big.Int).Set(r.Amount)
	return pay, nil
}

// refusalOf returns the error of a reservation of entry r that failed: a refusal of the
// budget's limits as a *PolicyError, anything else as it is.
func refusalOf(err error, r *wire.PaymentRequirements) error {
	limit, ok := err.(*budget.LimitError)
	if !ok {
		return err
	}
	pe := &PolicyError{Rule: limit.Rule, Requirements: r.Clone(), Limit: limit.Left, Max: limit.Max,
		Window: limit.Window, RetryAt: limit.RetryAt, Cause: limit}
	if limit.Rule == ErrAmountOverCap {
		pe.Limit = limit.Max // the cap itself, as the Payer's own cap reports it
	}
	return pe
}

// targetOf returns what a request pays for: its method and URL, and, for the budget, its URL
// without the query.
func targetOf(req *http.Request) target {
	if req.URL == nil {
		return target{method: req.Method}
	}
	u := *req.URL
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return target{method: req.Method, url: req.URL, resource: u.String()}
}

// authorize runs the approval hook on a copy of the quote and has the scheme sign r.
func (p *Payer) authorize(ctx context.Context, pr *wire.PaymentRequired, scheme Scheme,
	r *wire.PaymentRequirements, network string, t target, requote bool) (*Attempt, error) {
	if p.rules.approve != nil {
		q := Quote{Requirements: r.Clone(), Network: network, Resource: pr.Resource.Clone(), Method: t.method, Requote: requote}
		if pr.X402Version == 1 {
			q.Resource = &wire.ResourceInfo{URL: r.Resource, Description: r.Description, MimeType: r.MimeType}
		}
		if t.url != nil {
			u := *t.url
			q.URL = &u
		}
		if err := p.rules.approve(ctx, q); err != nil {
			return nil, &PolicyError{Rule: ErrNotApproved, Requirements: r.Clone(), Cause: err}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	signed, err := scheme.Pay(ctx, Offer{Requirements: r.Clone(), Network: network, X402Version: pr.X402Version,
		Validity: p.rules.validity(r), Now: p.clock.Now()})
	if err != nil {
		return nil, err
	}
	if signed.ID == "" || signed.Expires.IsZero() {
		return nil, fmt.Errorf("x402: the %s scheme on %s returned a payment without an id or an expiry", scheme.Scheme(), network)
	}
	payload := &wire.PaymentPayload{X402Version: pr.X402Version, Payload: signed.Payload}
	header := wire.HeaderPaymentSignature
	if pr.X402Version == 1 {
		payload.Scheme, payload.Network = r.Scheme, r.Network
		header = wire.HeaderPaymentV1
	} else {
		payload.Resource, payload.Accepted, payload.Extensions = pr.Resource, *r, pr.Extensions
	}
	b, err := payload.MarshalJSON()
	if err != nil {
		return nil, err
	}
	value := base64.StdEncoding.EncodeToString(b) // wire.EncodePaymentPayload, without encoding twice
	return &Attempt{
		p:       p,
		req:     *r,
		target:  t,
		requote: requote,
		payload: b,
		header:  header,
		value:   value,
		id:      Payment{ID: signed.ID, idSecret: slices.Contains(signed.Secrets, signed.ID)},
		expires: signed.Expires,
		ref:     signed.Ref,
		secrets: append([]string{value, string(b)}, signed.Secrets...),
	}, nil
}

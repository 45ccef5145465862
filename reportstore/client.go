package reportstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/wire"
)

// serviceName names the service in errors, logs and the User-Agent.
const serviceName = "reportstore"

// EnvURL names the environment variable that supplies the base URL when WithBaseURL is not
// given.
const EnvURL = "REPORTSTORE_URL"

// service is the store as the core sees it; New fills in the payment transport.
var service = httpcore.Service{Name: serviceName, BaseURLEnv: EnvURL, Sentinels: sentinels}

// Client calls the macroeconomic report store. It is safe for concurrent use.
type Client struct {
	// core sends every request: free ones unpaid with the options' retry policy, purchases
	// marked paid, once, through the payee check and the payer (see transport).
	core *httpcore.Client
	// payee is the address of WithExpectedPayee, "" for none.
	payee string
	// payer is the payer of WithPayer, nil for none; Quote asks it whether it would pay.
	payer *x402.Payer
	// attempt bounds a purchase (see bound).
	attempt time.Duration
}

// New returns a client configured by opts. The base URL comes from WithBaseURL or else from
// the REPORTSTORE_URL environment variable; without either, New fails with an
// *sdk.ValidationError.
func New(opts ...Option) (*Client, error) {
	cfg := &config{}
	if err := httpcore.Configure(serviceName, cfg, opts); err != nil {
		return nil, err
	}
	if _, err := cfg.LoadEnv(serviceName, EnvURL); err != nil {
		return nil, err
	}
	c := &Client{payee: cfg.payee, payer: cfg.payer, attempt: cfg.Timeouts().Attempt}
	svc := service
	svc.Transport = c.transport
	core, err := httpcore.NewClient(&cfg.Settings, svc)
	if err != nil {
		return nil, err
	}
	c.core = core
	return c, nil
}

// purchase is the state of one purchase, carried by the context of its request: it marks
// the request as paid, the payee check records there a refusal that the payer's error would
// otherwise hide, and the router the payer's error, which the core reports only as the
// context's end when the context ended during the paid request.
type purchase struct {
	mismatch *PayeeMismatchError
	err      error
}

// purchaseKey is the context key of a purchase's *purchase.
type purchaseKey struct{}

// transport is the client's transport middleware. Requests marked as purchases go through
// the payee check (with WithExpectedPayee) and the payer (with WithPayer); every other
// request goes to next unchanged, so a free request is never paid.
func (c *Client) transport(next http.RoundTripper) http.RoundTripper {
	paid := next
	if c.payee != "" {
		paid = &payeeGuard{next: next, payee: c.payee}
	}
	if c.payer != nil {
		paid = c.payer.RoundTripper(paid)
	}
	return purchaseRouter{free: next, paid: paid}
}

// purchaseRouter sends the requests of purchases to paid and every other request to free.
type purchaseRouter struct{ free, paid http.RoundTripper }

// RoundTrip sends req through paid when its context marks a purchase, and records the
// error of a purchase.
func (r purchaseRouter) RoundTrip(req *http.Request) (*http.Response, error) {
	if p, isPurchase := req.Context().Value(purchaseKey{}).(*purchase); isPurchase {
		resp, err := r.paid.RoundTrip(req)
		p.err = err
		return resp, err
	}
	return r.free.RoundTrip(req)
}

// bound returns ctx ended after the client's Attempt bound, with a cause matching
// context.DeadlineExceeded, and the functions that stop the bound and release the context. A
// purchase is one attempt, never retried, and the core bounds the answer of a streamed request
// only between reads: without this bound a store trickling an error answer or a report one
// byte at a time would hold the call for ever.
func (c *Client) bound(ctx context.Context) (context.Context, func() bool, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(c.attempt, func() { cancel(&boundError{c.attempt}) })
	return ctx, timer.Stop, func() { timer.Stop(); cancel(nil) }
}

// boundError is the cause of a purchase that did not end within the Attempt bound.
type boundError struct{ d time.Duration }

// Error says which bound fired.
func (e *boundError) Error() string { return fmt.Sprintf("the purchase did not end within %s", e.d) }

// Is matches context.DeadlineExceeded.
func (e *boundError) Is(target error) bool { return target == context.DeadlineExceeded }

// bounded returns err naming the bound of ctx when that bound ended the call and err, which
// then says only that the context was canceled, does not name it.
func bounded(ctx context.Context, err error) error {
	var be *boundError
	if err != nil && errors.As(context.Cause(ctx), &be) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", err, be)
	}
	return err
}

// checkID refuses a report id that is empty or would change the request path or query.
func checkID(id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return invalid("id", "must not be empty")
	case strings.ContainsAny(id, "/?#"):
		return invalid("id", `must not contain "/", "?" or "#"`)
	case id == "." || id == "..":
		return invalid("id", `must not be "." or ".."`)
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return invalid("id", "must not contain control characters")
	}
	return nil
}

// getFree sends the free GET of path and reads its body with parse, once: a body that parse
// refuses is an *sdk.DecodeError.
func getFree[T any](ctx context.Context, c *Client, path string, parse func([]byte) (T, error)) (T, sdk.Response, error) {
	var v T
	req := &httpcore.Request{Method: http.MethodGet, Path: path}
	resp, err := c.core.Do(ctx, req, nil)
	if err != nil {
		return v, sdk.Response{}, err
	}
	err = c.core.Decode(req, resp, func(body []byte) (err error) {
		v, err = parse(body)
		return err
	})
	if err != nil {
		return v, sdk.Response{}, err // v is zero: parse gives nothing with its error
	}
	return v, resp.Meta(), nil
}

// payeeGuard is the http.RoundTripper between the payer and the network that enforces
// WithExpectedPayee: it reads every 402 challenge before the payer sees it, and when the
// challenge names another payTo it keeps the payer from signing.
type payeeGuard struct {
	next  http.RoundTripper
	payee string
}

// RoundTrip sends req and checks the payee of a 402 answer. On the unpaid request a foreign
// payee is an error, so the payer never signs. On a paid request (the server answering a
// payment with a new challenge) the challenge is removed from the answer, so the payer cannot
// pay it as a re-quote; the payer then reports the rejection and the client the mismatch.
func (g *payeeGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		return resp, err
	}
	pr, perr := wire.ReadPaymentRequired(resp)
	if perr != nil {
		return resp, nil // unreadable: the payer refuses it too
	}
	foreign := foreignPayees(pr, g.payee)
	if len(foreign) == 0 {
		return resp, nil
	}
	mismatch := &PayeeMismatchError{Expected: g.payee, Got: foreign}
	if p, ok := req.Context().Value(purchaseKey{}).(*purchase); ok {
		p.mismatch = mismatch
	}
	httpcore.Drain(resp)
	if req.Header.Get(wire.HeaderPaymentSignature) == "" && req.Header.Get(wire.HeaderPaymentV1) == "" {
		return nil, mismatch
	}
	stripped := *resp
	stripped.Header = resp.Header.Clone()
	stripped.Header.Del(wire.HeaderPaymentRequired)
	stripped.Body = http.NoBody
	stripped.ContentLength = 0
	return &stripped, nil
}

// foreignPayees returns the payTo addresses of pr that differ from payee (ignoring letter
// case), each once, in order. Every entry counts, usable or not: the store has one payee.
func foreignPayees(pr *wire.PaymentRequired, payee string) []string {
	var out []string
	seen := map[string]bool{}
	for i := range pr.Accepts {
		to := pr.Accepts[i].PayTo
		if strings.EqualFold(to, payee) || seen[strings.ToLower(to)] {
			continue
		}
		seen[strings.ToLower(to)] = true
		out = append(out, cmp.Or(to, "(none)"))
	}
	return out
}

package reportstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402"
)

// serviceName names the service in errors, logs and the User-Agent.
const serviceName = "reportstore"

// EnvURL names the environment variable that supplies the base URL when WithBaseURL is not
// given.
const EnvURL = "REPORTSTORE_URL"

// Client calls the macroeconomic report store. It is safe for concurrent use.
type Client struct {
	// free sends the free operations and Quote, unpaid, with the retry policy of the options.
	free *httpcore.Client
	// paid sends purchases through the payer (when there is one) and the payee check, once:
	// a purchase is never retried by the client.
	paid *httpcore.Client
	// payee is the address of WithExpectedPayee, "" for none.
	payee string
	// payer is the payer of WithPayer, nil for none; Quote asks it whether it would pay.
	payer *x402.Payer
}

// New returns a client configured by opts. The base URL comes from WithBaseURL or else from
// the REPORTSTORE_URL environment variable; without either, New fails with a
// *ValidationError.
func New(opts ...Option) (*Client, error) {
	cfg := &config{}
	if err := httpcore.Configure(serviceName, cfg, opts); err != nil {
		return nil, fromCore(err)
	}
	if _, err := cfg.LoadEnv(EnvURL); err != nil {
		return nil, fromCore(err)
	}
	svc := httpcore.Service{Name: serviceName, BaseURLEnv: EnvURL}
	base := cfg.HTTPClient()
	if base == nil {
		base = &http.Client{Transport: httpcore.DefaultTransport()}
	}
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}

	freeHC := *base
	freeHC.Transport = next
	cfg.SetHTTPClient(&freeHC)
	free, err := httpcore.NewClient(&cfg.Settings, svc)
	if err != nil {
		return nil, fromCore(err)
	}

	var paidRT http.RoundTripper = next
	if cfg.payee != "" {
		paidRT = &payeeGuard{next: next, payee: cfg.payee}
	}
	if cfg.payer != nil {
		paidRT = cfg.payer.RoundTripper(paidRT)
	}
	paidCfg := *cfg
	paidHC := *base
	paidHC.Transport = paidRT
	paidCfg.SetHTTPClient(&paidHC)
	if err := httpcore.WithRetry[*config](httpcore.RetryPolicy{MaxAttempts: 1})(&paidCfg); err != nil {
		return nil, fromCore(err)
	}
	paid, err := httpcore.NewClient(&paidCfg.Settings, svc)
	if err != nil {
		return nil, fromCore(err)
	}
	return &Client{free: free, paid: paid, payee: cfg.payee, payer: cfg.payer}, nil
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

// getFree sends the free GET of path and reads its JSON body with parse, which is handed a
// copy of the body of its own to keep and checks that it is JSON of the right shape; a body
// that parse refuses is a *DecodeError.
func getFree[T any](ctx context.Context, c *Client, path string, parse func(json.RawMessage) (T, error)) (T, error) {
	var out T
	req := &httpcore.Request{Method: http.MethodGet, Path: path}
	resp, err := c.free.Do(ctx, req, nil)
	if err != nil {
		return out, fromCore(err)
	}
	err = c.free.Decode(req, resp, func(body []byte) (err error) {
		out, err = parse(bytes.Clone(body))
		return err
	})
	return out, fromCore(err)
}

// itoa formats an index for error messages.
func itoa(i int) string { return strconv.Itoa(i) }

// payeeGuard is the http.RoundTripper between the payer and the network that enforces
// WithExpectedPayee: it reads every 402 challenge before the payer sees it, and when the
// challenge names another payTo it keeps the payer from signing.
type payeeGuard struct {
	next  http.RoundTripper
	payee string
}

// payeeRecord collects a refusal of the payeeGuard for one purchase, so the client can report
// it even when the payer's own error hides it.
type payeeRecord struct{ mismatch *PayeeMismatchError }

// payeeRecordKey is the context key of a purchase's *payeeRecord.
type payeeRecordKey struct{}

// RoundTrip sends req and checks the payee of a 402 answer. On the unpaid request a foreign
// payee is an error, so the payer never signs. On a paid request (the server answering a
// payment with a new challenge) the challenge is removed from the answer, so the payer cannot
// pay it as a re-quote; the payer then reports the rejection and the client the mismatch.
func (g *payeeGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		return resp, err
	}
	pr, perr := x402.ParsePaymentRequired(resp)
	if perr != nil {
		return resp, nil // unreadable: the payer refuses it too
	}
	foreign := foreignPayees(pr, g.payee)
	if len(foreign) == 0 {
		return resp, nil
	}
	mismatch := &PayeeMismatchError{Expected: g.payee, Got: foreign}
	if rec, ok := req.Context().Value(payeeRecordKey{}).(*payeeRecord); ok {
		rec.mismatch = mismatch
	}
	httpcore.Drain(resp)
	if req.Header.Get(x402.HeaderPaymentSignature) == "" && req.Header.Get(x402.HeaderPaymentV1) == "" {
		return nil, mismatch
	}
	stripped := *resp
	stripped.Header = resp.Header.Clone()
	stripped.Header.Del(x402.HeaderPaymentRequired)
	stripped.Body = http.NoBody
	stripped.ContentLength = 0
	return &stripped, nil
}

// foreignPayees returns the payTo addresses of pr that differ from payee (ignoring letter
// case), each once, in order. Every entry counts, usable or not: the store has one payee.
func foreignPayees(pr *x402.PaymentRequired, payee string) []string {
	var out []string
	seen := map[string]bool{}
	for i := range pr.Accepts {
		to := pr.Accepts[i].PayTo
		if strings.EqualFold(to, payee) || seen[strings.ToLower(to)] {
			continue
		}
		seen[strings.ToLower(to)] = true
		if to == "" {
			to = "(none)"
		}
		out = append(out, to)
	}
	return out
}

// errorsAs is errors.As with a type parameter.
func errorsAs[T error](err error) (T, bool) {
	var target T
	ok := errors.As(err, &target)
	return target, ok
}

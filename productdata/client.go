package productdata

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// serviceName names the service in errors, logs and the User-Agent.
const serviceName = "productdata"

// Environment variables read by New.
const (
	// EnvURL supplies the base URL when WithBaseURL is not given.
	EnvURL = "PRODUCTDATA_URL"
	// EnvAccountKey supplies the account key when WithAccountKey is not given and the base URL
	// comes from EnvURL.
	EnvAccountKey = "PRODUCTDATA_ACCOUNT_KEY"
)

// AuthScheme is the scheme word of the Authorization header: "BasicAuth <key>", literally
// (not HTTP Basic authentication).
const AuthScheme = "BasicAuth"

// contentType is the content type the service documents for request bodies.
const contentType = "application/json;charset=UTF-8"

// service is the product-data API as the core sees it; New fills the per-client fields on a
// copy.
var service = httpcore.Service{
	Name:       serviceName,
	BaseURLEnv: EnvURL,
	PathPrefix: "/api",
	Defaults: httpcore.Defaults{
		Retry:             sdk.RetryPolicy{MaxAttempts: DefaultMaxAttempts},
		RequestsPerMinute: DefaultRequestsPerMinute,
		Wait: sdk.WaitPolicy{Timeout: DefaultWaitTimeout, MinDelay: DefaultWaitMinDelay,
			MaxDelay: DefaultWaitMaxDelay, MaxAttempts: DefaultWaitAttempts},
	},
	ErrorBody:  decodeErrorBody,
	Sentinels:  sentinels,
	ClassifyAt: classify,
}

// Client calls the product-data API. It is safe for concurrent use.
type Client struct {
	// core sends every request, paced and retried as the options say.
	core *httpcore.Client
	// clock times the waits for asynchronous tasks.
	clock sdk.Clock
	// wait bounds those waits: WithWait over the service's defaults.
	wait sdk.WaitPolicy
	// units count the requests sent and the request units the answers reported.
	units *unitCounter
}

// New returns a client configured by opts.
//
// The account key is required: without it New returns an *sdk.MissingCredentialError, which
// says when PRODUCTDATA_ACCOUNT_KEY was set but not used (the address was given with
// WithBaseURL) and how to send it: WithAccountKey(os.Getenv("PRODUCTDATA_ACCOUNT_KEY")).
func New(opts ...Option) (*Client, error) {
	cfg := &config{}
	if err := httpcore.Configure(serviceName, cfg, opts); err != nil {
		return nil, err
	}
	env, err := cfg.LoadEnv(serviceName, EnvURL, EnvAccountKey)
	if err != nil {
		return nil, err
	}
	if v, ok := env[EnvAccountKey]; ok && cfg.key == "" {
		if err := keyRule.Check(EnvAccountKey, v); err != nil {
			return nil, err
		}
		cfg.key = v
	}
	c := &Client{clock: cfg.Clock(), wait: cfg.Wait(service.Defaults.Wait), units: &unitCounter{}}
	svc := service
	svc.Transport, svc.Decode = c.units.transport, c.decode
	if cfg.key != "" {
		svc.Credentials = []httpcore.Credential{keyCredential(cfg.key)}
	}
	if c.core, err = httpcore.NewClient(&cfg.Settings, svc); err != nil {
		return nil, err
	}
	if cfg.key == "" {
		return nil, cfg.MissingCredential(serviceName, "New", keyField, "WithAccountKey", EnvAccountKey)
	}
	return c, nil
}

// SetAccountKey replaces the account key sent from now on, such as a key with a fresh
// request pack; requests already under way keep the key they started with. Both keys stay
// scrubbed from errors and logs.
func (c *Client) SetAccountKey(key string) error {
	if err := keyRule.Check(keyField, key); err != nil {
		return err
	}
	return c.core.SetCredentials(keyCredential(key))
}

// keyCredential is the key as the header the service reads.
func keyCredential(key string) httpcore.Credential {
	return httpcore.Credential{Header: "Authorization", Prefix: AuthScheme + " ", Value: key}
}

// Call sends params to endpoint for the site domain and decodes the answer's Data into out,
// which may be nil (Data is then not decoded) or a *json.RawMessage (Data as sent, after any
// gzip and base64 were undone). params is encoded as a JSON object (a struct, a map or
// RawParams; nil sends none), to which the client adds "domain"; the domain also goes in the
// query, where the service reads it. Account endpoints take NoDomain.
//
// The request is POST {base}/api/{endpoint}?domain={domain}. A non-zero Code in the answer is
// an *sdk.APIError matching the package's sentinels (see ErrNoMoreData and the others); an
// answer that does not decode is an *sdk.DecodeError. Endpoints that only read are retried
// within the retry policy; those that start a task or change something are sent once (see
// Endpoint.SafeToRepeat).
func (c *Client) Call(ctx context.Context, endpoint Endpoint, domain Domain, params, out any) (*CallResult, error) {
	if err := endpoint.check(domain); err != nil {
		return nil, err
	}
	env := &envelope{data: out}
	resp, err := c.call(ctx, endpoint, domain, params, env)
	if err != nil {
		return nil, err
	}
	return &CallResult{Message: env.message, Units: env.units, Response: resp.Meta()}, nil
}

// CallResult describes the answer of a Call: its message, its request units and its HTTP
// response.
type CallResult struct {
	// Message is the envelope's Message, usually empty on success.
	Message string
	// Units are the answer's RequestLeft and RequestConsumed.
	Units Units
	// Response describes the HTTP response.
	Response sdk.Response
}

// call encodes params and sends the request for an endpoint and domain already checked.
func (c *Client) call(ctx context.Context, endpoint Endpoint, domain Domain, params any, env *envelope) (*httpcore.Response, error) {
	body, err := requestBody(domain, params)
	if err != nil {
		return nil, err
	}
	req := &httpcore.Request{
		Method: http.MethodPost,
		Path:   httpcore.Path(string(endpoint)),
		Body:   httpcore.Bytes(body, contentType),
	}
	if endpoint.SafeToRepeat() {
		req.Retry = httpcore.RetrySafe
	}
	if domain != NoDomain {
		req.Query = url.Values{"domain": {strconv.Itoa(int(domain))}}
	}
	// The unit counter's transport finds env through the context, to number its attempts.
	return c.core.Do(context.WithValue(ctx, envelopeKey{}, env), req, env)
}

// requestBody encodes params as a JSON object with "domain" added (unless NoDomain). params
// must encode as an object or null; a "domain" member of its own, in any letter case, is
// refused rather than sent twice.
func requestBody(domain Domain, params any) ([]byte, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, invalid("params", "cannot be encoded as JSON: "+err.Error())
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, invalid("params", "must encode as a JSON object (a struct or a map)")
	}
	for k := range members {
		if strings.EqualFold(k, "domain") {
			return nil, invalid("params", `must not hold "domain": pass the site as the domain argument`)
		}
	}
	if members == nil {
		members = map[string]json.RawMessage{}
	}
	if domain != NoDomain {
		members["domain"] = json.RawMessage(strconv.Itoa(int(domain)))
	}
	return json.Marshal(members)
}

// RequestUnits is what a client has counted itself since it was made: the requests it sent
// and the request units the answers reported. Reading them sends no request.
type RequestUnits struct {
	// Sent is the number of requests the client sent: every attempt, retries and status
	// queries included, whether or not an answer came back.
	Sent int64
	// Consumed is the sum of the RequestConsumed values the answers reported.
	Consumed int64
	// Left is the RequestLeft of the answer to the most recently sent request among those
	// whose answers carried one (a late answer to an older request does not replace it); nil
	// before any did.
	Left *int
}

// RequestUnits returns the requests sent and the request units reported so far.
func (c *Client) RequestUnits() RequestUnits { return c.units.snapshot() }

// unitCounter accumulates RequestUnits; it is safe for concurrent use.
type unitCounter struct {
	sent     atomic.Int64
	consumed atomic.Int64
	mu       sync.Mutex
	left     *int
	// leftSent is the number of the attempt whose answer gave left (see envelope.sent).
	leftSent int64
}

// record adds the units of the answer to attempt number sent.
func (u *unitCounter) record(units Units, sent int64) {
	if units.Consumed != nil {
		u.consumed.Add(int64(*units.Consumed))
	}
	if units.Left != nil {
		left := *units.Left
		u.mu.Lock()
		if u.left == nil || sent > u.leftSent {
			u.left, u.leftSent = &left, sent
		}
		u.mu.Unlock()
	}
}

// snapshot returns the current RequestUnits.
func (u *unitCounter) snapshot() RequestUnits {
	out := RequestUnits{Sent: u.sent.Load(), Consumed: u.consumed.Load()}
	u.mu.Lock()
	if u.left != nil {
		left := *u.left
		out.Left = &left
	}
	u.mu.Unlock()
	return out
}

// transport is the client's Service.Transport: it counts every attempt the client sends, and
// gives the attempt's number (its count) to the envelope of its call.
func (u *unitCounter) transport(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		n := u.sent.Add(1)
		if env, ok := req.Context().Value(envelopeKey{}).(*envelope); ok {
			env.sent.Store(n)
		}
		return next.RoundTrip(req)
	})
}

// roundTripFunc is a function as an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

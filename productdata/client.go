package productdata

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/poll"
)

// serviceName names the service in errors, logs and the User-Agent.
const serviceName = "productdata"

// Environment variables read by New.
const (
	// EnvURL supplies the base URL when WithBaseURL is not given.
	EnvURL = "PRODUCTDATA_URL"
	// EnvKey supplies the account key when WithKey is not given and the base URL comes from
	// EnvURL.
	EnvKey = "PRODUCTDATA_KEY"
)

// AuthScheme is the scheme word of the Authorization header: "BasicAuth <key>", literally
// (not HTTP Basic authentication).
const AuthScheme = "BasicAuth"

// contentType is the content type the service documents for request bodies.
const contentType = "application/json;charset=UTF-8"

// Client calls the product-data API. It is safe for concurrent use.
type Client struct {
	// core sends every request, paced and retried as the options say.
	core *httpcore.Client
	// clock times the polling of asynchronous tasks.
	clock poll.Clock
	// usage counts the requests sent and the request units the answers reported.
	usage *usageCounter
}

// New returns a client configured by opts.
//
// The base URL comes from WithBaseURL or else from PRODUCTDATA_URL; the key from WithKey or,
// when the base URL comes from PRODUCTDATA_URL, from PRODUCTDATA_KEY. A key is required: every
// call of the service needs one. The client paces itself at DefaultRequestsPerMinute and sends
// a request at most DefaultMaxAttempts times unless options say otherwise.
func New(opts ...Option) (*Client, error) {
	cfg := &config{}
	all := append([]Option{WithRetry(RetryPolicy{})}, opts...)
	if err := httpcore.Configure(serviceName, cfg, all); err != nil {
		return nil, fromCore(err)
	}
	env, err := cfg.LoadEnv(EnvURL, EnvKey)
	if err != nil {
		return nil, withService(fromCore(err))
	}
	if v, ok := env[EnvKey]; ok && !cfg.keySet {
		if err := checkKey(EnvKey, v); err != nil {
			return nil, withService(fromCore(err))
		}
		cfg.key = v
	}
	c := &Client{clock: cfg.clock, usage: &usageCounter{}}
	if c.clock == nil {
		c.clock = poll.Real
	}
	cfg.SetHTTPClient(countingClient(cfg.HTTPClient(), c.usage))
	svc := httpcore.Service{
		Name:              serviceName,
		BaseURLEnv:        EnvURL,
		PathPrefix:        "/api",
		DecodeError:       decodeErrorBody,
		Decode:            c.decode,
		RequestsPerMinute: DefaultRequestsPerMinute,
		Clock:             cfg.clock,
	}
	if cfg.key != "" {
		svc.Credentials = []httpcore.Credential{keyCredential(cfg.key)}
	}
	if c.core, err = httpcore.NewClient(&cfg.Settings, svc); err != nil {
		return nil, fromCore(err)
	}
	if cfg.key == "" {
		return nil, invalid("key", "not set: use WithKey, or "+EnvKey+" together with "+EnvURL)
	}
	return c, nil
}

// SetKey replaces the account key sent from now on, such as a key with a fresh request pack;
// requests already under way keep the key they started with. Both keys stay scrubbed from
// errors and logs.
func (c *Client) SetKey(key string) error {
	if err := checkKey("key", key); err != nil {
		return withService(fromCore(err))
	}
	return fromCore(c.core.SetCredentials(keyCredential(key)))
}

// keyCredential is the key as the header the service reads.
func keyCredential(key string) httpcore.Credential {
	return httpcore.Credential{Header: "Authorization", Prefix: AuthScheme + " ", Value: key}
}

// Call sends params to endpoint for the site domain and decodes the answer's Data into out,
// which may be nil (Data is then not decoded) or a *json.RawMessage (Data as sent, after any
// gzip and base64 were undone). params is encoded as a JSON object (a struct or a map; nil
// sends none), to which the client adds "domain"; the domain also goes in the query, where the
// service reads it. Account endpoints take NoDomain.
//
// The request is POST {base}/api/{endpoint}?domain={domain}. A non-zero Code in the answer is
// an *APIError matching the package's sentinels (see ErrNoMoreData and the others); an answer
// that does not decode is a *DecodeError. Endpoints that only read are retried within the
// retry policy; those that start a task or change something are sent once (see
// Endpoint.SafeToRepeat).
func (c *Client) Call(ctx context.Context, endpoint Endpoint, domain Domain, params, out any) (*Meta, error) {
	if err := endpoint.check(domain); err != nil {
		return nil, err
	}
	env := &envelope{data: out}
	resp, err := c.call(ctx, endpoint, domain, params, env)
	if err != nil {
		return nil, err
	}
	m := env.meta(resp)
	return &m, nil
}

// call encodes params and sends the request for an endpoint and domain already checked.
func (c *Client) call(ctx context.Context, endpoint Endpoint, domain Domain, params any, env *envelope) (*httpcore.Response, error) {
	body, err := requestBody(domain, params)
	if err != nil {
		return nil, err
	}
	req := &httpcore.Request{
		Method:      http.MethodPost,
		Path:        httpcore.Path(string(endpoint)),
		Body:        httpcore.Bytes(body, contentType),
		SafeToRetry: endpoint.SafeToRepeat(),
	}
	if domain != NoDomain {
		req.Query = url.Values{"domain": {strconv.Itoa(int(domain))}}
	}
	resp, err := c.core.Do(ctx, req, env)
	if err != nil {
		return nil, classify(err)
	}
	return resp, nil
}

// requestBody encodes params as a JSON object and adds "domain" (unless NoDomain). params
// must encode as an object or null; a "domain" key of its own, in any letter case, is refused
// rather than sent twice.
func requestBody(domain Domain, params any) ([]byte, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, invalid("params", "cannot be encoded as JSON: "+err.Error())
	}
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		b = []byte("{}")
	case len(b) == 0 || b[0] != '{':
		return nil, invalid("params", "must encode as a JSON object (a struct or a map)")
	}
	if bytes.Contains(bytes.ToLower(b), []byte(`"domain"`)) {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(b, &keys); err != nil {
			return nil, invalid("params", "cannot be encoded as a JSON object")
		}
		for k := range keys {
			if equalFoldASCII(k, "domain") {
				return nil, invalid("params", `must not hold "domain": pass the site as the domain argument`)
			}
		}
	}
	if domain == NoDomain {
		return b, nil
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, `{"domain":`...)
	out = strconv.AppendInt(out, int64(domain), 10)
	if rest := bytes.TrimSpace(b[1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// equalFoldASCII reports whether a and b are equal ignoring ASCII letter case, the way the
// service matches parameter names.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Usage is what a client has sent and been told since it was made.
type Usage struct {
	// Calls is the number of requests the client sent: every attempt, retries and status polls
	// included, whether or not an answer came back.
	Calls int64
	// Consumed is the sum of the RequestConsumed values the answers reported.
	Consumed int64
	// Left is the RequestLeft of the most recent answer that carried one; nil before any did.
	Left *int
}

// Usage returns the requests sent and the request units reported so far.
func (c *Client) Usage() Usage { return c.usage.snapshot() }

// usageCounter accumulates Usage; it is safe for concurrent use.
type usageCounter struct {
	calls    atomic.Int64
	consumed atomic.Int64
	mu       sync.Mutex
	left     *int
}

// record adds the units of one answer.
func (u *usageCounter) record(units Units) {
	if units.Consumed != nil {
		u.consumed.Add(int64(*units.Consumed))
	}
	if units.Left != nil {
		left := *units.Left
		u.mu.Lock()
		u.left = &left
		u.mu.Unlock()
	}
}

// snapshot returns the current Usage.
func (u *usageCounter) snapshot() Usage {
	out := Usage{Calls: u.calls.Load(), Consumed: u.consumed.Load()}
	u.mu.Lock()
	if u.left != nil {
		left := *u.left
		out.Left = &left
	}
	u.mu.Unlock()
	return out
}

// countingClient returns a copy of hc (a client on httpcore.DefaultTransport when nil) whose
// transport counts every request it is given.
func countingClient(hc *http.Client, u *usageCounter) *http.Client {
	var own http.Client
	if hc != nil {
		own = *hc
	}
	next := own.Transport
	if next == nil {
		if hc == nil {
			next = httpcore.DefaultTransport()
		} else {
			next = http.DefaultTransport
		}
	}
	own.Transport = &countingTransport{next: next, usage: u}
	return &own
}

// countingTransport counts the requests that pass through it.
type countingTransport struct {
	next  http.RoundTripper
	usage *usageCounter
}

// RoundTrip counts req and sends it.
func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.usage.calls.Add(1)
	return t.next.RoundTrip(req)
}

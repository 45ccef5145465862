package gpuprice

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/svm"
)

// serviceName names the service in errors, logs and the User-Agent.
const serviceName = "gpuprice"

// KeyHeader is the header that carries the API key.
const KeyHeader = "X-API-Key"

// Environment variables read by New.
const (
	// EnvURL supplies the base URL when WithBaseURL is not given.
	EnvURL = "GPUPRICE_URL"
	// EnvAPIKey supplies the API key when WithAPIKey is not given and the base URL comes from
	// EnvURL.
	EnvAPIKey = "GPUPRICE_API_KEY"
	// EnvRPCURL supplies the Solana JSON-RPC endpoint when neither WithRPCURL nor
	// WithRPCClient is given.
	EnvRPCURL = "SOLANA_RPC_URL"
)

// Client calls the GPU price API and buys its keys on Solana. It is safe for concurrent use.
type Client struct {
	// core sends every request of the price API.
	core *httpcore.Client
	// settings are the client's shared settings, for the error of a missing key.
	settings *httpcore.Settings
	// hasKey reports whether the client has an API key to send.
	hasKey atomic.Bool
	// node is the Solana node, its calls bounded by the attempt timeout, nil when none was
	// configured.
	node *svm.Node
	// redeemPath is the path of the redemption (WithRedeemPath, or DefaultRedeemPath).
	redeemPath string
	// wait bounds BuyKey's waits for confirmation and redemption (WithWait over
	// service.Defaults.Wait).
	wait sdk.WaitPolicy
	// clock times BuyKey's waits and dates its payments (WithClock, or the wall clock).
	clock sdk.Clock
	// keyOnFree sends the key to the free endpoints too (WithKeyOnFreeEndpoints).
	keyOnFree bool
}

// service describes the price API to the HTTP core. Its defaults: retries stop on a
// Retry-After longer than sdk.RetryPolicy.MaxRetryAfter (a used-up daily quota is returned at
// once), and BuyKey waits up to 90 seconds for its payment's confirmation, a little longer
// than a blockhash stays usable (150 blocks, about a minute), then redeems it up to 5 times,
// waiting about a second, then twice as long each time up to 4 seconds.
var service = httpcore.Service{Name: serviceName, BaseURLEnv: EnvURL, Sentinels: sentinels, ClassifyAt: classify,
	Defaults: httpcore.Defaults{
		Retry: sdk.RetryPolicy{StopOnLongRetryAfter: true},
		Wait:  sdk.WaitPolicy{Timeout: 90 * time.Second, MinDelay: time.Second, MaxDelay: 4 * time.Second, MaxAttempts: 5},
	}}

// New returns a client configured by opts.
//
// The base URL comes from WithBaseURL or else from GPUPRICE_URL; in the second case only,
// GPUPRICE_API_KEY supplies the key that WithAPIKey did not. The Solana node comes from
// WithRPCClient, WithRPCURL or SOLANA_RPC_URL; it is needed by BuyKey only. A refused option
// or environment value is an *sdk.ValidationError.
func New(opts ...Option) (*Client, error) {
	cfg := &config{}
	if err := httpcore.Configure(serviceName, cfg, opts); err != nil {
		return nil, err
	}
	env, err := cfg.LoadEnv(serviceName, EnvURL, EnvAPIKey)
	if err != nil {
		return nil, err
	}
	if v, ok := env[EnvAPIKey]; ok && !cfg.apiKeySet {
		if err := keyRule.Check(EnvAPIKey, v); err != nil {
			return nil, err
		}
		cfg.apiKey = v
	}
	if v := os.Getenv(EnvRPCURL); v != "" && cfg.rpcClient == nil && cfg.rpcURL == "" {
		if err := WithRPCURL(v)(cfg); err != nil {
			return nil, err
		}
	}
	clock := cfg.Clock()
	svc := service
	svc.Transport = func(next http.RoundTripper) http.RoundTripper { return quotaTransport{next: next, clock: clock} }
	if cfg.apiKey != "" {
		svc.Credentials = []httpcore.Credential{keyCredential(cfg.apiKey)}
	}
	core, err := httpcore.NewClient(&cfg.Settings, svc)
	if err != nil {
		return nil, err
	}
	c := &Client{core: core, settings: &cfg.Settings, redeemPath: cmp.Or(cfg.redeemPath, DefaultRedeemPath),
		wait: cfg.Wait(service.Defaults.Wait), keyOnFree: cfg.keyOnFree, clock: clock}
	c.hasKey.Store(cfg.apiKey != "")
	nodeOpts := []svm.NodeOption{svm.WithCallTimeout(cfg.Timeouts().Attempt), svm.WithErrorPrefix(serviceName)}
	switch {
	case cfg.rpcClient != nil:
		c.node, err = svm.NewNode(cfg.rpcClient, nodeOpts...)
	case cfg.rpcURL != "":
		if cfg.insecureRPC {
			nodeOpts = append(nodeOpts, svm.WithInsecureHTTP())
		}
		c.node, err = svm.DialNode(cfg.rpcURL, nodeOpts...)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// SetAPIKey replaces the API key sent in X-API-Key from now on, such as a key bought with
// BuyKey (which calls it itself); requests already under way keep the key they started with.
// A key that cannot be sent in a header is an *sdk.ValidationError.
func (c *Client) SetAPIKey(key string) error {
	if err := keyRule.Check("API key", key); err != nil {
		return err
	}
	if err := c.core.SetCredentials(keyCredential(key)); err != nil {
		return err
	}
	c.hasKey.Store(true)
	return nil
}

// keyCredential is the API key as the header the service reads.
func keyCredential(key string) httpcore.Credential {
	return httpcore.Credential{Header: KeyHeader, Value: key}
}

// anonymous, an empty non-nil list, sends a request without the client's key.
var anonymous = []httpcore.Credential{}

// get sends a GET of path (below /v1), decodes the answer into a new T and sets the
// sdk.Response that meta finds in it. The client's key goes only to History, unless
// WithKeyOnFreeEndpoints asked for it everywhere.
func get[T any](ctx context.Context, c *Client, path string, query url.Values,
	meta func(*T) *sdk.Response) (*T, error) {
	req := &httpcore.Request{Method: http.MethodGet, Path: "/v1" + path, Query: query}
	if path != historyPath && !c.keyOnFree {
		req.Credentials = anonymous
	}
	out := new(T)
	resp, err := c.core.Do(ctx, req, out)
	if err != nil {
		return nil, err
	}
	*meta(out) = resp.Meta()
	return out, nil
}

// historyPath is the one endpoint that needs the API key.
const historyPath = "/history"

// quotaTransport gives a 429 answer without Retry-After one: the time until the quota
// resets, from X-RateLimit-Reset or else the next UTC midnight. The client's retry policy
// (StopOnLongRetryAfter) then returns the quota error at once instead of retrying a daily
// quota minutes or hours before it resets, and the error's RetryAfter says when to try again.
// It is the client's Service.Transport; clock is the client's.
type quotaTransport struct {
	next  http.RoundTripper
	clock sdk.Clock
}

// RoundTrip sends req and completes a 429's Retry-After.
func (t quotaTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "" {
		return resp, err
	}
	now := t.clock.Now()
	wait := nextMidnightUTC(now).Sub(now)
	if rl := httpcore.ParseRateLimit(resp.Header, now); rl != nil && rl.Reset != nil {
		wait = *rl.Reset
	}
	resp.Header = resp.Header.Clone()
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	secs := int64((wait + time.Second - 1) / time.Second)
	resp.Header.Set("Retry-After", strconv.FormatInt(max(secs, 0), 10))
	return resp, nil
}

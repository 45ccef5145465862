package gpuprice

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk/internal/httpcore"
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
	// hasKey reports whether the client has an API key to send.
	hasKey atomic.Bool
	// node is the Solana JSON-RPC client, nil when none was configured.
	node *rpc.Client
	// nodeURL is the node's URL, scrubbed from its errors; "" for a client given whole.
	nodeURL        string
	redeemPath     string
	confirmTimeout time.Duration
	// keyOnFree sends the key to the free endpoints too (WithKeyOnFreeEndpoints).
	keyOnFree bool
}

// New returns a client configured by opts.
//
// The base URL comes from WithBaseURL or else from GPUPRICE_URL; in the second case only,
// GPUPRICE_API_KEY supplies the key that WithAPIKey did not. The Solana node comes from
// WithRPCClient, WithRPCURL or SOLANA_RPC_URL; it is needed by BuyKey only.
func New(opts ...Option) (*Client, error) {
	cfg := &config{redeemPath: DefaultRedeemPath, confirmTimeout: DefaultConfirmTimeout}
	all := append([]Option{WithRetry(RetryPolicy{})}, opts...)
	if err := httpcore.Configure(serviceName, cfg, all); err != nil {
		return nil, fromCore(err)
	}
	env, err := cfg.LoadEnv(EnvURL, EnvAPIKey)
	if err != nil {
		return nil, withService(fromCore(err))
	}
	if v, ok := env[EnvAPIKey]; ok && !cfg.apiKeySet {
		if err := checkAPIKey(EnvAPIKey, v); err != nil {
			return nil, withService(fromCore(err))
		}
		cfg.apiKey = v
	}
	if cfg.rpcClient == nil && cfg.rpcURL == "" {
		if v := os.Getenv(EnvRPCURL); v != "" {
			if err := WithRPCURL(v)(cfg); err != nil {
				return nil, withService(fromCore(err))
			}
		}
	}
	cfg.SetHTTPClient(withQuotaRetryAfter(cfg.HTTPClient()))
	svc := httpcore.Service{Name: serviceName, BaseURLEnv: EnvURL}
	if cfg.apiKey != "" {
		svc.Credentials = []httpcore.Credential{keyCredential(cfg.apiKey)}
	}
	core, err := httpcore.NewClient(&cfg.Settings, svc)
	if err != nil {
		return nil, fromCore(err)
	}
	c := &Client{core: core, redeemPath: cfg.redeemPath, confirmTimeout: cfg.confirmTimeout, keyOnFree: cfg.keyOnFree}
	c.hasKey.Store(cfg.apiKey != "")
	switch {
	case cfg.rpcClient != nil:
		c.node = cfg.rpcClient
	case cfg.rpcURL != "":
		c.node, c.nodeURL = rpc.New(cfg.rpcURL), cfg.rpcURL
	}
	return c, nil
}

// SetAPIKey replaces the API key sent in X-API-Key from now on, such as a key bought with
// BuyKey (which calls it itself); requests already under way keep the key they started with.
func (c *Client) SetAPIKey(key string) error {
	if err := checkAPIKey("API key", key); err != nil {
		return withService(fromCore(err))
	}
	if err := c.core.SetCredentials(keyCredential(key)); err != nil {
		return fromCore(err)
	}
	c.hasKey.Store(true)
	return nil
}

// keyCredential is the API key as the header the service reads.
func keyCredential(key string) httpcore.Credential {
	return httpcore.Credential{Header: KeyHeader, Value: key}
}

// anonymous are the credentials of a request that must not carry the key: an empty,
// non-nil list.
var anonymous = []httpcore.Credential{}

// get sends a GET of path (below /v1) and decodes the answer into out. The client's key goes
// only to History, unless WithKeyOnFreeEndpoints asked for it everywhere.
func (c *Client) get(ctx context.Context, path string, query url.Values, out any) (*httpcore.Response, error) {
	req := &httpcore.Request{Method: http.MethodGet, Path: "/v1" + path, Query: query}
	if path != historyPath && !c.keyOnFree {
		req.Credentials = anonymous
	}
	return c.do(ctx, req, out)
}

// historyPath is the one endpoint that needs the API key.
const historyPath = "/history"

// do sends req and decodes a 2xx body into out; failures become the package's typed errors.
func (c *Client) do(ctx context.Context, req *httpcore.Request, out any) (*httpcore.Response, error) {
	resp, err := c.core.Do(ctx, req, out)
	if err != nil {
		return nil, classify(err)
	}
	return resp, nil
}

// quotaTransport gives a 429 answer without Retry-After one: the time until the quota
// resets, from X-RateLimit-Reset or else the next UTC midnight. The client's retry policy
// (StopOnLongRetryAfter) then returns the quota error at once instead of retrying a daily
// quota minutes or hours before it resets, and the error's RetryAfter says when to try again.
type quotaTransport struct{ next http.RoundTripper }

// RoundTrip sends req and completes a 429's Retry-After.
func (t quotaTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "" {
		return resp, err
	}
	now := time.Now()
	wait := nextMidnightUTC(now).Sub(now)
	if rl := httpcore.ParseRateLimit(resp.Header, now); rl != nil && rl.Reset != nil {
		wait = *rl.Reset
	}
	resp.Header = resp.Header.Clone()
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	resp.Header.Set("Retry-After", formatSeconds(wait))
	return resp, nil
}

// formatSeconds writes d as whole seconds, rounded up.
func formatSeconds(d time.Duration) string {
	secs := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(secs, 0), 10)
}

// withQuotaRetryAfter returns a copy of hc (a client with the core's default transport when
// nil) whose transport is wrapped in quotaTransport; hc itself is left as it is.
func withQuotaRetryAfter(hc *http.Client) *http.Client {
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
	own.Transport = quotaTransport{next: next}
	return &own
}

package chartdiff

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// serviceName names the service in errors, logs and the User-Agent.
const serviceName = "chartdiff"

// Header names the service uses for credentials.
const (
	// KeyHeader carries the API key. It is the only key header that passes the service's
	// gateway intact: the gateway overwrites Authorization and consumes x-api-key.
	KeyHeader = "x-phm-key"
	// AccountTokenHeader carries the web account token for key management.
	AccountTokenHeader = "x-hm-token"
)

// Environment variables read by New.
const (
	// EnvURL supplies the base URL when WithBaseURL is not given.
	EnvURL = "CHARTDIFF_URL"
	// EnvAPIKey supplies the API key when WithAPIKey is not given and the base URL comes from
	// EnvURL.
	EnvAPIKey = "CHARTDIFF_API_KEY"
	// EnvAccountToken supplies the account token when WithAccountToken is not given and the base
	// URL comes from EnvURL.
	EnvAccountToken = "CHARTDIFF_ACCOUNT_TOKEN"
)

// service describes the API to the HTTP core. Its one default of its own is Analyze's wait
// for a free analysis slot: up to 30 s, from 250 ms to 4 s between attempts.
var service = httpcore.Service{Name: serviceName, BaseURLEnv: EnvURL, PathPrefix: "/api/v1",
	Defaults:  httpcore.Defaults{Wait: sdk.WaitPolicy{Timeout: 30 * time.Second, MinDelay: 250 * time.Millisecond, MaxDelay: 4 * time.Second}},
	Sentinels: sentinels, ClassifyAt: classify}

// Client calls the chart difficulty API. It is safe for concurrent use.
type Client struct {
	// core sends every request; analyses and key creation and rotation ask it for no retry.
	core *httpcore.Client
	// wait bounds Analyze's waits for a free analysis slot: WithWait over the service's default.
	wait sdk.WaitPolicy
	// clock times Analyze's waits while the service is busy.
	clock sdk.Clock
	// settings are the options New was given; they explain a credential the client lacks.
	settings *httpcore.Settings
	// creds holds the credentials behind a pointer, so that printing a Client with %v or %+v
	// shows an address and never a secret.
	creds atomic.Pointer[credentials]
	// mu serialises SetAPIKey and SetAccountToken.
	mu sync.Mutex
}

// credentials are the client's secrets and the request credentials made of them.
type credentials struct {
	key, token string
	// keyed are the credentials of every request but key management: the API key, or none.
	keyed []httpcore.Credential
	// account are the credentials of key management: the account token alone, or nil.
	account []httpcore.Credential
}

// newCredentials returns the credentials of an API key and an account token ("" for none).
func newCredentials(key, token string) *credentials {
	cr := &credentials{key: key, token: token, keyed: []httpcore.Credential{}}
	if key != "" {
		cr.keyed = []httpcore.Credential{{Header: KeyHeader, Value: key}}
	}
	if token != "" {
		cr.account = []httpcore.Credential{{Header: AccountTokenHeader, Value: token}}
	}
	return cr
}

// all lists every credential, for the core's default credentials: the core then scrubs each
// from errors and logs and drops each on a redirect to another host. No request is sent with
// all of them: each names its own (see do).
func (cr *credentials) all() []httpcore.Credential {
	return append(slices.Clone(cr.keyed), cr.account...)
}

// New returns a client configured by opts.
//
// The base URL comes from WithBaseURL or else from CHARTDIFF_URL. When the base URL comes from
// CHARTDIFF_URL, CHARTDIFF_API_KEY and CHARTDIFF_ACCOUNT_TOKEN supply the credentials that
// WithAPIKey and WithAccountToken did not; when WithBaseURL is given, the environment's
// credentials are not sent, and the calls that need one (key management, Usage) or would
// have used one (SelfCheck) say which variable was set but not used, and how to send it.
func New(opts ...Option) (*Client, error) {
	cfg := &config{}
	if err := httpcore.Configure(serviceName, cfg, opts); err != nil {
		return nil, err
	}
	env, err := cfg.LoadEnv(serviceName, EnvURL, EnvAPIKey, EnvAccountToken)
	if err != nil {
		return nil, err
	}
	if v, ok := env[EnvAPIKey]; ok && cfg.apiKey == "" {
		if err := keyRule.Check(EnvAPIKey, v); err != nil {
			return nil, err
		}
		cfg.apiKey = v
	}
	if v, ok := env[EnvAccountToken]; ok && cfg.accountToken == "" {
		if err := tokenRule.Check(EnvAccountToken, v); err != nil {
			return nil, err
		}
		cfg.accountToken = v
	}
	creds := newCredentials(cfg.apiKey, cfg.accountToken)
	svc := service
	svc.Credentials = creds.all()
	core, err := httpcore.NewClient(&cfg.Settings, svc)
	if err != nil {
		return nil, err
	}
	c := &Client{core: core, wait: cfg.Wait(service.Defaults.Wait), clock: cfg.Clock(), settings: &cfg.Settings}
	c.creds.Store(creds)
	return c, nil
}

// SetAPIKey replaces the API key sent in x-phm-key from now on, such as the new key of
// RotateKey; requests already under way keep the key they started with. The key must have
// the form sk- and 32 hexadecimal characters. Like the first key, it is scrubbed from every
// error and log line, and so is the key it replaces.
func (c *Client) SetAPIKey(key string) error {
	if err := keyRule.Check("API key", key); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.store(newCredentials(key, c.creds.Load().token))
}

// SetAccountToken replaces the web account token of key management (and of Usage without an
// API key) from now on. It is checked as WithAccountToken checks it, and it is scrubbed from
// every error and log line, as is the token it replaces.
func (c *Client) SetAccountToken(token string) error {
	if err := tokenRule.Check("account token", token); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.store(newCredentials(c.creds.Load().key, token))
}

// store makes cr the client's credentials; c.mu is held.
func (c *Client) store(cr *credentials) error {
	if err := c.core.SetCredentials(cr.all()...); err != nil {
		return err
	}
	c.creds.Store(cr)
	return nil
}

// do sends req and decodes a 2xx body into out (when not nil). A request that names no
// credentials of its own is sent with the API key, or anonymously; never with the account
// token.
func (c *Client) do(ctx context.Context, req *httpcore.Request, out any) (*httpcore.Response, error) {
	if req.Credentials == nil {
		req.Credentials = c.creds.Load().keyed
	}
	return c.core.Do(ctx, req, out)
}

// get sends a GET with the API key, or anonymously.
func (c *Client) get(ctx context.Context, path string, query url.Values, out any) (*httpcore.Response, error) {
	return c.do(ctx, &httpcore.Request{Method: http.MethodGet, Path: path, Query: query}, out)
}

// doAccount sends req for op with the account token, the credential of key management, and
// decodes a 2xx body into out. A client without the token gets an
// *sdk.MissingCredentialError (matching ErrAccountTokenRequired), and nothing is sent.
func (c *Client) doAccount(ctx context.Context, op string, req *httpcore.Request, out any) (*httpcore.Response, error) {
	req.Credentials = c.creds.Load().account
	if req.Credentials == nil {
		err := c.settings.MissingCredential(serviceName, op, "account token", "WithAccountToken", EnvAccountToken, ErrAccountTokenRequired)
		err.Reason += "; it travels in " + AccountTokenHeader + " (SetAccountToken gives it to a client already made)"
		return nil, err
	}
	return c.core.Do(ctx, req, out)
}

// keyNotUsed says, for a client without an API key while CHARTDIFF_API_KEY is set, why the
// variable was not used and how to send the key; it returns "" otherwise.
func (c *Client) keyNotUsed(op string) string {
	if c.creds.Load().key != "" || os.Getenv(EnvAPIKey) == "" {
		return ""
	}
	return c.settings.MissingCredential(serviceName, op, "API key", "WithAPIKey", EnvAPIKey).Reason
}

package chartdiff

import (
	"context"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

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

// Client calls the chart difficulty API. It is safe for concurrent use.
type Client struct {
	// core sends every request, with the retry policy of the options; analyses and key
	// creation and rotation are sent once (httpcore.Request.NoRetry).
	core *httpcore.Client
	// analyzeWait bounds Analyze's retrying on analysis_busy.
	analyzeWait time.Duration
	// creds holds the credentials behind a pointer, so that printing a Client with %v or %+v
	// shows an address and never a secret.
	creds *credentials
}

// credentials are what the client knows of its secrets.
type credentials struct {
	// apiKey reports whether the client sends an API key.
	apiKey atomic.Bool
	// accountToken is the web account token, "" for none.
	accountToken string
}

// New returns a client configured by opts.
//
// The base URL comes from WithBaseURL or else from CHARTDIFF_URL. When the base URL comes from
// CHARTDIFF_URL, CHARTDIFF_API_KEY and CHARTDIFF_ACCOUNT_TOKEN supply the credentials that
// WithAPIKey and WithAccountToken did not; when WithBaseURL is given, the environment's
// credentials are ignored.
func New(opts ...Option) (*Client, error) {
	cfg := &config{}
	if err := httpcore.Configure(serviceName, cfg, opts); err != nil {
		return nil, fromCore(err)
	}
	env, err := cfg.LoadEnv(EnvURL, EnvAPIKey, EnvAccountToken)
	if err != nil {
		return nil, withService(fromCore(err))
	}
	if v, ok := env[EnvAPIKey]; ok && !cfg.apiKeySet {
		if err := checkAPIKey(EnvAPIKey, v); err != nil {
			return nil, withService(fromCore(err))
		}
		cfg.apiKey = v
	}
	if v, ok := env[EnvAccountToken]; ok && !cfg.tokenSet {
		if err := checkAccountToken(EnvAccountToken, v); err != nil {
			return nil, withService(fromCore(err))
		}
		cfg.accountToken = v
	}
	if !cfg.waitSet {
		cfg.analyzeWait = DefaultAnalyzeWait
	}
	svc := httpcore.Service{Name: serviceName, BaseURLEnv: EnvURL, PathPrefix: "/api/v1"}
	if cfg.apiKey != "" {
		svc.Credentials = []httpcore.Credential{keyCredential(cfg.apiKey)}
	}
	if cfg.accountToken != "" {
		// Only key management sends the token, but it is scrubbed from every error and log line.
		svc.Secrets = []string{cfg.accountToken}
	}
	core, err := httpcore.NewClient(&cfg.Settings, svc)
	if err != nil {
		return nil, fromCore(err)
	}
	c := &Client{core: core, analyzeWait: cfg.analyzeWait, creds: &credentials{accountToken: cfg.accountToken}}
	c.creds.apiKey.Store(cfg.apiKey != "")
	return c, nil
}

// SetAPIKey replaces the API key sent in x-phm-key from now on, such as the new key of
// RotateKey; requests already under way keep the key they started with. The key must have
// the form sk- and 32 hexadecimal characters.
func (c *Client) SetAPIKey(key string) error {
	if err := checkAPIKey("API key", key); err != nil {
		return withService(fromCore(err))
	}
	if err := c.core.SetCredentials(keyCredential(key)); err != nil {
		return fromCore(err)
	}
	c.creds.apiKey.Store(true)
	return nil
}

// keyCredential is the API key as the header the service reads.
func keyCredential(key string) httpcore.Credential {
	return httpcore.Credential{Header: KeyHeader, Value: key}
}

// do sends req, decodes a 2xx body into out (when not nil) and returns the
// response's metadata. Failures become the package's typed errors (see classify).
func (c *Client) do(ctx context.Context, req *httpcore.Request, out any) (*httpcore.Response, error) {
	resp, err := c.core.Do(ctx, req, out)
	if err != nil {
		return nil, classify(err)
	}
	return resp, nil
}

// get sends a GET with the client's default credentials.
func (c *Client) get(ctx context.Context, path string, query url.Values, out any) (*httpcore.Response, error) {
	return c.do(ctx, &httpcore.Request{Method: http.MethodGet, Path: path, Query: query}, out)
}

// accountCredentials returns the per-request credentials of key management, or the typed
// error (matching ErrAccountTokenRequired) when the client has no account token. Nothing is
// sent in that case.
func (c *Client) accountCredentials(op string) ([]httpcore.Credential, error) {
	if c.creds.accountToken == "" {
		return nil, &MissingCredentialError{
			Operation: op,
			Reason:    "needs the web account token (WithAccountToken or " + EnvAccountToken + "), sent in " + AccountTokenHeader,
		}
	}
	return c.tokenCredentials(), nil
}

// tokenCredentials returns the account token as the credentials of one request; the API key is
// not sent along.
func (c *Client) tokenCredentials() []httpcore.Credential {
	return []httpcore.Credential{{Header: AccountTokenHeader, Value: c.creds.accountToken}}
}

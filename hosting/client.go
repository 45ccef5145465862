package hosting

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// serviceName names the service in errors, logs and the User-Agent.
const serviceName = "hosting"

// Header names and the scheme the service reads the token from.
const (
	// AuthorizationHeader carries the token as "Bearer <token>", the header the API
	// description asks for.
	AuthorizationHeader = "Authorization"
	// TokenHeader carries the token alone, for when a gateway strips Authorization.
	TokenHeader = "X-API-Token"
	// bearerPrefix is the scheme of the Authorization header.
	bearerPrefix = "Bearer "
)

// Environment variables read by New.
const (
	// EnvURL supplies the base URL when WithBaseURL is not given.
	EnvURL = "HOSTING_URL"
	// EnvToken supplies the token when WithToken is not given and the base URL comes from
	// EnvURL.
	EnvToken = "HOSTING_TOKEN"
)

// service is the hosting API as the core sees it; New fills in the credentials.
var service = httpcore.Service{
	Name: serviceName, BaseURLEnv: EnvURL, PathPrefix: "/api/v1", Sentinels: sentinels,
	Decode: decodeAnswer, ErrorBody: decodeErrorBody, ClassifyAt: classify,
}

// Client calls the hosting API. It is safe for concurrent use.
type Client struct {
	// core sends every request; reads, file writes and deletions are retried by its policy.
	core *httpcore.Client
	// auth is the token and the header it travels in, behind a pointer so that printing a
	// Client with %v or %+v shows an address and never the token.
	auth atomic.Pointer[auth]
	// authMu serializes the changes of auth and of the core's credentials.
	authMu sync.Mutex
	// logger records the gateway remedies; nil when logging is off.
	logger *slog.Logger
	// tokenHeaderRetries and blockedPutRetries count the gateway remedies (see
	// GatewayRemedies).
	tokenHeaderRetries, blockedPutRetries atomic.Int64
}

// auth is the client's token and the header it travels in. A value is never changed, only
// replaced, so that a request sees one consistent pair.
type auth struct {
	token string
	// header is AuthorizationHeader, or TokenHeader once a gateway stripped Authorization.
	header string
}

// GatewayRemedies counts the remedies of the API description the client applied for a gateway
// in front of the service, beyond the requests it was asked to send, and says which header
// the token travels in now.
type GatewayRemedies struct {
	// TokenHeaderRetries counts requests answered 401 while the token went in
	// "Authorization: Bearer", and sent once more with the token in X-API-Token (the remedy of
	// the API description for a gateway that strips Authorization).
	TokenHeaderRetries int64
	// BlockedPutRetries counts file writes whose PUT was answered with a 403 HTML block page
	// and that were sent once more as POST with content_base64 (the remedy of the API
	// description for a CDN or firewall).
	BlockedPutRetries int64
	// TokenHeader is the header the token travels in now: AuthorizationHeader, or
	// TokenHeader once X-API-Token has worked after a 401.
	TokenHeader string
}

// New returns a client configured by opts.
//
// The base URL comes from WithBaseURL or else from HOSTING_URL. When the base URL comes from
// HOSTING_URL, HOSTING_TOKEN supplies the token that WithToken did not; when WithBaseURL is
// given, the environment's token is not sent. The token is required, since every call of
// the API needs one: without it New returns an *sdk.MissingCredentialError, which says when
// HOSTING_TOKEN was set but not used and how to send it (WithToken(os.Getenv("HOSTING_TOKEN"))).
func New(opts ...Option) (*Client, error) {
	cfg := &config{}
	if err := httpcore.Configure(serviceName, cfg, opts); err != nil {
		return nil, err
	}
	env, err := cfg.LoadEnv(serviceName, EnvURL, EnvToken)
	if err != nil {
		return nil, err
	}
	if v, ok := env[EnvToken]; ok && cfg.token == "" { // WithToken refuses an empty token
		if err := tokenRule.Check(EnvToken, v); err != nil {
			return nil, err
		}
		cfg.token = v
	}
	svc := service
	a := &auth{token: cfg.token, header: AuthorizationHeader}
	if cfg.token != "" {
		svc.Credentials = []httpcore.Credential{credential(a.header, a.token)}
	}
	core, err := httpcore.NewClient(&cfg.Settings, svc)
	if err != nil {
		return nil, err
	}
	if cfg.token == "" {
		return nil, cfg.MissingCredential(serviceName, "New", "API token", "WithToken", EnvToken)
	}
	c := &Client{core: core, logger: cfg.Logger()}
	c.auth.Store(a)
	return c, nil
}

// credential is the token in header: "Authorization: Bearer <token>" or "X-API-Token: <token>".
func credential(header, token string) httpcore.Credential {
	if header == TokenHeader {
		return httpcore.Credential{Header: TokenHeader, Value: token}
	}
	return httpcore.Credential{Header: AuthorizationHeader, Prefix: bearerPrefix, Value: token}
}

// SetToken replaces the token of every later request, such as one regenerated while the client
// runs; requests already under way keep the token they started with. The token goes in the
// header that works (GatewayRemedies().TokenHeader), and the old token and the new one are both
// scrubbed from every error and log line from then on. It refuses what WithToken refuses, with
// a *sdk.ValidationError.
func (c *Client) SetToken(token string) error {
	if err := tokenRule.Check("token", token); err != nil {
		return err
	}
	c.authMu.Lock()
	defer c.authMu.Unlock()
	header := c.auth.Load().header
	if err := c.core.SetCredentials(credential(header, token)); err != nil {
		return err
	}
	c.auth.Store(&auth{token: token, header: header})
	return nil
}

// GatewayRemedies returns the gateway remedies the client applied so far; no request is sent.
func (c *Client) GatewayRemedies() GatewayRemedies {
	return GatewayRemedies{TokenHeaderRetries: c.tokenHeaderRetries.Load(), BlockedPutRetries: c.blockedPutRetries.Load(),
		TokenHeader: c.auth.Load().header}
}

// do sends req and decodes a 2xx answer into out (an answer type, or nil). A 401 to a request
// whose token went in "Authorization: Bearer" is sent once more with the token in
// X-API-Token; when that one is not refused too, the client sends the token in X-API-Token
// from then on.
func (c *Client) do(ctx context.Context, req *httpcore.Request, out answer) (*httpcore.Response, error) {
	a := c.auth.Load()
	resp, err := c.core.Do(ctx, req, out)
	if err == nil || a.header != AuthorizationHeader || statusOf(err) != http.StatusUnauthorized {
		return resp, err
	}
	c.tokenHeaderRetries.Add(1)
	c.logRemedy(ctx, "token in X-API-Token after a 401 to Authorization: Bearer", req.Method, err)
	again := *req
	again.Credentials = []httpcore.Credential{credential(TokenHeader, a.token)}
	resp, err = c.core.Do(ctx, &again, out)
	if s := statusOf(err); err == nil || (s != 0 && s != http.StatusUnauthorized) {
		c.useTokenHeader(a)
	}
	return resp, err
}

// useTokenHeader makes X-API-Token the header of token a for every later request, unless the
// client switched already or its token was replaced since a was read. The credentials change
// before auth does, so that a request that sees TokenHeader never goes out with
// Authorization (a request that starts in between is sent with X-API-Token while believing it
// used Authorization, which costs at most one needless retry).
func (c *Client) useTokenHeader(a *auth) {
	c.authMu.Lock()
	defer c.authMu.Unlock()
	if c.auth.Load() != a {
		return
	}
	// The token was accepted before, so SetCredentials cannot refuse it.
	_ = c.core.SetCredentials(credential(TokenHeader, a.token))
	c.auth.Store(&auth{token: a.token, header: TokenHeader})
}

// statusOf returns the HTTP status of an *sdk.APIError in err, or 0 for an error without one.
func statusOf(err error) int {
	var ae *sdk.APIError // an *sdk.RateLimitError unwraps to one
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// logRemedy records a gateway remedy with metadata only: the remedy, the method, the path
// (never a query) and the status that called for it.
func (c *Client) logRemedy(ctx context.Context, remedy, method string, cause error) {
	if c.logger == nil {
		return
	}
	var ae *sdk.APIError
	attrs := []slog.Attr{slog.String("service", serviceName), slog.String("remedy", remedy), slog.String("method", method)}
	if errors.As(cause, &ae) {
		attrs = append(attrs, slog.String("path", ae.Path), slog.Int("status", ae.StatusCode))
	}
	c.logger.LogAttrs(ctx, slog.LevelWarn, "gateway remedy", attrs...)
}

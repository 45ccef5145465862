package hosting

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

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

// Client calls the hosting API. It is safe for concurrent use.
type Client struct {
	// core sends every request; reads, file writes and deletions are retried by its policy.
	core *httpcore.Client
	// auth holds the token behind a pointer, so that printing a Client with %v or %+v shows an
	// address and never the token.
	auth *tokenState
	// logger records the gateway remedies; nil when logging is off.
	logger *slog.Logger
	// stats counts the gateway remedies.
	stats *counters
}

// tokenState is the client's token and the header it currently travels in.
type tokenState struct {
	token string
	// inTokenHeader reports that the token now goes in X-API-Token: a gateway was seen
	// stripping Authorization. It is set only once the client's credentials say so.
	inTokenHeader atomic.Bool
	// switching serializes the switch to X-API-Token.
	switching sync.Mutex
}

// counters are the client's statistics.
type counters struct {
	tokenHeaderRetries atomic.Int64
	blockedPutRetries  atomic.Int64
}

// Stats counts what the client did beyond the requests it was asked to send.
type Stats struct {
	// TokenHeaderRetries counts requests answered 401 while the token went in
	// "Authorization: Bearer", and sent once more with the token in X-API-Token (the remedy of
	// the API description for a gateway that strips Authorization).
	TokenHeaderRetries int64
	// BlockedPutRetries counts file writes whose PUT was answered with a 403 HTML block page
	// and that were sent once more as POST with content_base64 (the remedy of the API
	// description for a CDN or firewall).
	BlockedPutRetries int64
	// TokenHeader is the header the token travels in now: AuthorizationHeader, or
	// TokenHeader once X-API-Token has worked after a 401; "" for a client without a token.
	TokenHeader string
}

// New returns a client configured by opts.
//
// The base URL comes from WithBaseURL or else from HOSTING_URL. When the base URL comes from
// HOSTING_URL, HOSTING_TOKEN supplies the token that WithToken did not; when WithBaseURL is
// given, the environment's token is ignored. A client without a token sends its requests
// without one (a proxy of the caller's may add it); the service answers them 401.
func New(opts ...Option) (*Client, error) {
	cfg := &config{}
	if err := httpcore.Configure(serviceName, cfg, opts); err != nil {
		return nil, fromCore(err)
	}
	env, err := cfg.LoadEnv(EnvURL, EnvToken)
	if err != nil {
		return nil, withService(fromCore(err))
	}
	if v, ok := env[EnvToken]; ok && !cfg.tokenSet {
		if err := checkToken(EnvToken, v); err != nil {
			return nil, withService(fromCore(err))
		}
		cfg.token = v
	}
	svc := httpcore.Service{
		Name: serviceName, BaseURLEnv: EnvURL, PathPrefix: "/api/v1",
		Decode: decodeAnswer, DecodeError: decodeErrorBody,
	}
	if cfg.token != "" {
		svc.Credentials = []httpcore.Credential{bearer(cfg.token)}
	}
	core, err := httpcore.NewClient(&cfg.Settings, svc)
	if err != nil {
		return nil, fromCore(err)
	}
	return &Client{core: core, auth: &tokenState{token: cfg.token}, logger: cfg.logger, stats: &counters{}}, nil
}

// bearer is the token as the Authorization header.
func bearer(token string) httpcore.Credential {
	return httpcore.Credential{Header: AuthorizationHeader, Prefix: bearerPrefix, Value: token}
}

// tokenHeader is the token as the X-API-Token header.
func tokenHeader(token string) httpcore.Credential {
	return httpcore.Credential{Header: TokenHeader, Value: token}
}

// Stats returns the client's statistics so far.
func (c *Client) Stats() Stats {
	s := Stats{TokenHeaderRetries: c.stats.tokenHeaderRetries.Load(), BlockedPutRetries: c.stats.blockedPutRetries.Load()}
	switch {
	case c.auth.token == "":
	case c.auth.inTokenHeader.Load():
		s.TokenHeader = TokenHeader
	default:
		s.TokenHeader = AuthorizationHeader
	}
	return s
}

// do sends req and decodes a 2xx answer into out (an answer type, or nil). A 401 to a request
// whose token went in "Authorization: Bearer" is sent once more with the token in
// X-API-Token; when that one is not refused too, the client sends the token in X-API-Token
// from then on. Errors are the package's types.
func (c *Client) do(ctx context.Context, req *httpcore.Request, out answer) (*httpcore.Response, error) {
	viaBearer := c.auth.token != "" && req.Credentials == nil && !c.auth.inTokenHeader.Load()
	resp, err := c.core.Do(ctx, req, answerOrNil(out))
	if err == nil || !viaBearer || statusOf(err) != http.StatusUnauthorized {
		return resp, fromCore(err)
	}
	c.stats.tokenHeaderRetries.Add(1)
	c.logRemedy(ctx, "token in X-API-Token after a 401 to Authorization: Bearer", req.Method, err)
	again := *req
	again.Credentials = []httpcore.Credential{tokenHeader(c.auth.token)}
	resp, err = c.core.Do(ctx, &again, answerOrNil(out))
	if err == nil || (statusOf(err) != 0 && statusOf(err) != http.StatusUnauthorized) {
		c.useTokenHeader()
	}
	return resp, fromCore(err)
}

// answerOrNil returns out as the core's out value: a nil interface for no answer type.
func answerOrNil(out answer) any {
	if out == nil {
		return nil
	}
	return out
}

// useTokenHeader makes X-API-Token the header of the token for every later request. The
// credentials change before the flag does, so that a request that sees the flag set never
// goes out with Authorization (a request that starts in between is sent with X-API-Token
// while believing it used Authorization, which costs at most one needless retry).
func (c *Client) useTokenHeader() {
	c.auth.switching.Lock()
	defer c.auth.switching.Unlock()
	if c.auth.inTokenHeader.Load() {
		return
	}
	// The credential was valid when New accepted it, so SetCredentials cannot refuse it.
	_ = c.core.SetCredentials(tokenHeader(c.auth.token))
	c.auth.inTokenHeader.Store(true)
}

// statusOf returns the HTTP status of an error of the core, or 0 for an error without one.
func statusOf(err error) int {
	var ae *httpcore.APIError // a *httpcore.RateLimitError unwraps to one
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
	var ae *httpcore.APIError
	attrs := []slog.Attr{slog.String("service", serviceName), slog.String("remedy", remedy), slog.String("method", method)}
	if errors.As(cause, &ae) {
		attrs = append(attrs, slog.String("path", ae.Path), slog.Int("status", ae.StatusCode))
	}
	c.logger.LogAttrs(ctx, slog.LevelWarn, "gateway remedy", attrs...)
}

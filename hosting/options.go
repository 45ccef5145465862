package hosting

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// config is what the options of New configure.
type config struct {
	httpcore.Settings
	token string
	// logger is the logger of WithLogger, kept here too so that the client can record the
	// gateway remedies it applies.
	logger *slog.Logger
}

// Option configures a Client; pass options to New.
type Option func(*config) error

// WithBaseURL sets the service's address, {hosting_url} in the API description (such as
// https://host or https://host/proxy); the client adds the /api/v1 prefix of the API, and
// SiteURL uses the address itself. Without it the HOSTING_URL environment variable is used.
// Giving WithBaseURL also stops the client from reading HOSTING_TOKEN, so that an explicitly
// addressed server never receives a token that was meant for another: give the token with
// WithToken, or New fails with an *sdk.MissingCredentialError that says so.
func WithBaseURL(rawURL string) Option { return Option(httpcore.WithBaseURL[*config](rawURL)) }

// WithToken sets the API token, sent as "Authorization: Bearer <token>" (or in X-API-Token
// once a gateway has been seen to strip Authorization; see Client.Counters). The token travels
// only in headers, and is scrubbed from every error and log line; Client.SetToken replaces it
// later. It must not be empty, hold whitespace or control characters, or start with the
// "Bearer " scheme word, which the client adds itself.
func WithToken(token string) Option {
	return func(c *config) error {
		if err := checkToken("token", token); err != nil {
			return err
		}
		c.token = token
		return nil
	}
}

// WithHTTPClient sets the *http.Client that sends requests (it must not be nil); its
// Transport, Timeout and Jar are used as they are, and the client never closes its idle
// connections. Without it the client uses its own transport, which keeps up to 100 idle
// connections per host, enough for DeployDir's concurrent uploads.
func WithHTTPClient(hc *http.Client) Option { return Option(httpcore.WithHTTPClient[*config](hc)) }

// WithLogger sets a *slog.Logger that receives one metadata-only record per attempt
// (service, method, host, path, status, attempt, duration) and one per gateway remedy the
// client applies (which remedy, method, path, status); logging is off by default. Tokens,
// header values, query strings and bodies are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.logger = l
		return httpcore.WithLogger[*config](l)(c)
	}
}

// WithRetry sets the retry policy of the requests that are safe to repeat: every GET, every
// file write (PUT, and the POST that replaces a blocked PUT) and every DELETE. Zero fields keep
// their defaults and RetryPolicy{MaxAttempts: 1} turns retries off. Creating a repository or a
// branch, committing and deploying are sent once: a repeat could act twice.
func WithRetry(p sdk.RetryPolicy) Option { return Option(httpcore.WithRetry[*config](p)) }

// WithUserAgent puts the caller's own product token (such as "my-agent/1.2") before the
// SDK's User-Agent.
func WithUserAgent(product string) Option { return Option(httpcore.WithUserAgent[*config](product)) }

// WithRequestsPerMinute paces the client: every attempt it sends, from any goroutine
// (DeployDir's uploads included), waits its turn so that no 60-second window holds more than
// n. The API description shows no limits, so the client is unpaced by default; 0 turns
// pacing off.
func WithRequestsPerMinute(n int) Option {
	return Option(httpcore.WithRequestsPerMinute[*config](n))
}

// checkToken refuses an empty token, one with whitespace or control characters (it would
// break the header), and one that already carries the Bearer scheme. The error never quotes
// the value.
func checkToken(field, token string) error {
	switch {
	case token == "":
		return invalid(field, "must not be empty")
	case len(token) > len(bearerPrefix) && strings.EqualFold(token[:len(bearerPrefix)], bearerPrefix):
		return invalid(field, `must be the token alone, without the "Bearer" scheme word`)
	case strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return invalid(field, "must not contain whitespace or control characters")
	}
	return nil
}

// WithTimeouts sets how long the client waits for an answer's headers, for a whole attempt,
// and between reads of a streamed body (defaults 30s, 60s and 30s); zero fields keep their
// defaults. sdk.Timeouts gives the longest a call can take with its retries.
func WithTimeouts(t sdk.Timeouts) Option { return Option(httpcore.WithTimeouts[*config](t)) }

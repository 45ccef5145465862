package hosting

import (
	"log/slog"
	"net/http"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// config is what the options of New configure.
type config struct {
	httpcore.Settings
	token string
}

// Option configures a Client; pass options to New.
type Option func(*config) error

// tokenRule is what the API description allows for the token: the client adds the Bearer
// scheme word itself.
var tokenRule = httpcore.CredentialRule{Service: serviceName, Refused: []httpcore.RefusedPrefix{
	{Prefix: bearerPrefix, Reason: `must be the token alone, without the "Bearer" scheme word`},
}}

// WithBaseURL sets the service's address, {hosting_url} in the API description; the client
// adds /api/v1 and SiteURL uses the address itself. Without it HOSTING_URL (and then
// HOSTING_TOKEN) is read. See [sdk] (Client options) for the rule.
func WithBaseURL(rawURL string) Option { return Option(httpcore.WithBaseURL[*config](rawURL)) }

// WithClock sets the clock that paces the client and reads its answers' times.
// See [sdk] (Client options) for the clock.
func WithClock(clock sdk.Clock) Option { return Option(httpcore.WithClock[*config](clock)) }

// WithHTTPClient sets the *http.Client that sends requests; the default transport's 100 idle
// connections per host serve DeployDir's concurrent uploads. See [sdk] (Client options) for how
// it is used.
func WithHTTPClient(hc *http.Client) Option { return Option(httpcore.WithHTTPClient[*config](hc)) }

// WithLogger sets the logger of one metadata-only record per attempt and one per gateway remedy
// the client applies (which remedy, method, path, status). See [sdk] (Client options) for what
// is logged.
func WithLogger(l *slog.Logger) Option { return Option(httpcore.WithLogger[*config](l)) }

// WithRequestsPerMinute paces every attempt, DeployDir's uploads included; the API description
// shows no limits, so hosting is unpaced by default. See [sdk] (Client options) for pacing.
func WithRequestsPerMinute(n int) Option {
	return Option(httpcore.WithRequestsPerMinute[*config](n))
}

// WithRetry sets the retry policy of reads, file writes and deletions; creating a repository or
// a branch, committing and deploying are sent once. See [sdk] (Client options) for the policy.
func WithRetry(p sdk.RetryPolicy) Option { return Option(httpcore.WithRetry[*config](p)) }

// WithTimeouts sets how long the client waits for an answer; the package documentation gives
// DeployDir's worst case. See [sdk] (Client options) for the bounds.
func WithTimeouts(t sdk.Timeouts) Option { return Option(httpcore.WithTimeouts[*config](t)) }

// WithToken sets the API token, sent as "Authorization: Bearer <token>", or in X-API-Token
// once a gateway has been seen to strip Authorization (see Client.GatewayRemedies). It
// travels only in headers and is scrubbed from every error and log line; Client.SetToken
// replaces it later. It must not be empty, hold white space or control characters, or start
// with the "Bearer " scheme word, which the client adds itself.
func WithToken(token string) Option {
	return func(c *config) error {
		if err := tokenRule.Check("token", token); err != nil {
			return err
		}
		c.token = token
		return nil
	}
}

// WithUserAgent puts the caller's product token before the SDK's User-Agent.
// See [sdk] (Client options) for the header.
func WithUserAgent(product string) Option { return Option(httpcore.WithUserAgent[*config](product)) }

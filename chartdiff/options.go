package chartdiff

import (
	"log/slog"
	"net/http"
	"regexp"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// config is what the options of New configure.
type config struct {
	httpcore.Settings
	apiKey, accountToken string
}

// Option configures a Client; pass options to New.
type Option func(*config) error

// keyRule is the form the API description gives an API key.
var keyRule = httpcore.CredentialRule{Service: serviceName, Pattern: regexp.MustCompile(`^sk-[0-9a-fA-F]{32}$`),
	Form: "sk- followed by 32 hexadecimal characters"}

// tokenRule refuses an API key given as the account token: the service does not accept one for
// key management.
var tokenRule = httpcore.CredentialRule{Service: serviceName, Refused: []httpcore.RefusedPrefix{
	{Prefix: "sk-", Reason: "an sk- API key is not an account token; use WithAPIKey for it"},
}}

// WithAPIKey sets the API key, of the form sk- followed by 32 hexadecimal characters, sent in
// the x-phm-key header of every request except key management. Without it (and without
// CHARTDIFF_API_KEY) the client is anonymous and gets the anonymous quota. The key is never
// sent in x-api-key or Authorization, which the service's gateway consumes or overwrites.
// Client.SetAPIKey replaces it later.
func WithAPIKey(key string) Option {
	return func(c *config) error {
		c.apiKey = key
		return keyRule.Check("API key", key)
	}
}

// WithAccountToken sets the web account token sent in x-hm-token for key management
// (Keys, CreateKey, UpdateKey, RotateKey, DeleteKey) and accepted by Usage. It must not be
// empty or hold white space, and an sk- API key is refused: the service does not accept one
// for key management. Client.SetAccountToken replaces it later.
func WithAccountToken(token string) Option {
	return func(c *config) error {
		c.accountToken = token
		return tokenRule.Check("account token", token)
	}
}

// WithBaseURL sets the service's address, {chart_api_url} in the API description; the client
// adds /api/v1. Without it CHARTDIFF_URL is read, and then CHARTDIFF_API_KEY and
// CHARTDIFF_ACCOUNT_TOKEN. See [sdk] (Client options) for the rest.
func WithBaseURL(rawURL string) Option { return Option(httpcore.WithBaseURL[*config](rawURL)) }

// WithClock sets the clock of the client's pacing, retries and Analyze's waits for a free
// analysis slot. See [sdk] (Client options) for the rest.
func WithClock(clock sdk.Clock) Option { return Option(httpcore.WithClock[*config](clock)) }

// WithHTTPClient sets the *http.Client that sends the client's requests. See [sdk] (Client
// options) for the rest.
func WithHTTPClient(hc *http.Client) Option { return Option(httpcore.WithHTTPClient[*config](hc)) }

// WithLogger sets the logger of the client's attempts; off by default. See [sdk] (Client
// options) for the rest.
func WithLogger(l *slog.Logger) Option { return Option(httpcore.WithLogger[*config](l)) }

// WithRequestsPerMinute paces the client; chartdiff is unpaced by default, as its quotas are
// hourly and daily. See [sdk] (Client options) for the rest.
func WithRequestsPerMinute(n int) Option {
	return Option(httpcore.WithRequestsPerMinute[*config](n))
}

// WithRetry sets the retry policy of the reads (GET, DELETE) and of key updates; Analyze
// waits under WithWait instead, and key creation and rotation are never repeated. See [sdk]
// (Client options) for the rest.
func WithRetry(p sdk.RetryPolicy) Option { return Option(httpcore.WithRetry[*config](p)) }

// WithTimeouts bounds how long the client waits for an answer; the package's "Time limits"
// give the worst case of each call. See [sdk] (Client options) for the rest.
func WithTimeouts(t sdk.Timeouts) Option { return Option(httpcore.WithTimeouts[*config](t)) }

// WithUserAgent puts the caller's own product token before the SDK's User-Agent. See [sdk]
// (Client options) for the rest.
func WithUserAgent(product string) Option { return Option(httpcore.WithUserAgent[*config](product)) }

// WithWait bounds how long Analyze waits for a free analysis slot while the service answers
// 503 analysis_busy: by default up to 30 s, with waits from 250 ms to 4 s unless the answer
// gives a retry-after; MaxAttempts 1 sends one request and never waits. See [sdk] (Client
// options) for the rest.
func WithWait(w sdk.WaitPolicy) Option { return Option(httpcore.WithWait[*config](w)) }

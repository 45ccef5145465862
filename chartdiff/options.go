package chartdiff

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/hexstr"
	"github.com/agentapis/sdk/internal/httpcore"
)

// config is what the options of New configure.
type config struct {
	httpcore.Settings
	apiKey, accountToken string
	analyzeWait          time.Duration
}

// Option configures a Client; pass options to New.
type Option func(*config) error

// DefaultAnalyzeWait is how long Analyze keeps retrying, by default, while every analysis slot
// of the service is busy (503 analysis_busy).
const DefaultAnalyzeWait = 30 * time.Second

// WithBaseURL sets the service's address, {chart_api_url} in the API description (such as
// https://host or https://host/proxy); the client adds the /api/v1 prefix. Without it the
// CHARTDIFF_URL environment variable is used. Giving WithBaseURL also stops the client from
// reading CHARTDIFF_API_KEY and CHARTDIFF_ACCOUNT_TOKEN, so that an explicitly addressed server
// never receives credentials that were meant for another.
func WithBaseURL(rawURL string) Option { return Option(httpcore.WithBaseURL[*config](rawURL)) }

// WithHTTPClient sets the *http.Client that sends requests (it must not be nil); its
// Transport, Timeout and Jar are used as they are, and the client never closes its idle
// connections. Without it the client uses its own transport, which keeps up to 100 idle
// connections per host for concurrent use.
func WithHTTPClient(hc *http.Client) Option { return Option(httpcore.WithHTTPClient[*config](hc)) }

// WithLogger sets a *slog.Logger that receives one metadata-only record per attempt
// (service, method, host, path, status, attempt, duration); logging is off by default.
func WithLogger(l *slog.Logger) Option { return Option(httpcore.WithLogger[*config](l)) }

// WithRetry sets the retry policy of the read requests (GET, DELETE) and of key updates;
// zero fields keep their defaults and RetryPolicy{MaxAttempts: 1} turns retries off. Analyze
// has its own bound, set with WithAnalyzeWait; key creation and rotation are never repeated.
func WithRetry(p sdk.RetryPolicy) Option { return Option(httpcore.WithRetry[*config](p)) }

// WithUserAgent puts the caller's own product token (such as "my-agent/1.2") before the
// SDK's User-Agent.
func WithUserAgent(product string) Option { return Option(httpcore.WithUserAgent[*config](product)) }

// WithAPIKey sets the API key, of the form sk- followed by 32 hexadecimal characters, sent in
// the x-phm-key header of every request except key management. Without it (and without
// CHARTDIFF_API_KEY) the client is anonymous and gets the anonymous quota. The key is never
// sent in x-api-key or Authorization, which the service's gateway consumes or overwrites.
// Client.SetAPIKey replaces it later.
func WithAPIKey(key string) Option {
	return func(c *config) error {
		c.apiKey = key
		return checkAPIKey("API key", key)
	}
}

// WithAccountToken sets the web account token sent in x-hm-token for key management
// (Keys, CreateKey, UpdateKey, RotateKey, DeleteKey) and accepted by Usage. It must not be
// empty, and an sk- API key is refused: the service does not accept one for key management.
// Client.SetAccountToken replaces it later.
func WithAccountToken(token string) Option {
	return func(c *config) error {
		c.accountToken = token
		return checkAccountToken("account token", token)
	}
}

// WithAnalyzeWait sets how long Analyze keeps retrying while the service answers 503
// analysis_busy (default DefaultAnalyzeWait). Analyze honours the service's retry-after and
// returns the busy error at once when that wait would pass the bound; 0 turns the retrying
// off. A negative duration is refused.
func WithAnalyzeWait(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return invalid("analyze wait", "must not be negative")
		}
		c.analyzeWait = d
		return nil
	}
}

// checkAPIKey accepts sk- followed by exactly 32 hexadecimal characters. The error names the
// field and never quotes the value.
func checkAPIKey(field, key string) error {
	if hex, ok := strings.CutPrefix(key, "sk-"); !ok || len(hex) != 32 || !hexstr.IsHex(hex) {
		return invalid(field, "must be sk- followed by 32 hexadecimal characters")
	}
	return nil
}

// checkAccountToken refuses an empty token, one with control characters (it would break the
// header), and an sk- API key given in its place. The error never quotes the value.
func checkAccountToken(field, token string) error {
	switch {
	case strings.TrimSpace(token) == "":
		return invalid(field, "must not be empty")
	case strings.ContainsFunc(token, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return invalid(field, "must not contain control characters")
	case strings.HasPrefix(token, "sk-"):
		return invalid(field, "an sk- API key is not an account token; use WithAPIKey for it")
	}
	return nil
}

// WithTimeouts sets how long the client waits for an answer's headers, for a whole attempt,
// and between reads of a streamed body (defaults 30s, 60s and 30s); zero fields keep their
// defaults. sdk.Timeouts gives the longest a call can take with its retries.
func WithTimeouts(t sdk.Timeouts) Option { return Option(httpcore.WithTimeouts[*config](t)) }

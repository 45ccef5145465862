package productdata

import (
	"log/slog"
	"net/http"
	"strings"
	"unicode"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// config is what the options of New configure.
type config struct {
	httpcore.Settings
	key string
	// clock paces and times the client and its polling; nil means the wall clock. Only the
	// package's tests set it.
	clock sdk.Clock
}

// Option configures a Client; pass options to New.
type Option func(*config) error

// Pacing of the request packs: the plans allow this many requests per minute.
const (
	// DefaultRequestsPerMinute is the limit of every plan but the entry one, and the client's
	// default pace.
	DefaultRequestsPerMinute = 200
	// EntryPlanRequestsPerMinute is the limit of the entry ("special offer") plan; pass it to
	// WithRequestsPerMinute on that plan.
	EntryPlanRequestsPerMinute = 100
)

// DefaultMaxAttempts is how many times the client sends a request that may be repeated, by
// default: the first attempt and two retries.
const DefaultMaxAttempts = 3

// WithBaseURL sets the service's address, {data_api_url} in the API description (such as
// https://standardapi.sorftime.com, or https://host/proxy); the client adds the /api prefix.
// Without it the PRODUCTDATA_URL environment variable is used. Giving WithBaseURL also stops the
// client from reading PRODUCTDATA_ACCOUNT_KEY, so that an explicitly addressed server never
// receives a key that was meant for another: give the key with WithAccountKey, or New fails
// with an *sdk.MissingCredentialError that says so.
func WithBaseURL(rawURL string) Option { return Option(httpcore.WithBaseURL[*config](rawURL)) }

// WithHTTPClient sets the *http.Client that sends requests (it must not be nil); its
// Transport, Timeout and Jar are used as they are, the client never changes it, and never
// closes its idle connections. Without it the client uses its own transport, which keeps up to 100 idle
// connections per host for concurrent use.
func WithHTTPClient(hc *http.Client) Option { return Option(httpcore.WithHTTPClient[*config](hc)) }

// WithLogger sets a *slog.Logger that receives one metadata-only record per attempt
// (service, method, host, path, status, attempt, duration); logging is off by default. The key
// and the request and response bodies are never logged.
func WithLogger(l *slog.Logger) Option { return Option(httpcore.WithLogger[*config](l)) }

// WithRetry sets the retry policy. The product-data client's own default differs from the
// sdk.RetryPolicy defaults in one field: a zero MaxAttempts means DefaultMaxAttempts (3: the first
// attempt and two retries); the other zero fields keep their sdk.RetryPolicy defaults, and
// sdk.RetryPolicy{MaxAttempts: 1} turns retries off.
//
// Retried are network errors, HTTP 429, 502, 503 and 504 of the requests that read data
// (never of those that create a task, a subscription or a keyword entry; see Endpoint), and the
// per-minute limit code 501 of any request, which the service answers without acting on it.
func WithRetry(p sdk.RetryPolicy) Option {
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	return Option(httpcore.WithRetry[*config](p))
}

// WithUserAgent puts the caller's own product token (such as "my-agent/1.2") before the
// SDK's User-Agent.
func WithUserAgent(product string) Option { return Option(httpcore.WithUserAgent[*config](product)) }

// WithRequestsPerMinute paces the client: every request it sends (retries and polls
// included), whatever the goroutine, waits its turn so that no 60-second window holds more
// than n. The default is DefaultRequestsPerMinute (200, the limit of most plans); pass
// EntryPlanRequestsPerMinute (100) on the entry plan, or 0 to turn pacing off when several
// processes share a pacer of their own.
func WithRequestsPerMinute(n int) Option {
	return Option(httpcore.WithRequestsPerMinute[*config](n))
}

// WithAccountKey sets the account key (Account-SK), sent on every request as
// "Authorization: BasicAuth <key>" and nowhere else. Without it the key comes from
// PRODUCTDATA_ACCOUNT_KEY when the base URL comes from PRODUCTDATA_URL. Client.SetAccountKey
// replaces it later.
func WithAccountKey(key string) Option {
	return func(c *config) error {
		if err := checkKey(keyField, key); err != nil {
			return err
		}
		c.key = key
		return nil
	}
}

// keyField names the account key in a *sdk.ValidationError.
const keyField = "account key"

// checkKey refuses an empty key and one with spaces or control characters, which no account
// key has and which would break the header ("BasicAuth <key>" given whole is refused too, for
// its space). The error never quotes the value.
func checkKey(field, key string) error {
	switch {
	case key == "":
		return invalid(field, "must not be empty")
	case strings.ContainsFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return invalid(field, "must not contain spaces or control characters")
	}
	return nil
}

// WithTimeouts sets how long the client waits for an answer's headers, for a whole attempt,
// and between reads of a streamed body (defaults 30s, 60s and 30s); zero fields keep their
// defaults. sdk.Timeouts gives the longest a call can take with its retries.
func WithTimeouts(t sdk.Timeouts) Option { return Option(httpcore.WithTimeouts[*config](t)) }

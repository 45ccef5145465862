package productdata

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// config is what the options of New configure.
type config struct {
	httpcore.Settings
	key string
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

// Defaults of the wait for an asynchronous task (RefreshProduct, CollectReviews), which
// WithWait overrides field by field.
const (
	// DefaultWaitMinDelay is the wait after the request that starts a task, and the shortest
	// wait between status queries.
	DefaultWaitMinDelay = 2 * time.Second
	// DefaultWaitMaxDelay is the longest wait between status queries.
	DefaultWaitMaxDelay = 30 * time.Second
	// DefaultWaitTimeout bounds a whole wait, the API description's "about 90 seconds".
	DefaultWaitTimeout = 90 * time.Second
	// DefaultWaitAttempts caps the requests of one wait: the starting request and 12 status
	// queries (the default schedule needs at most 10 in 90 seconds).
	DefaultWaitAttempts = 13
)

// keyRule is what the API description allows for the account key: no white space or control
// characters, which would break the header ("BasicAuth <key>" given whole is refused too).
var keyRule = httpcore.CredentialRule{Service: serviceName}

// keyField names the account key in a *sdk.ValidationError.
const keyField = "account key"

// WithAccountKey sets the account key (Account-SK), sent on every request as
// "Authorization: BasicAuth <key>" and nowhere else. Without it the key comes from
// PRODUCTDATA_ACCOUNT_KEY when the base URL comes from PRODUCTDATA_URL. Client.SetAccountKey
// replaces it later.
func WithAccountKey(key string) Option {
	return func(c *config) error {
		if err := keyRule.Check(keyField, key); err != nil {
			return err
		}
		c.key = key
		return nil
	}
}

// WithBaseURL sets {data_api_url} of the API description (such as
// https://standardapi.sorftime.com); the client adds /api. Without it PRODUCTDATA_URL is read.
// See [sdk] (Client options) for the rest.
func WithBaseURL(rawURL string) Option { return Option(httpcore.WithBaseURL[*config](rawURL)) }

// WithClock sets the clock that paces the product-data client and times its waits for tasks.
// See [sdk] (Client options) for the rest.
func WithClock(clock sdk.Clock) Option { return Option(httpcore.WithClock[*config](clock)) }

// WithHTTPClient sets the *http.Client that sends the product-data requests.
// See [sdk] (Client options) for the rest.
func WithHTTPClient(hc *http.Client) Option { return Option(httpcore.WithHTTPClient[*config](hc)) }

// WithLogger sets the logger of the product-data client; the account key is never logged.
// See [sdk] (Client options) for the rest.
func WithLogger(l *slog.Logger) Option { return Option(httpcore.WithLogger[*config](l)) }

// WithRequestsPerMinute paces the client, status queries included; the default is
// DefaultRequestsPerMinute, and EntryPlanRequestsPerMinute suits the entry plan.
// See [sdk] (Client options) for the rest.
func WithRequestsPerMinute(n int) Option {
	return Option(httpcore.WithRequestsPerMinute[*config](n))
}

// WithRetry sets the retry policy; a zero MaxAttempts means DefaultMaxAttempts. The per-minute
// code 501 is retried for every request, other failures only for the endpoints that read.
// See [sdk] (Client options) for the rest.
func WithRetry(p sdk.RetryPolicy) Option { return Option(httpcore.WithRetry[*config](p)) }

// WithTimeouts bounds how long the product-data client waits for each answer.
// See [sdk] (Client options) for the rest.
func WithTimeouts(t sdk.Timeouts) Option { return Option(httpcore.WithTimeouts[*config](t)) }

// WithUserAgent puts the caller's product token before the SDK's User-Agent.
// See [sdk] (Client options) for the rest.
func WithUserAgent(product string) Option { return Option(httpcore.WithUserAgent[*config](product)) }

// WithWait bounds the wait of RefreshProduct and CollectReviews for their task; zero fields
// take the DefaultWait constants. See [sdk] (Client options) for the rest.
func WithWait(w sdk.WaitPolicy) Option { return Option(httpcore.WithWait[*config](w)) }

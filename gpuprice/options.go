package gpuprice

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// config is what the options of New configure.
type config struct {
	httpcore.Settings
	apiKey         string
	apiKeySet      bool
	keyOnFree      bool
	rpcURL         string
	insecureRPC    bool
	rpcClient      *rpc.Client
	redeemPath     string
	confirmTimeout time.Duration
	// clock times the client's retries and BuyKey's waits; nil means the wall clock. Only the
	// package's tests set it.
	clock sdk.Clock
}

// Option configures a Client; pass options to New.
type Option func(*config) error

// DefaultRedeemPath is the path, below the base URL, of the operation that turns a payment's
// transaction signature into a key. The API description does not show it; WithRedeemPath
// changes it.
const DefaultRedeemPath = "/v1/keys/redeem"

// DefaultConfirmTimeout is how long BuyKey waits, by default, for its payment to be
// confirmed: a little longer than a blockhash stays usable (150 blocks, about a minute).
const DefaultConfirmTimeout = 90 * time.Second

// WithBaseURL sets the service's address, {gpu_api_url} in the API description (such as
// https://host or https://host/proxy); the client adds the /v1 prefix. Without it the
// GPUPRICE_URL environment variable is used. Giving WithBaseURL also stops the client from
// reading GPUPRICE_API_KEY, so that an explicitly addressed server never receives a key that
// was meant for another.
func WithBaseURL(rawURL string) Option { return Option(httpcore.WithBaseURL[*config](rawURL)) }

// WithHTTPClient sets the *http.Client that sends the price API's requests (it must not be
// nil); its Transport, Timeout and Jar are used as they are, and the client never closes its
// idle connections. It does not reach the Solana node: see WithRPCClient.
func WithHTTPClient(hc *http.Client) Option { return Option(httpcore.WithHTTPClient[*config](hc)) }

// WithLogger sets a *slog.Logger that receives one metadata-only record per attempt
// (service, method, host, path, status, attempt, duration); logging is off by default.
func WithLogger(l *slog.Logger) Option { return Option(httpcore.WithLogger[*config](l)) }

// WithRetry sets the retry policy of the price API's requests; zero fields keep their
// defaults and sdk.RetryPolicy{MaxAttempts: 1} turns retries off. StopOnLongRetryAfter is
// always on: a used-up daily quota is returned at once as an *sdk.RateLimitError instead of
// being retried before it resets. The redemption of a key is never repeated automatically.
func WithRetry(p sdk.RetryPolicy) Option {
	p.StopOnLongRetryAfter = true
	return Option(httpcore.WithRetry[*config](p))
}

// WithKeyOnFreeEndpoints sends the API key to the free price endpoints as well (GPUs,
// Cheapest, Platforms, the futures index and components, the order book), for a service that
// counts those requests against the key's plan (1,000 a day for Pro) rather than the free
// tier's 10. By default the key travels only where the API requires it: History.
func WithKeyOnFreeEndpoints() Option {
	return func(c *config) error {
		c.keyOnFree = true
		return nil
	}
}

// WithUserAgent puts the caller's own product token (such as "my-agent/1.2") before the
// SDK's User-Agent.
func WithUserAgent(product string) Option { return Option(httpcore.WithUserAgent[*config](product)) }

// WithAPIKey sets the API key of a paid plan, sent in the X-API-Key header to History, the
// one endpoint that needs it (and, with WithKeyOnFreeEndpoints, to the free price endpoints
// too). It is never sent to /v1/health, to the redemption operation or to the Solana node.
// SetAPIKey, BuyKey and RedeemKey replace it later.
func WithAPIKey(key string) Option {
	return func(c *config) error {
		if err := checkAPIKey("API key", key); err != nil {
			return err
		}
		c.apiKey, c.apiKeySet = key, true
		return nil
	}
}

// WithRPCURL sets the Solana JSON-RPC endpoint BuyKey uses (such as
// https://api.mainnet-beta.solana.com, or a provider's URL that carries an access key: the
// URL never appears in an error): https, or http on loopback (a local validator); a remote
// http endpoint needs WithInsecureRPC. Without it and without WithRPCClient, the
// SOLANA_RPC_URL environment variable is used; with none of them BuyKey refuses to start.
func WithRPCURL(rawURL string) Option {
	return func(c *config) error {
		u, err := url.Parse(rawURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return invalid("RPC URL", "must be an absolute http or https URL")
		}
		c.rpcURL = rawURL
		return nil
	}
}

// WithInsecureRPC lets WithRPCURL (or SOLANA_RPC_URL) name a remote endpoint over plain
// http, which anyone on the path can read and answer for the node: what it says of a
// purchase decides whether its amount stays counted (see svm.WithInsecureHTTP).
func WithInsecureRPC() Option {
	return func(c *config) error {
		c.insecureRPC = true
		return nil
	}
}

// WithRPCClient sets the solana-go JSON-RPC client BuyKey uses, for a node that needs its
// own transport or headers. It takes precedence over WithRPCURL.
func WithRPCClient(rc *rpc.Client) Option {
	return func(c *config) error {
		if rc == nil {
			return invalid("RPC client", "must not be nil")
		}
		c.rpcClient = rc
		return nil
	}
}

// WithRedeemPath sets the path, below the base URL, of the operation that exchanges a
// transaction signature for a key (default DefaultRedeemPath, "/v1/keys/redeem").
func WithRedeemPath(path string) Option {
	return func(c *config) error {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, "?#") || strings.Contains(path, "..") {
			return invalid("redeem path", `must be a path starting with "/", without a query or ".."`)
		}
		c.redeemPath = path
		return nil
	}
}

// WithConfirmTimeout sets how long BuyKey waits for its payment to be confirmed (default
// DefaultConfirmTimeout). A payment not confirmed in time is in doubt: see PaymentInDoubt.
func WithConfirmTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return invalid("confirm timeout", "must be positive")
		}
		c.confirmTimeout = d
		return nil
	}
}

// checkAPIKey refuses an empty key and one with spaces or control characters (it would break
// the header). The *sdk.ValidationError names the field and never quotes the value.
func checkAPIKey(field, key string) error {
	switch {
	case key == "":
		return invalid(field, "must not be empty")
	case strings.ContainsFunc(key, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return invalid(field, "must not contain spaces or control characters")
	case len(key) < 8:
		return invalid(field, "is too short to be an API key")
	}
	return nil
}

// WithTimeouts sets how long the client waits for an answer's headers, for a whole attempt,
// and between reads of a streamed body (defaults 30s, 60s and 30s); zero fields keep their
// defaults. sdk.Timeouts gives the longest a call can take with its retries. The attempt
// bound also bounds each call BuyKey makes to the Solana node, whole.
func WithTimeouts(t sdk.Timeouts) Option { return Option(httpcore.WithTimeouts[*config](t)) }

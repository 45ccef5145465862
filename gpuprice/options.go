package gpuprice

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// config is what the options of New configure.
type config struct {
	httpcore.Settings
	apiKey      string
	apiKeySet   bool
	keyOnFree   bool
	rpcURL      string
	insecureRPC bool
	rpcClient   *rpc.Client
	redeemPath  string
}

// Option configures a Client; pass options to New.
type Option func(*config) error

// DefaultRedeemPath is the path, below the base URL, of the operation that turns a payment's
// transaction signature into a key. The API description does not show it; WithRedeemPath
// changes it.
const DefaultRedeemPath = "/v1/keys/redeem"

// keyRule is what the service allows of an API key: at least 8 characters, none of them
// white space or control characters.
var keyRule = httpcore.CredentialRule{Service: serviceName, MinLen: 8}

// WithAPIKey sets the API key of a paid plan, sent in the X-API-Key header to History, the
// one endpoint that needs it (and, with WithKeyOnFreeEndpoints, to the free price endpoints
// too). It is never sent to /v1/health, to the redemption operation or to the Solana node.
// SetAPIKey, BuyKey and RedeemKey replace it later.
func WithAPIKey(key string) Option {
	return func(c *config) error {
		if err := keyRule.Check("API key", key); err != nil {
			return err
		}
		c.apiKey, c.apiKeySet = key, true
		return nil
	}
}

// WithBaseURL sets the service's address, {gpu_api_url} in the API description; the client
// adds /v1. Without it GPUPRICE_URL is read, and then GPUPRICE_API_KEY.
// See [sdk] (Client options) for the base URL and the environment.
func WithBaseURL(rawURL string) Option { return Option(httpcore.WithBaseURL[*config](rawURL)) }

// WithClock sets the clock of the client's retries and quota resets, and of BuyKey's waits
// and payment expiries. See [sdk] (Client options) for the clock.
func WithClock(clock sdk.Clock) Option { return Option(httpcore.WithClock[*config](clock)) }

// WithHTTPClient sets the *http.Client of the price API's requests; it does not reach the
// Solana node (see WithRPCClient). See [sdk] (Client options) for the HTTP client.
func WithHTTPClient(hc *http.Client) Option { return Option(httpcore.WithHTTPClient[*config](hc)) }

// WithInsecureRPC lets WithRPCURL (or SOLANA_RPC_URL) name a remote endpoint over plain
// http, which anyone on the path can read and answer for the node: what it says of a
// purchase decides whether its amount stays counted (see svm.WithInsecureHTTP).
func WithInsecureRPC() Option {
	return func(c *config) error {
		c.insecureRPC = true
		return nil
	}
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

// WithLogger sets the logger of the price API's requests; the Solana node's calls are not
// logged. See [sdk] (Client options) for the logger.
func WithLogger(l *slog.Logger) Option { return Option(httpcore.WithLogger[*config](l)) }

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

// WithRequestsPerMinute paces the price API's requests; the service publishes no limit, so
// the client is unpaced by default. See [sdk] (Client options) for pacing.
func WithRequestsPerMinute(n int) Option { return Option(httpcore.WithRequestsPerMinute[*config](n)) }

// WithRetry sets the retry policy of the price API's requests; StopOnLongRetryAfter is always
// on, so a used-up daily quota comes back at once, and a redemption is never repeated.
// See [sdk] (Client options) for retries.
func WithRetry(p sdk.RetryPolicy) Option { return Option(httpcore.WithRetry[*config](p)) }

// WithTimeouts bounds the price API's requests; the attempt bound also bounds each call
// BuyKey makes to the Solana node, whole. See [sdk] (Client options) for the time limits.
func WithTimeouts(t sdk.Timeouts) Option { return Option(httpcore.WithTimeouts[*config](t)) }

// WithUserAgent puts the caller's product token before the SDK's User-Agent in the price
// API's requests. See [sdk] (Client options) for the User-Agent.
func WithUserAgent(product string) Option { return Option(httpcore.WithUserAgent[*config](product)) }

// WithWait bounds BuyKey's waits (default 90 seconds): only Timeout applies to the wait for
// the payment's confirmation; every field to the redemptions that follow (by default 5 at
// most, about 1 to 4 seconds apart). See [sdk] (Client options) for waiting.
func WithWait(w sdk.WaitPolicy) Option { return Option(httpcore.WithWait[*config](w)) }

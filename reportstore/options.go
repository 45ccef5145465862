package reportstore

import (
	"log/slog"
	"net/http"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/hexstr"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402"
)

// config is what the options of New configure.
type config struct {
	httpcore.Settings
	payer *x402.Payer
	payee string
}

// Option configures a Client; pass options to New.
type Option func(*config) error

// WithBaseURL sets the store's address, {base_url} in its API description; the store's paths
// (/catalog, /report/<id>, ...) carry no prefix. Without it REPORTSTORE_URL is read.
// See [sdk] (Client options) for the rule.
func WithBaseURL(rawURL string) Option { return Option(httpcore.WithBaseURL[*config](rawURL)) }

// WithClock sets the clock that paces the client and reads its answers' times.
// See [sdk] (Client options) for the clock.
func WithClock(clock sdk.Clock) Option { return Option(httpcore.WithClock[*config](clock)) }

// WithExpectedPayee sets the only address the client agrees to pay: the store pays one fixed
// address for every report. A challenge naming any other payTo is refused before anything is
// signed, with a *PayeeMismatchError, by Quote and by every purchase. The address must be a
// 0x-prefixed 20-byte hex address; letter case does not matter.
func WithExpectedPayee(address string) Option {
	return func(c *config) error {
		if !hexstr.IsAddress(address) {
			return &sdk.ValidationError{Field: "expected payee", Reason: "must be a 0x-prefixed 20-byte hex address"}
		}
		c.payee = address
		return nil
	}
}

// WithHTTPClient sets the *http.Client that sends requests; the payer of WithPayer wraps its
// Transport for purchases. See [sdk] (Client options) for how it is used.
func WithHTTPClient(hc *http.Client) Option { return Option(httpcore.WithHTTPClient[*config](hc)) }

// WithLogger sets the logger of one metadata-only record per attempt; payment headers are
// never logged. See [sdk] (Client options) for what is logged.
func WithLogger(l *slog.Logger) Option { return Option(httpcore.WithLogger[*config](l)) }

// WithPayer sets the x402 payer that pays for reports: Report, OpenReport and Fetch send
// their requests through payer.RoundTripper, so each purchase pays the amount of its own most
// recent 402 challenge, within the payer's policy (per-payment cap, total budget, allowed
// payees and networks), and the payer's running total covers every purchase. Without a payer
// a purchase fails with a *PaymentRequiredError and pays nothing. A nil payer is refused.
func WithPayer(payer *x402.Payer) Option {
	return func(c *config) error {
		if payer == nil {
			return &sdk.ValidationError{Field: "payer", Reason: "must not be nil"}
		}
		c.payer = payer
		return nil
	}
}

// WithRequestsPerMinute paces every attempt, purchases included; the store publishes no
// limit, so the client is unpaced by default. See [sdk] (Client options) for pacing.
func WithRequestsPerMinute(n int) Option {
	return Option(httpcore.WithRequestsPerMinute[*config](n))
}

// WithRetry sets the retry policy of the free requests (Catalog, Preview, Start, Quote);
// purchases are never retried, since a repeat would pay again. See [sdk] (Client options) for
// the policy.
func WithRetry(p sdk.RetryPolicy) Option { return Option(httpcore.WithRetry[*config](p)) }

// WithTimeouts sets how long the client waits for an answer; a purchase is one attempt, ended
// within Attempt. See [sdk] (Client options) for the bounds.
func WithTimeouts(t sdk.Timeouts) Option { return Option(httpcore.WithTimeouts[*config](t)) }

// WithUserAgent puts the caller's product token before the SDK's User-Agent.
// See [sdk] (Client options) for the header.
func WithUserAgent(product string) Option { return Option(httpcore.WithUserAgent[*config](product)) }

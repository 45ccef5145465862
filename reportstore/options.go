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

// WithBaseURL sets the store's address, {base_url} in its API description (such as
// https://host or https://host/proxy); the store's paths (/catalog, /report/<id>, ...) carry no
// prefix and are added to it. Without it the REPORTSTORE_URL environment variable is used.
func WithBaseURL(rawURL string) Option { return Option(httpcore.WithBaseURL[*config](rawURL)) }

// WithHTTPClient sets the *http.Client that sends requests (it must not be nil); its
// Transport, Timeout and Jar are used as they are, the client is never changed, and its idle
// connections are never closed. The payer of WithPayer wraps its Transport for purchases. Without
// it the client uses its own transport, which keeps up to 100 idle connections per host.
func WithHTTPClient(hc *http.Client) Option { return Option(httpcore.WithHTTPClient[*config](hc)) }

// WithLogger sets a *slog.Logger that receives one metadata-only record per attempt
// (service, method, host, path, status, attempt, duration); logging is off by default.
// Payment headers, query strings and bodies are never logged.
func WithLogger(l *slog.Logger) Option { return Option(httpcore.WithLogger[*config](l)) }

// WithRetry sets the retry policy of the free requests (Catalog, Preview, Start, Quote);
// zero fields keep their defaults and sdk.RetryPolicy{MaxAttempts: 1} turns retries off.
// Purchases are never retried by the client: a repeated purchase would pay again. (The payer
// itself may re-send a paid request with the same signed payment, which cannot settle twice;
// see x402.WithResend.)
func WithRetry(p sdk.RetryPolicy) Option { return Option(httpcore.WithRetry[*config](p)) }

// WithUserAgent puts the caller's own product token (such as "my-agent/1.2") before the
// SDK's User-Agent.
func WithUserAgent(product string) Option { return Option(httpcore.WithUserAgent[*config](product)) }

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

// WithTimeouts sets how long the client waits for an answer's headers, for a whole attempt,
// and between reads of a streamed body (defaults 30s, 60s and 30s); zero fields keep their
// defaults. A purchase is one attempt: Report and Fetch end within Attempt, and OpenReport
// returns within it. The package documentation gives the longest each call can take.
func WithTimeouts(t sdk.Timeouts) Option { return Option(httpcore.WithTimeouts[*config](t)) }

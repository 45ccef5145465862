package hostingtest

import (
	"math"
	"time"

	"github.com/agentapis/sdk"
)

// DefaultToken is the API token of the account every Server starts with; its owner is
// DefaultOwner. Send it as "Authorization: Bearer " + DefaultToken or in X-API-Token.
const DefaultToken = "hostingtest-token-3f9c2a7d41b86e05c1d9a4f2"

// DefaultOwner is the owner of the account of DefaultToken.
const DefaultOwner = "demo"

// Option configures a Server.
type Option func(*config)

// account is a token and the owner it authenticates.
type account struct{ token, owner string }

// config collects the options.
type config struct {
	accounts     []account
	clock        sdk.Clock
	stripAuth    bool
	blockRawHTML bool
	blockPUT     bool
	latency      time.Duration
	failShare    float64
	failSeed     uint64
	maxBodyBytes int64
}

// WithAccount adds an account: token authenticates as owner. Several tokens may share an
// owner; they then see the same repositories. Server.AddAccount does the same later.
func WithAccount(token, owner string) Option {
	return func(c *config) { c.accounts = append(c.accounts, account{token, owner}) }
}

// WithClock sets the clock behind every timestamp the fake writes and records (default
// sdk.SystemClock); a test that moves time gives an sdktest.Clock.
func WithClock(clock sdk.Clock) Option { return func(c *config) { c.clock = clock } }

// WithGatewayStripsAuthorization puts a gateway in front of the service that removes the
// Authorization header: a request whose token travels only as "Authorization: Bearer" is
// answered 401, while X-API-Token still reaches the service.
func WithGatewayStripsAuthorization() Option { return func(c *config) { c.stripAuth = true } }

// WithCDNBlockRawHTML puts a CDN firewall in front of the service that answers 403 with an
// HTML block page (not the JSON envelope) to any PUT or POST whose JSON body has a content
// member holding raw HTML or XML markup. content_base64 passes, as the API description's
// remedy says. The package documentation lists the markers.
func WithCDNBlockRawHTML() Option { return func(c *config) { c.blockRawHTML = true } }

// WithCDNBlockPUT puts a CDN firewall in front of the service that answers 403 with an HTML
// block page to every PUT of a file, whatever its body, while a POST to the same address
// reaches the service (the API description's "switch a blocked PUT to POST" remedy).
func WithCDNBlockPUT() Option { return func(c *config) { c.blockPUT = true } }

// WithLatency makes every request wait d before it is handled, without holding any lock, so
// that hundreds of concurrent requests wait together. The wait ends early, leaving the request
// unanswered, when the client goes away or the server closes.
func WithLatency(d time.Duration) Option { return func(c *config) { c.latency = max(d, 0) } }

// WithWriteFailures makes a share (0 to 1) of file writes fail with HTTP 500 or 503 and an
// ok:false envelope, storing nothing. Which writes fail follows from seed alone: the package
// documentation gives the rule.
func WithWriteFailures(share float64, seed uint64) Option {
	return func(c *config) { c.failShare, c.failSeed = clampShare(share), seed }
}

// WithMaxBodyBytes sets the largest request body the service accepts (default
// DefaultMaxBodyBytes; n <= 0 keeps it); a larger one is answered 413.
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxBodyBytes = n
		}
	}
}

// DefaultMaxBodyBytes is the largest request body the fake accepts unless WithMaxBodyBytes
// says otherwise: 32 MiB.
const DefaultMaxBodyBytes = 32 << 20

// clampShare brings a failure share into [0, 1]; NaN is 0.
func clampShare(share float64) float64 {
	if math.IsNaN(share) {
		return 0
	}
	return min(max(share, 0), 1)
}

package productdatatest

import (
	"strings"
	"time"

	"github.com/agentapis/sdk"
)

// DefaultKey is the account key (Account-SK) the fake accepts unless WithKey names others.
// It has the length and alphabet of a real key: 32 lowercase letters and digits.
const DefaultKey = "pdfake7k2m9q4w1x8c3v6b5n0z7r2t4y"

// DefaultRequests is the request-unit balance a new fake starts with: the 6,500 requests of
// the smallest 200-QPM pack.
const DefaultRequests = 6500

// DefaultPerMinuteLimit is the per-minute call limit of the service's plans (200 QPM).
const DefaultPerMinuteLimit = 200

// DefaultTaskDuration is how long an asynchronous task takes from submission unless
// WithTaskDuration or WithTaskDurations says otherwise. The real service takes minutes to
// hours; the fake is quicker so that tests stay short.
const DefaultTaskDuration = 3 * time.Second

// Option configures a Server.
type Option func(*config)

// config collects the options.
type config struct {
	keys          []string
	requests      int
	clock         sdk.Clock
	taskDuration  time.Duration
	taskDurations map[string]time.Duration
	perMinute     int
	lowercase     bool
	gzipData      encodingScope
	gzipBody      encodingScope
	http401       bool
	whitelist     []string
	whitelistOn   bool
	failEvery     int
	costs         map[string]int
}

// encodingScope says which endpoints an encoding applies to: none, all, or the named ones
// (lower-case names).
type encodingScope struct {
	all       bool
	endpoints map[string]bool
}

// covers reports whether the scope applies to the endpoint (any letter case).
func (e encodingScope) covers(endpoint string) bool {
	return e.all || e.endpoints[strings.ToLower(endpoint)]
}

// scopeOf builds the scope of an encoding option: every endpoint when none is named.
func scopeOf(endpoints []string) encodingScope {
	if len(endpoints) == 0 {
		return encodingScope{all: true}
	}
	m := make(map[string]bool, len(endpoints))
	for _, e := range endpoints {
		m[strings.ToLower(e)] = true
	}
	return encodingScope{endpoints: m}
}

// WithKey makes the fake accept key instead of DefaultKey. Give it several times to accept
// several keys; they share one account (one balance and one per-minute window).
func WithKey(key string) Option {
	return func(c *config) { c.keys = append(c.keys, key) }
}

// WithRequests sets the initial request-unit balance (default DefaultRequests).
func WithRequests(n int) Option {
	return func(c *config) { c.requests = max(n, 0) }
}

// WithClock sets the clock behind every time-dependent behaviour: task completion, product
// freshness, the per-minute window, default dates and the timestamps in the data (default
// the wall clock). A test moves time on with a fake one (sdktest.NewClock and its Advance).
func WithClock(clock sdk.Clock) Option {
	return func(c *config) { c.clock = clock }
}

// WithTaskDuration sets how long every asynchronous task (a real-time product refresh or a
// review collection) takes from its submission (default DefaultTaskDuration).
func WithTaskDuration(d time.Duration) Option {
	return func(c *config) { c.taskDuration = max(d, 0) }
}

// WithTaskDurations sets the duration of the tasks of particular ASINs, overriding
// WithTaskDuration for them. ASINs match in any letter case.
func WithTaskDurations(byASIN map[string]time.Duration) Option {
	return func(c *config) {
		for asin, d := range byASIN {
			c.taskDurations[strings.ToUpper(asin)] = max(d, 0)
		}
	}
}

// WithPerMinuteLimit sets how many calls the account may make within any 60 seconds of the
// fake's clock (default DefaultPerMinuteLimit); further calls are answered with code 501 and
// not executed. Zero or less removes the limit.
func WithPerMinuteLimit(n int) Option {
	return func(c *config) { c.perMinute = max(n, 0) }
}

// WithLowercaseErrors makes every answer with a non-zero code use the short camelCase
// envelope {"code":N,"message":"..."}, as the 1688, Temu and TikTok sites always do.
func WithLowercaseErrors() Option {
	return func(c *config) { c.lowercase = true }
}

// WithGzipBase64Data makes successful answers of the named endpoints (of every endpoint when
// none is named) carry Data as a JSON string: the standard base64 of the gzip of the payload's
// JSON.
func WithGzipBase64Data(endpoints ...string) Option {
	return func(c *config) { c.gzipData = scopeOf(endpoints) }
}

// WithGzipBase64Body makes whole answers of the named endpoints (of every endpoint when none is
// named) arrive as the standard base64 of the gzip of the envelope's JSON, as the Shopee and
// Walmart sites always answer.
func WithGzipBase64Body(endpoints ...string) Option {
	return func(c *config) { c.gzipBody = scopeOf(endpoints) }
}

// WithHTTP401OnBadKey makes a missing or invalid key an HTTP 401 (carrying the usual code 401
// envelope) instead of the code in HTTP 200.
func WithHTTP401OnBadKey() Option {
	return func(c *config) { c.http401 = true }
}

// WithIPWhitelist turns the account's IP whitelist on: calls from any other address (the host
// part of the connection's remote address) are answered with code 400. With no address, every
// call is refused.
func WithIPWhitelist(addresses ...string) Option {
	return func(c *config) {
		c.whitelistOn = true
		c.whitelist = append(c.whitelist, addresses...)
	}
}

// WithFailEvery makes every n-th call that would otherwise execute fail with code -1
// (execution failed), consuming nothing. Server.InjectFaults fails particular requests.
func WithFailEvery(n int) Option {
	return func(c *config) { c.failEvery = max(n, 0) }
}

// WithCost sets the request units one executed call of endpoint consumes (default 1 for
// every endpoint, as the API description says). The service's published prices are higher for
// some endpoints; see the package documentation.
func WithCost(endpoint string, units int) Option {
	return func(c *config) { c.costs[strings.ToLower(endpoint)] = max(units, 0) }
}

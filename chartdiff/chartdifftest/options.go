package chartdifftest

import (
	"strings"
	"time"

	"github.com/agentapis/sdk"
)

// Option configures a Server.
type Option func(*config)

// ErrorShape is the JSON shape of the fake's error bodies. The API description does not show
// its error envelope, so the fake can send any of the three shapes clients must decode.
type ErrorShape int

// The error shapes.
const (
	// ErrorNested is {"error":{"code":"...","message":"..."}} (the default).
	ErrorNested ErrorShape = iota
	// ErrorFlat is {"code":"...","message":"..."}.
	ErrorFlat
	// ErrorString is {"error":"<code>","message":"..."}.
	ErrorString
)

// Quotas are the fake's rate limits. A zero field takes the service's value.
type Quotas struct {
	// AnonymousPerHour is the hourly request quota of one anonymous peer address (100).
	AnonymousPerHour int
	// GlobalAnonymousPerHour is the hourly quota shared by every anonymous caller (10,000; the
	// API description does not give its size).
	GlobalAnonymousPerHour int
	// KeyPerHour is the hourly request quota of one API key (1,000).
	KeyPerHour int
	// AnalysesPerDay is the daily analysis quota of one API key (200).
	AnalysesPerDay int
}

// The service's quotas.
const (
	DefaultAnonymousPerHour       = 100
	DefaultGlobalAnonymousPerHour = 10000
	DefaultKeyPerHour             = 1000
	DefaultAnalysesPerDay         = 200
)

// config collects the options.
type config struct {
	charts        int
	extra         []Chart
	accounts      []string
	clock         sdk.Clock
	upstreamDown  bool
	cacheDown     bool
	statsDown     bool
	limiterDown   bool
	gateway       bool
	dropped       []string
	quotas        Quotas
	analysisDelay time.Duration
	busyAfter     int
	sortFields    []string
	shape         ErrorShape
}

// WithCharts sets how many charts the generated cache holds, with ids 1 to n (default 200).
// See the package documentation for the data set.
func WithCharts(n int) Option { return func(c *config) { c.charts = max(n, 0) } }

// WithChart adds a chart to the cache, replacing a generated chart with the same id.
func WithChart(ch Chart) Option { return func(c *config) { c.extra = append(c.extra, ch) } }

// WithAccount adds a web account whose token (sent in x-hm-token) manages its keys. Without
// any, the server creates one account; Server.AccountToken returns its token.
func WithAccount(token string) Option {
	return func(c *config) { c.accounts = append(c.accounts, token) }
}

// WithClock sets the clock behind key expiry, quota windows and timestamps (default the wall
// clock); a test moves a fake one (sdktest.NewClock) on to expire keys and roll the windows
// over.
func WithClock(clock sdk.Clock) Option { return func(c *config) { c.clock = clock } }

// WithUpstreamDown makes the upstream game service unavailable: author and player lookups
// answer 502 upstream_unavailable. Server.SetUpstreamDown changes it later.
func WithUpstreamDown(down bool) Option { return func(c *config) { c.upstreamDown = down } }

// WithCacheDown makes the database unavailable: chart lookups, lists and analyses answer 502
// cache_unavailable. Server.SetCacheDown changes it later.
func WithCacheDown(down bool) Option { return func(c *config) { c.cacheDown = down } }

// WithStatsDown makes the statistics service unavailable: /stats answers 502
// stats_unavailable. Server.SetStatsDown changes it later.
func WithStatsDown(down bool) Option { return func(c *config) { c.statsDown = down } }

// WithLimiterDown makes the rate limiter fail: counted requests answer 503
// rate_limit_unavailable. Server.SetLimiterDown changes it later.
func WithLimiterDown(down bool) Option { return func(c *config) { c.limiterDown = down } }

// WithGatewayMangling puts the service's gateway in front of the fake: it overwrites the
// Authorization header and consumes x-api-key, so only x-phm-key carries a key through.
func WithGatewayMangling() Option { return func(c *config) { c.gateway = true } }

// WithDroppedHeaders puts a proxy in front of the fake that drops the named request headers,
// such as x-phm-key, to reproduce a key that silently does not arrive.
func WithDroppedHeaders(names ...string) Option {
	return func(c *config) {
		for _, n := range names {
			c.dropped = append(c.dropped, strings.ToLower(n))
		}
	}
}

// WithQuotas sets the rate limits; zero fields keep the service's values.
func WithQuotas(q Quotas) Option { return func(c *config) { c.quotas = q } }

// WithAnalysisDelay sets how long the fake engine takes for a chart that is not cached
// (default 0).
func WithAnalysisDelay(d time.Duration) Option { return func(c *config) { c.analysisDelay = d } }

// WithBusyRetryAfter makes 503 analysis_busy answers carry retry-after: seconds (by default
// they carry none).
func WithBusyRetryAfter(seconds int) Option { return func(c *config) { c.busyAfter = seconds } }

// WithSortFields restricts the sort fields the list accepts, as a server of another version
// might; the default is the nine fields of the API description.
func WithSortFields(fields ...string) Option {
	return func(c *config) { c.sortFields = append([]string(nil), fields...) }
}

// WithErrorShape sets the JSON shape of error bodies (default ErrorNested).
func WithErrorShape(s ErrorShape) Option { return func(c *config) { c.shape = s } }

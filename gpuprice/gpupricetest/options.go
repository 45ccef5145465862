package gpupricetest

import (
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402/usdc"
)

// Option configures a Server.
type Option func(*config)

// The fake's defaults.
const (
	// DefaultFreeQuota is the daily request quota of the free tier.
	DefaultFreeQuota = 10
	// DefaultProQuota is the daily request quota of a Pro key.
	DefaultProQuota = 1000
	// DefaultConfirmAfter is how many getSignatureStatuses calls it takes for a landed
	// transaction to be reported confirmed.
	DefaultConfirmAfter = 1
	// DefaultRedeemPath is the path of the key redemption operation.
	DefaultRedeemPath = "/v1/keys/redeem"
)

// config collects the options.
type config struct {
	clock        sdk.Clock
	treasury     *solana.PublicKey
	treasuryATA  bool
	confirmAfter int
	freeQuota    int
	proQuota     int
	noRateHeader bool
	keys         []presetKey
	redeemPath   string
	mints        map[solana.PublicKey]uint8
}

// presetKey is an API key given with WithKey.
type presetKey struct {
	key     string
	plan    Plan
	expires time.Time
}

// defaultConfig returns the configuration without options.
func defaultConfig() config {
	return config{
		clock:        sdk.SystemClock(),
		treasuryATA:  true,
		confirmAfter: DefaultConfirmAfter,
		freeQuota:    DefaultFreeQuota,
		proQuota:     DefaultProQuota,
		redeemPath:   DefaultRedeemPath,
		mints:        map[solana.PublicKey]uint8{USDCMint: usdc.Decimals},
	}
}

// WithClock sets the clock behind quotas (the UTC day), key expiry, block production and
// every timestamp (default the wall clock); a test moves time on with a fake one
// (sdktest.NewClock and its Advance). The node produces a block every 400 ms of it, so that
// blockhashes expire after 60 s.
func WithClock(clock sdk.Clock) Option { return func(c *config) { c.clock = clock } }

// WithTreasury sets the wallet that key payments must reach (by default the fake generates
// one); Server.Treasury reports it.
func WithTreasury(wallet solana.PublicKey) Option {
	return func(c *config) { c.treasury = &wallet }
}

// WithTreasuryATA says whether the treasury's USDC associated token account exists when the
// fake starts (default true). Without it, a payment must create it (the associated token
// account program's Create or CreateIdempotent) or its transfer fails as on a real cluster.
func WithTreasuryATA(exists bool) Option { return func(c *config) { c.treasuryATA = exists } }

// WithConfirmAfter sets after how many getSignatureStatuses calls asking for it a landed
// transaction is reported confirmed (default 1; 0 confirms it as it lands). Until then it is
// "processed" and cannot be redeemed.
func WithConfirmAfter(n int) Option { return func(c *config) { c.confirmAfter = max(n, 0) } }

// WithFreeQuota sets the daily request quota of the free tier (default 10).
func WithFreeQuota(n int) Option { return func(c *config) { c.freeQuota = max(n, 0) } }

// WithProQuota sets the daily request quota of a Pro key (default 1,000).
func WithProQuota(n int) Option { return func(c *config) { c.proQuota = max(n, 0) } }

// WithoutRateLimitHeaders makes the fake send no X-RateLimit-* and no Retry-After header,
// on a 429 as on any other answer, and leave reset_at out of the 429's body, so that a
// client must fall back to the next UTC midnight.
func WithoutRateLimitHeaders() Option { return func(c *config) { c.noRateHeader = true } }

// WithKey preloads an API key of the plan, valid until expires. NewServer panics on a plan
// other than PlanFree, PlanPro and PlanUnlimited, or on an empty key.
func WithKey(key string, plan Plan, expires time.Time) Option {
	return func(c *config) { c.keys = append(c.keys, presetKey{key, plan, expires}) }
}

// WithRedeemPath moves the key redemption operation (default DefaultRedeemPath), for
// clients whose redemption path is configured.
func WithRedeemPath(path string) Option { return func(c *config) { c.redeemPath = path } }

// WithMint adds an SPL token mint other than USDC to the fake cluster, so that tests can
// send a transfer of the wrong token; Server.FundToken funds accounts of it.
func WithMint(mint solana.PublicKey, decimals uint8) Option {
	return func(c *config) { c.mints[mint] = decimals }
}

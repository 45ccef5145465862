package x402

import (
	"context"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"time"

	"github.com/agentapis/sdk/internal/hexstr"
)

// DefaultMaxPerPayment is the per-payment cap of a Policy that sets none: 1 USDC, in atomic
// units (6 decimals).
const DefaultMaxPerPayment = 1_000_000

// DefaultMaxValidity is the longest an authorization stays valid when Policy.MaxValidity is
// not set.
const DefaultMaxValidity = 10 * time.Minute

// Policy bounds what a Payer may pay. It is checked before anything is signed; a refusal is a
// *PolicyError or a *NoUsableRequirementsError and nothing is signed.
//
// Amounts are in the token's atomic units (USDC has 6 decimals: 1000000 is 1 USDC). Payments
// in different assets are added up as the same unit, so allow only assets with the same
// decimals (the default allows USDC only).
type Policy struct {
	// MaxPerPayment caps a single payment; nil means DefaultMaxPerPayment (1 USDC), and zero
	// allows only free payments.
	MaxPerPayment *big.Int
	// MaxTotal caps the total of committed payments plus the ones in flight or of unknown
	// outcome; nil means no total cap (MaxPerPayment still applies to each payment).
	MaxTotal *big.Int
	// PayTo, when not empty, lists the only recipients that may be paid (any letter case).
	PayTo []string
	// Networks lists the EVM networks the payer may pay on, in CAIP-2 form (eip155:8453) or
	// by their x402 v1 names (base, base-sepolia...), which mean the same networks; empty
	// means NetworkBase (Base mainnet) only.
	Networks []string
	// Assets lists the token contracts the payer may pay with, on any allowed network; empty
	// means the USDC contract of each allowed network, which must then be one this package
	// knows (Base, Base Sepolia).
	Assets []string
	// AllowRequote lets the payer pay once more when the server answers a paid request with a
	// clean new 402 (nothing about the first payment in doubt) whose quote passes the policy.
	// Without it, that answer is a *PaymentRejectedError. The refused first authorization
	// stays counted against MaxTotal until it expires: both count.
	AllowRequote bool
	// MaxValidity caps how long a signed authorization stays valid (default
	// DefaultMaxValidity): validBefore is now plus the smaller of the server's
	// maxTimeoutSeconds and MaxValidity, so a server cannot make the payer sign an
	// authorization usable for years.
	MaxValidity time.Duration
	// RedirectOrigins lists the origins (scheme://host[:port], such as
	// "https://cdn.example") a request may be paid at after an HTTP redirect took it there
	// from another origin. A request is always paid on the origin it was sent to; without
	// this list, a redirect to another origin that asks for payment is refused with
	// ErrOriginNotAllowed and nothing is signed.
	RedirectOrigins []string
	// Approve, when set, sees every quote that passed the other rules, with its amount already
	// reserved, and may refuse it by returning an error. It gets a copy: changing the quote
	// changes nothing that is signed. It runs on the request's goroutine with the request's
	// context, so it may be called concurrently; a slow hook holds its reservation meanwhile.
	Approve func(ctx context.Context, q Quote) error
}

// Quote is a payment the payer is about to sign, shown to Policy.Approve.
type Quote struct {
	// Requirements is the accepts entry chosen; its Amount is what will be paid.
	Requirements PaymentRequirements
	// Network is the entry's network in CAIP-2 form (v1 names are translated).
	Network string
	// Resource describes what is paid for, as the server describes it.
	Resource *ResourceInfo
	// Method and URL identify the request being paid for.
	Method string
	URL    *url.URL
	// Requote reports that the server refused a first payment for this request and asked for
	// this one instead (Policy.AllowRequote).
	Requote bool
}

// rules is a Policy checked and normalised by NewPayer.
type rules struct {
	maxPer       *big.Int
	maxTotal     *big.Int
	maxValidity  time.Duration
	origins      map[string]bool            // normalised origins allowed after a redirect
	payTo        map[string]bool            // lower-case addresses; nil allows any
	assets       map[string]map[string]bool // CAIP-2 network -> lower-case assets
	allowRequote bool
	approve      func(context.Context, Quote) error
}

// newRules checks p and returns its normalised form.
func newRules(p Policy) (*rules, error) {
	r := &rules{allowRequote: p.AllowRequote, approve: p.Approve, maxValidity: p.MaxValidity,
		origins: map[string]bool{}}
	switch {
	case p.MaxValidity < 0:
		return nil, invalid("Policy.MaxValidity", "must not be negative")
	case p.MaxValidity == 0:
		r.maxValidity = DefaultMaxValidity
	case p.MaxValidity < time.Second:
		return nil, invalid("Policy.MaxValidity", "must be at least one second")
	}
	for _, o := range p.RedirectOrigins {
		origin, ok := parseOrigin(o)
		if !ok {
			return nil, invalid("Policy.RedirectOrigins", "each entry must be an origin such as https://host or https://host:8443")
		}
		r.origins[origin] = true
	}
	switch {
	case p.MaxPerPayment == nil:
		r.maxPer = big.NewInt(DefaultMaxPerPayment)
	case p.MaxPerPayment.Sign() < 0:
		return nil, invalid("Policy.MaxPerPayment", "must not be negative")
	default:
		r.maxPer = new(big.Int).Set(p.MaxPerPayment)
	}
	if p.MaxTotal != nil {
		if p.MaxTotal.Sign() < 0 {
			return nil, invalid("Policy.MaxTotal", "must not be negative")
		}
		r.maxTotal = new(big.Int).Set(p.MaxTotal)
	}
	if len(p.PayTo) > 0 {
		r.payTo = make(map[string]bool, len(p.PayTo))
		for _, a := range p.PayTo {
			if !hexstr.IsAddress(a) {
				return nil, invalid("Policy.PayTo", "each entry must be a 0x-prefixed 20-byte hex address")
			}
			r.payTo[strings.ToLower(a)] = true
		}
	}
	assets := make(map[string]bool, len(p.Assets))
	for _, a := range p.Assets {
		if !hexstr.IsAddress(a) {
			return nil, invalid("Policy.Assets", "each entry must be a 0x-prefixed 20-byte hex address")
		}
		assets[strings.ToLower(a)] = true
	}
	networks := p.Networks
	if len(networks) == 0 {
		networks = []string{NetworkBase}
	}
	r.assets = make(map[string]map[string]bool, len(networks))
	for _, given := range networks {
		n, err := normalizeNetwork(given)
		if err != nil {
			return nil, invalid("Policy.Networks", fmt.Sprintf("%q is neither a CAIP-2 network id such as eip155:8453 nor an x402 v1 name such as base", given))
		}
		if _, err := evmChainID(n); err != nil {
			return nil, invalid("Policy.Networks", fmt.Sprintf("%q %v", n, err))
		}
		if len(assets) > 0 {
			r.assets[n] = assets
			continue
		}
		usdc, ok := knownUSDC[n]
		if !ok {
			return nil, invalid("Policy.Assets", fmt.Sprintf("no known USDC contract on %s: list the token contracts to pay with", n))
		}
		r.assets[n] = map[string]bool{strings.ToLower(usdc): true}
	}
	return r, nil
}

// supports returns why the payer cannot pay entry r at all, or "" when it can.
func (ru *rules) supports(r *PaymentRequirements) string {
	if !r.Usable() {
		return r.Unusable
	}
	if r.Scheme != SchemeExact {
		return fmt.Sprintf("scheme %q is not supported", r.Scheme)
	}
	network, err := normalizeNetwork(r.Network)
	if err != nil || ru.assets[network] == nil {
		return fmt.Sprintf("network %q is not allowed by the policy", r.Network)
	}
	if !ru.assets[network][strings.ToLower(r.Asset)] {
		return fmt.Sprintf("asset %s is not allowed on %s by the policy", r.Asset, network)
	}
	return ""
}

// check applies the rules that do not depend on the running total to a supported entry.
func (ru *rules) check(r *PaymentRequirements) error {
	if r.Amount.Cmp(ru.maxPer) > 0 {
		return &PolicyError{Rule: ErrAmountOverCap, Requirements: *r, Limit: new(big.Int).Set(ru.maxPer)}
	}
	if ru.payTo != nil && !ru.payTo[strings.ToLower(r.PayTo)] {
		return &PolicyError{Rule: ErrPayToNotAllowed, Requirements: *r}
	}
	return nil
}

// choose returns the first accepts entry the payer supports and the policy allows. When the
// policy refuses every supported entry, the refusal of the first is returned.
func (ru *rules) choose(pr *PaymentRequired) (*PaymentRequirements, error) {
	reasons := make([]string, 0, len(pr.Accepts))
	var refusal error
	for i := range pr.Accepts {
		r := &pr.Accepts[i]
		if why := ru.supports(r); why != "" {
			reasons = append(reasons, fmt.Sprintf("accepts[%d]: %s", i, why))
			continue
		}
		if err := ru.check(r); err != nil {
			if refusal == nil {
				refusal = err
			}
			reasons = append(reasons, fmt.Sprintf("accepts[%d]: %v", i, err))
			continue
		}
		return r, nil
	}
	if refusal != nil {
		return nil, refusal
	}
	return nil, &NoUsableRequirementsError{Reasons: reasons}
}

// parseOrigin normalises an origin written as scheme://host[:port] (lower case, default
// ports dropped); it reports false for anything else.
func parseOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	return originOf(u), true
}

// originOf returns the origin of u: lower-case scheme and host, and the port unless it is the
// scheme's default.
func originOf(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		return scheme + "://" + host + ":" + port
	}
	return scheme + "://" + host
}

// validity returns how long an authorization for r may stay valid: the server's
// maxTimeoutSeconds, capped by the policy.
func (ru *rules) validity(r *PaymentRequirements) time.Duration {
	return min(time.Duration(r.MaxTimeoutSeconds)*time.Second, ru.maxValidity)
}

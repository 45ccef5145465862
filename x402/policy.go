package x402

import (
	"context"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/wire"
)

// DefaultMaxPerPayment is the per-payment cap of a Policy that sets none: 1 USDC, in atomic
// units (6 decimals), as the reference client's.
const DefaultMaxPerPayment = 1_000_000

// DefaultMaxValidity is the longest a payment stays valid when Policy.MaxValidity is not
// set.
const DefaultMaxValidity = 10 * time.Minute

// Policy bounds what a Payer may pay. It is checked before anything is signed; a refusal is a
// *PolicyError or a *NoUsableRequirementsError and nothing is signed.
//
// Amounts are in the token's atomic units (USDC has 6 decimals: 1000000 is 1 USDC). Payments
// in different assets are added up as the same unit, so allow only assets with the same
// decimals (the default allows USDC only). Addresses are compared per chain family: EVM hex
// in any letter case, Solana base58 exactly.
type Policy struct {
	// MaxPerPayment caps a single payment; nil means DefaultMaxPerPayment (1 USDC), and zero
	// allows only free payments.
	MaxPerPayment *big.Int
	// MaxTotal caps the total of committed payments plus the ones in flight or of unknown
	// outcome, in the payer's own budget. It is required, unless the payer draws on a budget
	// given with WithBudget (then it must be nil): budget.Unlimited says, on purpose, that
	// the total is not capped.
	MaxTotal *big.Int
	// PayTo, when not empty, lists the only recipients that may be paid.
	PayTo []string
	// Networks lists the networks the payer may pay on, in CAIP-2 form (eip155:8453,
	// solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp) or by their x402 v1 names (base, solana...),
	// which mean the same networks; each must be one a scheme of the payer pays on. Empty
	// means each scheme's default network (Base mainnet for EVM, Solana mainnet).
	Networks []string
	// Assets lists the tokens the payer may pay with (contracts, mints), on any allowed
	// network of their chain family; empty means the USDC of each allowed network, which
	// must then be one the network's scheme knows.
	Assets []string
	// AllowRequote lets the payer pay once more when the server answers a paid request with a
	// clean new 402 (nothing about the first payment in doubt) whose quote passes the policy.
	// Without it, that answer is a *PaymentRejectedError. The refused first payment stays
	// counted against the budget until it expires: both count.
	AllowRequote bool
	// MaxValidity caps how long a signed payment stays valid (default DefaultMaxValidity):
	// an EVM authorization's validBefore is now plus the smaller of the server's
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
	Requirements wire.PaymentRequirements
	// Network is the entry's network in CAIP-2 form (v1 names are translated).
	Network string
	// Resource describes what is paid for, as the server describes it.
	Resource *wire.ResourceInfo
	// Method and URL identify the request being paid for. For a payment of another
	// transport (Payer.Prepare), Method is empty and URL is the resource it names, such as
	// mcp://tool/search.
	Method string
	URL    *url.URL
	// Requote reports that the server refused a first payment for this request and asked for
	// this one instead (Policy.AllowRequote).
	Requote bool
}

// rules is a Policy checked and normalised against the payer's schemes by NewPayer.
type rules struct {
	maxPer       *big.Int
	maxValidity  time.Duration
	origins      map[string]bool            // normalised origins allowed after a redirect
	payTo        map[string]bool            // canonical addresses; nil allows any
	assets       map[string]map[string]bool // CAIP-2 network -> canonical assets
	prefer       []string                   // networks or "namespace:*", most wanted first
	allowRequote bool
	approve      func(context.Context, Quote) error
	schemes      []Scheme
}

// newRules checks p against schemes and returns its normalised form.
func newRules(p Policy, schemes []Scheme) (*rules, error) {
	r := &rules{allowRequote: p.AllowRequote, approve: p.Approve, maxValidity: p.MaxValidity,
		origins: map[string]bool{}, schemes: schemes}
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
	if len(p.PayTo) > 0 {
		r.payTo = make(map[string]bool, len(p.PayTo))
		for _, a := range p.PayTo {
			c, ok := r.canonical(a, "")
			if !ok {
				return nil, invalid("Policy.PayTo", fmt.Sprintf("%q is not an address any scheme of the payer pays to", a))
			}
			r.payTo[c] = true
		}
	}
	for _, a := range p.Assets {
		if _, ok := r.canonical(a, ""); !ok {
			return nil, invalid("Policy.Assets", fmt.Sprintf("%q is not a token address of any scheme of the payer", a))
		}
	}
	networks := p.Networks
	if len(networks) == 0 {
		for _, s := range schemes {
			networks = append(networks, s.DefaultNetwork())
		}
	}
	r.assets = make(map[string]map[string]bool, len(networks))
	for _, given := range networks {
		n, err := wire.NormalizeNetwork(given)
		if err != nil {
			return nil, invalid("Policy.Networks", fmt.Sprintf("%q %v", given, err))
		}
		if err := r.allowNetwork(n, p.Assets); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// allowNetwork adds network n (CAIP-2) with the assets of its chain family among assets, or
// its USDC when assets is empty.
func (r *rules) allowNetwork(n string, assets []string) error {
	ns := wire.Namespace(n)
	var payers []Scheme
	for _, s := range r.schemes {
		if s.Namespace() == ns {
			payers = append(payers, s)
		}
	}
	if len(payers) == 0 {
		return invalid("Policy.Networks", fmt.Sprintf("%q: no scheme of the payer pays on %s networks", n, ns))
	}
	allowed := r.assets[n]
	if allowed == nil {
		allowed = map[string]bool{}
		r.assets[n] = allowed
	}
	for _, a := range assets {
		if c, ok := r.canonical(a, ns); ok {
			allowed[c] = true
		}
	}
	if len(assets) > 0 {
		if len(allowed) == 0 {
			return invalid("Policy.Assets", fmt.Sprintf("lists no token of %s, which Policy.Networks allows", n))
		}
		return nil
	}
	for _, s := range payers {
		if usdc, ok := s.USDC(n); ok {
			c, _ := s.Address(usdc)
			allowed[c] = true
		}
	}
	if len(allowed) == 0 {
		return invalid("Policy.Assets", fmt.Sprintf("no known USDC on %s: list the tokens to pay with", n))
	}
	return nil
}

// canonical returns the canonical form of address a under the first scheme (of namespace
// ns, or of any when ns is "") that reads it.
func (r *rules) canonical(a, ns string) (string, bool) {
	for _, s := range r.schemes {
		if ns != "" && s.Namespace() != ns {
			continue
		}
		if c, err := s.Address(a); err == nil {
			return c, true
		}
	}
	return "", false
}

// schemeOf returns the scheme that pays entry r, or nil.
func (r *rules) schemeOf(e *wire.PaymentRequirements) Scheme {
	ns := wire.Namespace(e.Network)
	for _, s := range r.schemes {
		if s.Scheme() == e.Scheme && s.Namespace() == ns {
			return s
		}
	}
	return nil
}

// supports returns the scheme that pays entry e and why the payer cannot pay it at all
// ("" when it can).
func (r *rules) supports(e *wire.PaymentRequirements) (Scheme, string) {
	if !e.Usable() {
		return nil, e.Unusable
	}
	s := r.schemeOf(e)
	if s == nil {
		return nil, fmt.Sprintf("no scheme of the payer pays %q on %q", e.Scheme, e.Network)
	}
	network, _ := wire.NormalizeNetwork(e.Network) // Usable: it normalises
	if r.assets[network] == nil {
		return nil, fmt.Sprintf("network %q is not allowed by the policy", e.Network)
	}
	if err := s.Check(e); err != nil {
		return nil, err.Error()
	}
	if asset, err := s.Address(e.Asset); err != nil || !r.assets[network][asset] {
		return nil, fmt.Sprintf("asset %s is not allowed on %s by the policy", e.Asset, network)
	}
	return s, ""
}

// check applies the rules that do not depend on the budget to a supported entry.
func (r *rules) check(s Scheme, e *wire.PaymentRequirements) error {
	if e.Amount.Cmp(r.maxPer) > 0 {
		return &PolicyError{Rule: ErrAmountOverCap, Requirements: *e, Limit: new(big.Int).Set(r.maxPer)}
	}
	if r.payTo != nil {
		if c, err := s.Address(e.PayTo); err != nil || !r.payTo[c] {
			return &PolicyError{Rule: ErrPayToNotAllowed, Requirements: *e}
		}
	}
	return nil
}

// choose returns the accepts entry the payer pays and its scheme: the first, in the
// preference order (WithPreference, else the server's), that a scheme supports and the
// policy allows. When the policy refuses every supported entry, the refusal of the first is
// returned.
func (r *rules) choose(pr *wire.PaymentRequired) (*wire.PaymentRequirements, Scheme, error) {
	reasons := make([]string, 0, len(pr.Accepts))
	var refusal error
	for _, i := range r.order(pr.Accepts) {
		e := &pr.Accepts[i]
		s, why := r.supports(e)
		if why != "" {
			reasons = append(reasons, fmt.Sprintf("accepts[%d]: %s", i, why))
			continue
		}
		if err := r.check(s, e); err != nil {
			if refusal == nil {
				refusal = err
			}
			reasons = append(reasons, fmt.Sprintf("accepts[%d]: %v", i, err))
			continue
		}
		return e, s, nil
	}
	if refusal != nil {
		return nil, nil, refusal
	}
	return nil, nil, &NoUsableRequirementsError{Reasons: reasons}
}

// order returns the indexes of accepts in the order the payer considers them: by the rank of
// their network in the preference list (an entry's exact network, or its "namespace:*"),
// unlisted networks last, each rank in the server's order.
func (r *rules) order(accepts []wire.PaymentRequirements) []int {
	idx := make([]int, len(accepts))
	for i := range idx {
		idx[i] = i
	}
	if len(r.prefer) == 0 {
		return idx
	}
	rank := func(i int) int {
		n, _ := wire.NormalizeNetwork(accepts[i].Network)
		for k, p := range r.prefer {
			if p == n || p == wire.Namespace(n)+":*" {
				return k
			}
		}
		return len(r.prefer)
	}
	slices.SortStableFunc(idx, func(a, b int) int { return rank(a) - rank(b) })
	return idx
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

// validity returns how long a payment for e may stay valid: the server's maxTimeoutSeconds,
// capped by the policy.
func (r *rules) validity(e *wire.PaymentRequirements) time.Duration {
	return min(time.Duration(e.MaxTimeoutSeconds)*time.Second, r.maxValidity)
}

// totalLimit returns the limit of the payer's own budget from p.MaxTotal, which is required.
func totalLimit(p Policy) (*big.Int, error) {
	switch {
	case p.MaxTotal == nil:
		return nil, invalid("Policy.MaxTotal", "is required: the total in atomic units (usdc.Dollars(10)), or budget.Unlimited")
	case p.MaxTotal != budget.Unlimited && p.MaxTotal.Sign() < 0:
		return nil, invalid("Policy.MaxTotal", "must not be negative")
	}
	return p.MaxTotal, nil
}

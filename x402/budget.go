package x402

import (
	"errors"
	"math/big"
	"sort"
	"sync"
	"time"
)

// ExpiryMargin is how long after its expiry a refused authorization stays counted: the
// chain's clock may run behind this machine's, and until it passes the expiry too the payee
// can still settle.
const ExpiryMargin = 2 * time.Minute

// Budget bounds what may leave a wallet, whatever the payment rail: x402 authorizations,
// and any other payment of the SDK that draws on it (such as gpuprice's USDC transfer on
// Solana). Amounts are in the token's atomic units (USDC has 6 decimals on every rail the SDK
// pays on), so every rail sharing a budget must pay in the same unit.
//
// A payment first reserves its amount (Reserve); nothing may be signed before. The Hold it
// gets then follows the payment:
//
//   - Release gives the amount back, and only while nothing was signed;
//   - Signed records what was signed (identifier, payee, expiry): from then on the amount
//     counts until it is committed, or until the authorization can no longer be used;
//   - Commit moves the amount to Spent: a success receipt or a 2xx answer proved the payment;
//   - Refused keeps the amount counted until the authorization expires (plus ExpiryMargin):
//     the server said no, but the payee still holds a valid authorization and could settle it;
//   - InDoubt keeps the amount counted for the life of the budget: the payment may have
//     settled (no answer, a 5xx, an answer to a re-sent request). Resolve ends that once the
//     caller has checked the chain.
//
// Nothing a server says releases a signed authorization early. A Budget is safe for
// concurrent use: however many goroutines pay at once, Spent plus Reserved never passes the
// limit.
type Budget struct {
	mu    sync.Mutex
	limit *big.Int // nil: no cap
	now   func() time.Time
	spent big.Int
	held  big.Int
	holds map[*Hold]struct{}
}

// BudgetOption configures a Budget.
type BudgetOption func(*Budget) error

// WithBudgetClock sets the clock that decides when a refused authorization has expired
// (default time.Now).
func WithBudgetClock(now func() time.Time) BudgetOption {
	return func(b *Budget) error {
		if now == nil {
			return invalid("budget clock", "must not be nil")
		}
		b.now = now
		return nil
	}
}

// NewBudget returns a budget of limit atomic units; a nil limit accounts for every payment
// without capping them. A negative limit is a *sdk.ValidationError.
func NewBudget(limit *big.Int, opts ...BudgetOption) (*Budget, error) {
	b := &Budget{now: time.Now, holds: make(map[*Hold]struct{})}
	if limit != nil {
		if limit.Sign() < 0 {
			return nil, invalid("budget limit", "must not be negative")
		}
		b.limit = new(big.Int).Set(limit)
	}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// HoldState is where a held payment stands.
type HoldState int

// The states of a Hold.
const (
	// HoldReserved: the amount is set aside; nothing is signed yet.
	HoldReserved HoldState = iota
	// HoldSigned: an authorization (or a transaction) was signed and may have left.
	HoldSigned
	// HoldRefused: the server refused the payment; it counts until it expires.
	HoldRefused
	// HoldInDoubt: the outcome is unknown; it counts until resolved.
	HoldInDoubt
	// HoldCommitted: the payment went through; its amount is in Spent.
	HoldCommitted
	// HoldReleased: the amount was given back.
	HoldReleased
)

// String names the state.
func (s HoldState) String() string {
	switch s {
	case HoldReserved:
		return "reserved"
	case HoldSigned:
		return "signed"
	case HoldRefused:
		return "refused"
	case HoldInDoubt:
		return "in doubt"
	case HoldCommitted:
		return "committed"
	case HoldReleased:
		return "released"
	}
	return "unknown"
}

// Signature describes what a hold's payment signed, so the outstanding payments can be
// listed and looked up on chain.
type Signature struct {
	// ID identifies the payment on its rail: the EIP-3009 nonce (0x hex) of an x402
	// authorization, the signature of a Solana transaction.
	ID string
	// Rail names the payment rail, such as "x402 eip155:8453" or "solana".
	Rail string
	// PayTo is the recipient.
	PayTo string
	// Expires is when the payment can no longer be used (validBefore; a blockhash's end).
	Expires time.Time
	// Resource describes what is paid for, such as the URL.
	Resource string
}

// Hold is an amount held in a Budget for one payment. Its methods are safe to call from any
// goroutine; a transition that does not apply to the hold's state is ignored, so that no
// late or repeated call can give back money that may have left.
type Hold struct {
	b      *Budget
	amount *big.Int
	state  HoldState
	sig    Signature
}

// Outstanding is a payment a budget still counts without having spent it.
type Outstanding struct {
	Signature
	// Amount is the amount held, in atomic units.
	Amount *big.Int
	// State is HoldReserved, HoldSigned, HoldRefused or HoldInDoubt.
	State HoldState
}

// ErrHoldSigned is returned by Release for a hold whose payment was signed: only a commit, its
// expiry or Resolve can end it.
var ErrHoldSigned = errors.New("x402: the payment was signed; its amount stays counted until it is committed or expires")

// Reserve holds amount when spent + held + amount stays within the limit. Otherwise it
// returns a *PolicyError matching ErrBudgetExceeded with the amount left, and holds nothing.
// A nil or negative amount is a *sdk.ValidationError.
func (b *Budget) Reserve(amount *big.Int) (*Hold, error) {
	if amount == nil || amount.Sign() < 0 {
		return nil, invalid("amount", "must be a non-negative number of atomic units")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expireLocked()
	if b.limit != nil {
		left := new(big.Int).Sub(b.limit, &b.spent)
		left.Sub(left, &b.held)
		if amount.Cmp(left) > 0 {
			return nil, &PolicyError{Rule: ErrBudgetExceeded, Requirements: PaymentRequirements{Amount: new(big.Int).Set(amount)}, Limit: left}
		}
	}
	h := &Hold{b: b, amount: new(big.Int).Set(amount), state: HoldReserved}
	b.held.Add(&b.held, amount)
	b.holds[h] = struct{}{}
	return h, nil
}

// Amount returns the amount held.
func (h *Hold) Amount() *big.Int { return new(big.Int).Set(h.amount) }

// State returns where the hold stands.
func (h *Hold) State() HoldState {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	h.b.expireLocked()
	return h.state
}

// Release gives the amount back, which is allowed only while nothing was signed; otherwise it
// returns ErrHoldSigned and keeps the amount counted.
func (h *Hold) Release() error {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	switch h.state {
	case HoldReserved:
		h.b.endLocked(h, HoldReleased)
		return nil
	case HoldReleased, HoldCommitted:
		return nil
	}
	return ErrHoldSigned
}

// Signed records that the payment was signed, and what was signed.
func (h *Hold) Signed(s Signature) {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	if h.state == HoldReserved {
		h.state, h.sig = HoldSigned, s
	}
}

// Commit records that the payment went through: its amount moves to Spent. It applies to any
// hold that was not released, since a receipt may come after a refusal or a doubt.
func (h *Hold) Commit() {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	switch h.state {
	case HoldReserved, HoldSigned, HoldRefused, HoldInDoubt:
		h.b.spent.Add(&h.b.spent, h.amount)
		h.b.endLocked(h, HoldCommitted)
	}
}

// Refused records that the server refused the signed payment: the amount stays counted until
// the authorization expires (plus ExpiryMargin).
func (h *Hold) Refused() {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	if h.state == HoldSigned {
		h.state = HoldRefused
	}
}

// InDoubt records that the outcome of the signed payment is unknown: the amount stays
// counted until Resolve or Commit.
func (h *Hold) InDoubt() {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	if h.state == HoldSigned || h.state == HoldRefused {
		h.state = HoldInDoubt
	}
}

// discard gives back the amount of a hold whose authorization was signed but never left the
// process (the request could not be built, or the context ended before it was sent): nobody
// else holds it, so it can never be used. Only the payer, which knows that, calls it.
func (h *Hold) discard() {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	if h.state == HoldReserved || h.state == HoldSigned {
		h.b.endLocked(h, HoldReleased)
	}
}

// endLocked ends h in state (HoldCommitted or HoldReleased); b.mu must be held.
func (b *Budget) endLocked(h *Hold, state HoldState) {
	b.held.Sub(&b.held, h.amount)
	h.state = state
	delete(b.holds, h)
}

// expireLocked releases the refused holds whose authorization has expired, margin included;
// b.mu must be held.
func (b *Budget) expireLocked() {
	now := b.now()
	for h := range b.holds {
		if h.state == HoldRefused && !h.sig.Expires.IsZero() && now.After(h.sig.Expires.Add(ExpiryMargin)) {
			b.endLocked(h, HoldReleased)
		}
	}
}

// Resolve ends an outstanding payment the caller has looked up on its rail, by its
// Signature.ID: settled true commits it; settled false releases it, but only once it has
// expired (plus ExpiryMargin), since until then it could still settle. It returns an error
// when no outstanding payment has that id, or when it has not expired yet.
func (b *Budget) Resolve(id string, settled bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expireLocked()
	for h := range b.holds {
		if h.sig.ID != id || h.state == HoldReserved {
			continue
		}
		if settled {
			b.spent.Add(&b.spent, h.amount)
			b.endLocked(h, HoldCommitted)
			return nil
		}
		if h.sig.Expires.IsZero() || !b.now().After(h.sig.Expires.Add(ExpiryMargin)) {
			return errors.New("x402: the payment has not expired yet; it could still settle")
		}
		b.endLocked(h, HoldReleased)
		return nil
	}
	return errors.New("x402: no outstanding payment has that id")
}

// Limit returns the budget's limit, nil when it has none.
func (b *Budget) Limit() *big.Int {
	if b.limit == nil {
		return nil
	}
	return new(big.Int).Set(b.limit)
}

// Spent returns the total of the payments that went through, in atomic units.
func (b *Budget) Spent() *big.Int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return new(big.Int).Set(&b.spent)
}

// Reserved returns the total held for payments not yet spent: reserved, signed, refused and
// not yet expired, or in doubt.
func (b *Budget) Reserved() *big.Int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expireLocked()
	return new(big.Int).Set(&b.held)
}

// Outstanding lists the payments the budget holds, oldest expiry first.
func (b *Budget) Outstanding() []Outstanding {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expireLocked()
	out := make([]Outstanding, 0, len(b.holds))
	for h := range b.holds {
		out = append(out, Outstanding{Signature: h.sig, Amount: new(big.Int).Set(h.amount), State: h.state})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Expires.Equal(out[j].Expires) {
			return out[i].Expires.Before(out[j].Expires)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

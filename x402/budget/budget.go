package budget

import (
	"context"
	"errors"
	"math/big"
	"time"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/addr"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/ledger"
)

// Budget bounds what may leave a wallet, on every rail that draws on it; see the package
// documentation. It is safe for concurrent use.
type Budget struct {
	lost    recovery // the operations whose answers were lost, being finished
	store   ledger.Store
	limits  ledger.Limits
	clock   sdk.Clock
	ownsMem bool // the store is the default in-memory one, made with clock
	change  bool // New records the limits in place of the store's (WithLimitChange)
}

// Option configures a Budget.
type Option func(*Budget) error

// WithStore keeps the budget's holds in s instead of in memory. A store serves one Budget:
// a second New on the same store fails.
func WithStore(s ledger.Store) Option {
	return func(b *Budget) error {
		if s == nil {
			return invalid("budget store", "must not be nil")
		}
		b.store = s
		return nil
	}
}

// WithClock sets the clock of the default in-memory store (default sdk.SystemClock()): it
// decides when a refused payment has expired and which payments a rolling window counts. A
// store given with WithStore has a clock of its own.
func WithClock(c sdk.Clock) Option {
	return func(b *Budget) error {
		if c == nil {
			return invalid("budget clock", "must not be nil")
		}
		b.clock = c
		return nil
	}
}

// WithWindowLimit bounds the payments reserved in every rolling window of length: at most
// maxAmount atomic units and at most maxPayments payments (a nil amount or a zero count
// leaves that part unbounded, not both). A payment counts in the window from its
// reservation for length, unless it is released; a committed or pending one keeps
// counting. Repeat it for several windows, such as a minute and a day.
func WithWindowLimit(length time.Duration, maxAmount *big.Int, maxPayments int) Option {
	return func(b *Budget) error {
		b.limits.Windows = append(b.limits.Windows, ledger.Window{Length: length, Amount: maxAmount, Count: maxPayments})
		return nil
	}
}

// WithPayeeLimit bounds what any one payee may get, spent and held together, over the life
// of the budget; WithPayeeLimitFor sets another bound for a given payee.
func WithPayeeLimit(max *big.Int) Option {
	return func(b *Budget) error {
		b.limits.PerPayee = max
		return nil
	}
}

// WithPayeeLimitFor bounds what payTo may get, spent and held together, over the life of the
// budget, instead of WithPayeeLimit's bound. Addresses are compared per chain family: an EVM
// address in any letter case, a Solana address exactly.
func WithPayeeLimitFor(payTo string, max *big.Int) Option {
	return func(b *Budget) error {
		if b.limits.Payees == nil {
			b.limits.Payees = make(map[string]*big.Int)
		}
		b.limits.Payees[addr.Canonical(payTo)] = max
		return nil
	}
}

// WithPaymentLimit bounds the amount of one payment, on every rail that draws on the
// budget (a Payer's Policy.MaxPerPayment bounds its own payments too).
func WithPaymentLimit(max *big.Int) Option {
	return func(b *Budget) error {
		b.limits.PerPayment = max
		return nil
	}
}

// WithLimitChange makes New record this budget's limits in its store in place of the ones
// the store holds, on purpose (ledger.Store's ChangeLimits): every hold and Spent stay, and
// later reservations are checked against the new limits (a total below Spent refuses every
// payment, and its *LimitError says so). Without it, a durable store whose
// recorded limits differ refuses with ledger.ErrLimitsDiffer, so that no process enforces
// other limits than its fleet by mistake.
func WithLimitChange() Option {
	return func(b *Budget) error {
		b.change = true
		return nil
	}
}

// Unlimited is the limit of a budget that accounts for every payment without capping their
// total, New(Unlimited), and of a Policy that says so (MaxTotal: budget.Unlimited): spending
// without end is never what a nil or missing limit means. It is recognised by identity:
// never change it. The budget's other limits, and a payer's MaxPerPayment, still apply.
var Unlimited = big.NewInt(-1)

// New returns a budget of limit atomic units in all (spent and held together), or one
// without a total limit when limit is Unlimited. A nil or negative limit, or an invalid
// option, is a *sdk.ValidationError; a store that cannot record the limits a *StoreError
// (ledger.ErrLimitsDiffer when a durable store holds other limits).
func New(limit *big.Int, opts ...Option) (*Budget, error) {
	b := &Budget{}
	switch {
	case limit == Unlimited:
	case limit == nil:
		return nil, invalid("budget limit", "is required: the total in atomic units (usdc.Dollars(10)), or budget.Unlimited")
	case limit.Sign() < 0:
		return nil, invalid("budget limit", "must not be negative")
	default:
		b.limits.Total = new(big.Int).Set(limit)
	}
	if err := httpcore.Configure("x402", b, opts); err != nil {
		return nil, err
	}
	if err := b.limits.Validate(); err != nil {
		return nil, storeError("configure", err)
	}
	b.limits = b.limits.Clone()
	switch {
	case b.store == nil:
		b.clock = cmpClock(b.clock)
		b.store, b.ownsMem = ledger.NewMemory(b.clock), true
	case b.clock != nil:
		return nil, invalid("budget clock", "is the store's own: give it to the store, not to the budget")
	default:
		b.clock = sdk.SystemClock()
	}
	configure := b.store.Configure
	if b.change {
		configure = b.store.ChangeLimits
	}
	if err := configure(context.Background(), b.limits); err != nil {
		return nil, storeError("configure", err)
	}
	return b, nil
}

// cmpClock returns c, or the system clock when c is nil.
func cmpClock(c sdk.Clock) sdk.Clock {
	if c == nil {
		return sdk.SystemClock()
	}
	return c
}

// Clock returns the clock the budget's callers should read for their own decisions about
// its payments (a reconciler's, a payer's): the in-memory store's clock, or the system clock
// for a store given with WithStore.
func (b *Budget) Clock() sdk.Clock { return b.clock }

// Limit returns the budget's total limit, nil when it has none.
func (b *Budget) Limit() *big.Int {
	if b.limits.Total == nil {
		return nil
	}
	return new(big.Int).Set(b.limits.Total)
}

// Limits returns a copy of every limit the budget enforces.
func (b *Budget) Limits() ledger.Limits { return b.limits.Clone() }

// Reserve holds r.Amount when every limit allows it. Otherwise it returns a *LimitError
// (matching ErrAmountOverCap, ErrBudgetExceeded, ErrWindowExceeded, ErrPaymentCountExceeded
// or ErrPayeeLimitExceeded) saying what is left and when enough frees up (or, from a budget
// that has spent more than its total limit, that it has: LimitError.Spent), and holds nothing.
// A nil or negative amount, or a missing payee when the budget limits payees, is a
// *sdk.ValidationError; a failure of the store a *StoreError.
//
// r.PayTo is compared per chain family (an EVM address in any letter case, a Solana address
// exactly). When the store's answer is lost (ctx ends, a connection breaks), the reservation
// is looked up again by the identifier made before the call and released if it was made, so
// that a failed Reserve never leaves an amount held.
func (b *Budget) Reserve(ctx context.Context, r ledger.Reservation) (*Hold, error) {
	if r.Amount == nil || r.Amount.Sign() < 0 {
		return nil, invalid("amount", "must be a non-negative number of atomic units")
	}
	if r.PayTo == "" && (b.limits.PerPayee != nil || len(b.limits.Payees) > 0) {
		return nil, invalid("payTo", "must name the payee: the budget limits what each payee gets")
	}
	r.Amount = new(big.Int).Set(r.Amount)
	r.PayTo = addr.Canonical(r.PayTo)
	id := ledger.NewHoldID()
	if err := b.store.Reserve(ctx, id, r); err != nil {
		var refusal *ledger.Refusal
		if errors.As(err, &refusal) {
			le := limitError(refusal, r)
			b.overspent(ctx, le)
			return nil, le
		}
		if lost(err) {
			b.lost.start(b.store, id, ledger.Released)
		}
		return nil, storeError("reserve", err)
	}
	return &Hold{b: b, id: id, r: r}, nil
}

// overspent sets le.Spent when the total limit refused because the budget has spent more
// than that limit: a durable budget reopened with a lower limit (WithLimitChange) than it had
// spent. Every payment is then refused until the limit is raised, and the refusal says so
// rather than only "$0.00 left". A store that cannot say what was spent leaves le as it is.
func (b *Budget) overspent(ctx context.Context, le *LimitError) {
	if !errors.Is(le.Rule, ErrBudgetExceeded) || le.Left == nil || le.Left.Sign() > 0 {
		return
	}
	spent, err := b.Spent(ctx)
	if err == nil && spent.Cmp(le.Max) > 0 {
		le.Spent = spent
	}
}

// Resolve ends an outstanding payment the caller has looked up on its rail, by its
// Signature.ID: settled true commits it; settled false releases it, but only once it has
// expired (plus ledger.ExpiryMargin) on the store's clock, since until then it could still
// settle. It returns ErrPaymentNotFound when no outstanding payment has that id, and
// ErrPaymentNotExpired when it could still settle.
func (b *Budget) Resolve(ctx context.Context, paymentID string, settled bool) error {
	return storeError("resolve", b.store.Resolve(ctx, paymentID, settled))
}

// Totals returns what was spent (the payments that went through) and what is reserved
// (held for payments not yet spent: reserved, signed, refused and not yet expired, or in
// doubt), in atomic units.
func (b *Budget) Totals(ctx context.Context) (spent, reserved *big.Int, err error) {
	t, err := b.store.Totals(ctx)
	if err != nil {
		return nil, nil, storeError("totals", err)
	}
	return t.Spent, t.Held, nil
}

// Spent returns the total of the payments that went through, in atomic units.
func (b *Budget) Spent(ctx context.Context) (*big.Int, error) {
	spent, _, err := b.Totals(ctx)
	return spent, err
}

// Reserved returns the total held for payments not yet spent: reserved, signed, refused and
// not yet expired, or in doubt.
func (b *Budget) Reserved(ctx context.Context) (*big.Int, error) {
	_, reserved, err := b.Totals(ctx)
	return reserved, err
}

// Left returns what the total limit has left (limit - spent - reserved, never negative), and
// false when the budget has no total limit.
func (b *Budget) Left(ctx context.Context) (*big.Int, bool, error) {
	if b.limits.Total == nil {
		return nil, false, nil
	}
	spent, reserved, err := b.Totals(ctx)
	if err != nil {
		return nil, true, err
	}
	left := new(big.Int).Sub(b.limits.Total, spent)
	left.Sub(left, reserved)
	if left.Sign() < 0 {
		left.SetInt64(0)
	}
	return left, true, nil
}

// Outstanding lists the payments the budget holds, oldest expiry first (reserved, unsigned
// ones first); an empty list when nothing is held.
func (b *Budget) Outstanding(ctx context.Context) ([]ledger.Outstanding, error) {
	out, err := b.store.Outstanding(ctx)
	if err != nil {
		return nil, storeError("outstanding", err)
	}
	return out, nil
}

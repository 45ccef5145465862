package x402

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"time"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/ledger"
)

// ExpiryMargin (two minutes) is how long after its expiry a refused authorization stays
// counted: the chain's clock may run behind this machine's, and until it passes the expiry
// too the payee can still settle.
const ExpiryMargin = ledger.ExpiryMargin

// Budget bounds what may leave a wallet, whatever the payment rail: x402 authorizations,
// and any other payment of the SDK that draws on it (such as gpuprice's USDC transfer on
// Solana). Amounts are in the token's atomic units (USDC has 6 decimals on every rail the SDK
// pays on), so every rail sharing a budget must pay in the same unit.
//
// A payment first reserves its amount (Reserve); nothing may be signed before. The Hold it
// gets then follows the payment:
//
//   - Release gives the amount back, and only while nothing was signed;
//   - Sign records what was signed (identifier, expiry) before it leaves: from then on the
//     amount counts until it is committed, or until the authorization can no longer be used;
//   - Commit moves the amount to Spent: a success receipt or a 2xx answer proved the payment;
//   - Refused keeps the amount counted until the authorization expires (plus ExpiryMargin):
//     the server said no, but the payee still holds a valid authorization and could settle it;
//   - InDoubt keeps the amount counted until the caller resolves it: the payment may have
//     settled (no answer, a 5xx, an answer to a re-sent request). Resolve ends that once the
//     caller has checked the chain.
//
// Nothing a server says releases a signed authorization early, and no error of the store
// releases anything: a hold whose change could not be recorded simply stays counted.
//
// Limits, all checked in the same atomic step as the reservation: the total (NewBudget's
// limit) on what was spent plus what is held; the amount of one payment
// (WithPaymentLimit); the amount and number of payments in rolling windows
// (WithWindowLimit); what each payee may get (WithPayeeLimit, WithPayeeLimitFor). A refusal
// is a *PolicyError naming the limit and, when time alone frees enough, when that is
// (RetryAt).
//
// Where the holds live is the budget's store (WithStore): by default in memory, where a
// restart forgets them and each process has its own. A Budget is safe for concurrent use:
// however many goroutines pay at once, no limit is ever passed.
type Budget struct {
	store  ledger.Store
	limits ledger.Limits
	now    func() time.Time
}

// BudgetStore keeps the holds of a Budget. Only the stores of this module satisfy it: the
// in-memory default, and the durable stores of its subpackages.
type BudgetStore interface {
	ledger.Store
}

// BudgetOption configures a Budget.
type BudgetOption func(*Budget) error

// WithBudgetClock sets the clock that decides when a refused authorization has expired and
// which reservations a rolling window holds (default time.Now).
func WithBudgetClock(now func() time.Time) BudgetOption {
	return func(b *Budget) error {
		if now == nil {
			return invalid("budget clock", "must not be nil")
		}
		b.now = now
		return nil
	}
}

// WithStore keeps the budget's holds in s instead of in memory. A store serves one Budget:
// a second NewBudget on the same store fails.
func WithStore(s BudgetStore) BudgetOption {
	return func(b *Budget) error {
		if s == nil {
			return invalid("budget store", "must not be nil")
		}
		b.store = s
		return nil
	}
}

// WithWindowLimit bounds the payments reserved in every rolling window of length: at most
// maxAmount atomic units and at most maxPayments payments (a nil amount or a zero count
// leaves that part unbounded, not both). A payment counts in the window from its
// reservation for length, unless it is released; a committed or pending one keeps
// counting. Repeat it for several windows, such as a minute and a day.
func WithWindowLimit(length time.Duration, maxAmount *big.Int, maxPayments int) BudgetOption {
	return func(b *Budget) error {
		b.limits.Windows = append(b.limits.Windows, ledger.Window{Length: length, Amount: maxAmount, Count: maxPayments})
		return nil
	}
}

// WithPayeeLimit bounds what any one payee may get, spent and held together, over the life
// of the budget; WithPayeeLimitFor sets another bound for a given payee.
func WithPayeeLimit(max *big.Int) BudgetOption {
	return func(b *Budget) error {
		b.limits.PerPayee = max
		return nil
	}
}

// WithPayeeLimitFor bounds what payTo (compared in any letter case) may get, spent and
// held together, over the life of the budget, instead of WithPayeeLimit's bound.
func WithPayeeLimitFor(payTo string, max *big.Int) BudgetOption {
	return func(b *Budget) error {
		if b.limits.Payees == nil {
			b.limits.Payees = make(map[string]*big.Int)
		}
		b.limits.Payees[strings.ToLower(payTo)] = max
		return nil
	}
}

// WithPaymentLimit bounds the amount of one payment, on every rail that draws on the
// budget (a Payer's Policy.MaxPerPayment bounds its own payments too).
func WithPaymentLimit(max *big.Int) BudgetOption {
	return func(b *Budget) error {
		b.limits.PerPayment = max
		return nil
	}
}

// NewBudget returns a budget of limit atomic units; a nil limit accounts for every payment
// without capping the total. A negative limit, or an invalid option, is a
// *sdk.ValidationError.
func NewBudget(limit *big.Int, opts ...BudgetOption) (*Budget, error) {
	b := &Budget{now: time.Now}
	if limit != nil {
		if limit.Sign() < 0 {
			return nil, invalid("budget limit", "must not be negative")
		}
		b.limits.Total = limit
	}
	if err := httpcore.Configure("x402", b, opts); err != nil {
		return nil, err
	}
	if err := b.limits.Validate(); err != nil {
		return nil, budgetError("configure", err)
	}
	b.limits = b.limits.Clone()
	if b.store == nil {
		b.store = ledger.NewMemory()
	}
	if err := b.store.Configure(context.Background(), b.limits); err != nil {
		return nil, budgetError("configure", err)
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
func (s HoldState) String() string { return ledger.State(s).String() }

// Reservation asks a Budget to hold an amount for one payment.
type Reservation struct {
	// Amount is the amount to hold, in atomic units.
	Amount *big.Int
	// PayTo is the recipient; required when the budget limits what payees get.
	PayTo string
	// Rail names the payment rail, such as "x402 eip155:8453" or "solana".
	Rail string
	// Resource describes what is paid for, such as the URL.
	Resource string
	// Payer is who pays (the signer's address, a Solana wallet) and Asset what with (the
	// token contract, the mint): with the signature's ID, what Reconcile needs to look the
	// payment up on its rail.
	Payer, Asset string
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
	// Payer and Asset are the reservation's.
	Payer, Asset string
	// Ref is what else the rail needs to look the payment up, in its own notation (for a
	// Solana transaction: its blockhash and last valid block height).
	Ref string
}

// Outstanding is a payment a budget still counts without having spent it.
type Outstanding struct {
	Signature
	// Amount is the amount held, in atomic units.
	Amount *big.Int
	// State is HoldReserved, HoldSigned, HoldRefused or HoldInDoubt.
	State HoldState
}

// Errors of a Budget and its holds, matched with errors.Is.
var (
	// ErrHoldSigned is returned by Release for a hold whose payment was signed: only a
	// commit, its expiry or Resolve can end it.
	ErrHoldSigned = errors.New("x402: the payment was signed; its amount stays counted until it is committed or expires")
	// ErrHoldNotReserved is returned by Hold.Sign for a hold that is no longer reserved
	// (released, or signed already): nothing may be sent.
	ErrHoldNotReserved = errors.New("x402: the hold is no longer reserved; nothing may be signed against it")
	// ErrPaymentNotFound is returned by Resolve when no outstanding payment has the id.
	ErrPaymentNotFound = errors.New("x402: no outstanding payment has that id")
	// ErrPaymentNotExpired is returned by Resolve for a payment found unsettled that could
	// still settle: it has not expired, plus ExpiryMargin, or it has no known expiry.
	ErrPaymentNotExpired = errors.New("x402: the payment has not expired yet; it could still settle")
)

// BudgetStoreError reports a failure of a budget's store. The change may or may not have
// been recorded; the Budget never gives an amount back because of it, so a payment that
// may have left stays counted.
type BudgetStoreError struct {
	// Op names the operation, such as "reserve" or "commit".
	Op string
	// Err is the store's failure.
	Err error
}

// Error names the operation and the failure.
func (e *BudgetStoreError) Error() string {
	return "x402: budget store: " + e.Op + ": " + e.Err.Error()
}

// Unwrap returns the store's failure.
func (e *BudgetStoreError) Unwrap() error { return e.Err }

// RetryableError reports false: an HTTP retry layer must not send the request again, since
// another attempt would reserve (and may sign) a new payment while the store cannot say
// what became of this one.
func (e *BudgetStoreError) RetryableError() bool { return false }

// budgetError turns an error of the store into this package's: its sentinels, a
// *PolicyError is made by the caller, a *sdk.ValidationError, or a *BudgetStoreError.
func budgetError(op string, err error) error {
	var in *ledger.InputError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ledger.ErrSigned):
		return ErrHoldSigned
	case errors.Is(err, ledger.ErrNotReserved):
		return ErrHoldNotReserved
	case errors.Is(err, ledger.ErrUnknownID):
		return ErrPaymentNotFound
	case errors.Is(err, ledger.ErrNotExpired):
		return ErrPaymentNotExpired
	case errors.As(err, &in):
		return invalid("budget "+in.Field, in.Reason)
	}
	return &BudgetStoreError{Op: op, Err: err}
}

// Reserve holds r.Amount when every limit allows it. Otherwise it returns a *PolicyError
// (ErrBudgetExceeded, ErrAmountOverCap, ErrWindowExceeded, ErrPaymentCountExceeded or
// ErrPayeeLimitExceeded) saying what is left and when enough frees up, and holds nothing.
// A nil or negative amount, or a missing payee when the budget limits payees, is a
// *sdk.ValidationError; a failure of the store a *BudgetStoreError.
func (b *Budget) Reserve(ctx context.Context, r Reservation) (*Hold, error) {
	if r.Amount == nil || r.Amount.Sign() < 0 {
		return nil, invalid("amount", "must be a non-negative number of atomic units")
	}
	if r.PayTo == "" && (b.limits.PerPayee != nil || len(b.limits.Payees) > 0) {
		return nil, invalid("payTo", "must name the payee: the budget limits what each payee gets")
	}
	id, err := b.store.Reserve(ctx, ledger.Reservation{Amount: r.Amount, PayTo: r.PayTo, Rail: r.Rail, Resource: r.Resource,
		Payer: r.Payer, Asset: r.Asset, Now: b.now()})
	if err != nil {
		var refusal *ledger.Refusal
		if errors.As(err, &refusal) {
			return nil, policyError(refusal, r)
		}
		return nil, budgetError("reserve", err)
	}
	r.Amount = new(big.Int).Set(r.Amount)
	return &Hold{b: b, id: id, r: r}, nil
}

// ruleOf maps each limit of the ledger to the sentinel of its refusals.
var ruleOf = map[ledger.Kind]error{ledger.KindPerPayment: ErrAmountOverCap, ledger.KindTotal: ErrBudgetExceeded,
	ledger.KindPayee: ErrPayeeLimitExceeded, ledger.KindWindowAmount: ErrWindowExceeded,
	ledger.KindWindowCount: ErrPaymentCountExceeded}

// policyError returns the *PolicyError of a refusal of r.
func policyError(refusal *ledger.Refusal, r Reservation) *PolicyError {
	pe := &PolicyError{Rule: ruleOf[refusal.Kind], Requirements: PaymentRequirements{Amount: new(big.Int).Set(r.Amount),
		PayTo: r.PayTo}, Limit: refusal.Left, Window: refusal.Window, RetryAt: refusal.RetryAt}
	if refusal.Kind == ledger.KindPerPayment {
		pe.Limit = refusal.Max // the cap itself, as the Payer's own cap reports it
	}
	return pe
}

// Resolve ends an outstanding payment the caller has looked up on its rail, by its
// Signature.ID: settled true commits it; settled false releases it, but only once it has
// expired (plus ExpiryMargin), since until then it could still settle. It returns
// ErrPaymentNotFound when no outstanding payment has that id, and ErrPaymentNotExpired when
// it could still settle.
func (b *Budget) Resolve(ctx context.Context, id string, settled bool) error {
	return budgetError("resolve", b.store.Resolve(ctx, id, settled, b.now()))
}

// Limit returns the budget's total limit, nil when it has none.
func (b *Budget) Limit() *big.Int {
	if b.limits.Total == nil {
		return nil
	}
	return new(big.Int).Set(b.limits.Total)
}

// Totals returns what was spent (the payments that went through) and what is reserved
// (held for payments not yet spent: reserved, signed, refused and not yet expired, or in
// doubt), in atomic units.
func (b *Budget) Totals(ctx context.Context) (spent, reserved *big.Int, err error) {
	t, err := b.store.Totals(ctx, b.now())
	if err != nil {
		return nil, nil, budgetError("totals", err)
	}
	return t.Spent, t.Held, nil
}

// Spent returns the total of the payments that went through, in atomic units; nil when the
// store cannot be read (Totals says why).
func (b *Budget) Spent() *big.Int {
	spent, _, _ := b.Totals(context.Background())
	return spent
}

// Reserved returns the total held for payments not yet spent: reserved, signed, refused and
// not yet expired, or in doubt; nil when the store cannot be read (Totals says why).
func (b *Budget) Reserved() *big.Int {
	_, reserved, _ := b.Totals(context.Background())
	return reserved
}

// OutstandingContext lists the payments the budget holds, oldest expiry first (reserved,
// unsigned ones first).
func (b *Budget) OutstandingContext(ctx context.Context) ([]Outstanding, error) {
	entries, err := b.store.Outstanding(ctx, b.now())
	if err != nil {
		return nil, budgetError("outstanding", err)
	}
	out := make([]Outstanding, len(entries))
	for i, e := range entries {
		out[i] = Outstanding{
			Signature: Signature{ID: e.ID, Rail: e.Rail, PayTo: e.PayTo, Expires: e.Expires, Resource: e.Resource,
				Payer: e.Payer, Asset: e.Asset, Ref: e.Ref},
			Amount: e.Amount,
			State:  HoldState(e.State),
		}
	}
	return out, nil
}

// Outstanding lists the payments the budget holds, oldest expiry first; nil when the store
// cannot be read (OutstandingContext says why), and an empty list when nothing is held.
func (b *Budget) Outstanding() []Outstanding {
	out, _ := b.OutstandingContext(context.Background())
	return out
}

package ledger

import (
	"context"
	"errors"
	"math/big"
	"time"
)

// ExpiryMargin is how long after its expiry a refused hold stays counted: the chain's clock
// may run behind the caller's, and until it passes the expiry too the payee can still
// settle.
const ExpiryMargin = 2 * time.Minute

// HoldID identifies a hold within its store: positive, never given twice, and larger for a
// later reservation (a durable store may skip numbers).
type HoldID int64

// State is where a hold stands. The values follow x402.HoldState.
type State int

// The states of a hold.
const (
	// Reserved: the amount is set aside; nothing is signed yet.
	Reserved State = iota
	// Signed: a payment was signed and may have left.
	Signed
	// Refused: the payee refused the signed payment; it counts until it expires.
	Refused
	// InDoubt: the outcome is unknown; it counts until resolved.
	InDoubt
	// Committed: the payment went through; its amount is spent.
	Committed
	// Released: the amount was given back.
	Released
)

// stateNames are the names of the states, by value.
var stateNames = [...]string{Reserved: "reserved", Signed: "signed", Refused: "refused", InDoubt: "in doubt",
	Committed: "committed", Released: "released"}

// String names the state.
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return "unknown"
	}
	return stateNames[s]
}

// Reservation asks for an amount to be held for one payment.
type Reservation struct {
	// Amount is the amount to hold, in atomic units; never negative.
	Amount *big.Int
	// PayTo is the payee, as the rail writes it; per-payee limits compare it in lower case.
	PayTo string
	// Rail names the payment rail, such as "x402 eip155:8453" or "solana".
	Rail string
	// Resource describes what is paid for.
	Resource string
	// Payer is who pays (an EVM address, a Solana wallet), and Asset what with (the token
	// contract, the mint): with the signing's ID, what a reconciler needs to look the payment
	// up on its rail.
	Payer, Asset string
	// Now is the caller's time of the reservation.
	Now time.Time
}

// Signing records what a reserved hold's payment signed.
type Signing struct {
	// ID identifies the payment on its rail (an EIP-3009 nonce, a Solana signature); not
	// empty, and unique among the store's outstanding holds.
	ID string
	// Expires is when the payment can no longer be used; zero when unknown (the hold then
	// never expires by time).
	Expires time.Time
	// Ref is what else the rail needs to look the payment up, in the rail's own notation
	// (for a Solana transaction, its blockhash and last valid block height); may be empty.
	Ref string
	// Now is the caller's time.
	Now time.Time
}

// Entry is a hold as Outstanding lists it.
type Entry struct {
	// Hold identifies the hold.
	Hold HoldID
	// Amount is the amount held.
	Amount *big.Int
	// PayTo, Rail, Resource, Payer and Asset are the reservation's.
	PayTo, Rail, Resource, Payer, Asset string
	// Reserved is when the hold was reserved (the time its windows count it from).
	Reserved time.Time
	// ID, Expires and Ref are the signing's; empty and zero while the hold is Reserved.
	ID      string
	Expires time.Time
	Ref     string
	// State is Reserved, Signed, Refused or InDoubt.
	State State
}

// Totals are a store's sums.
type Totals struct {
	// Spent is the sum of the committed holds.
	Spent *big.Int
	// Held is the sum of the holds reserved, signed, refused or in doubt.
	Held *big.Int
}

// Store keeps the holds of one Budget. Every method takes the caller's time; see the package
// documentation for what a store guarantees. A Store is safe for concurrent use.
type Store interface {
	// Configure sets the limits every later Reserve enforces. The Budget calls it once,
	// before anything else; a second call is ErrConfigured, and other methods called before
	// it return ErrNotConfigured. Invalid limits are an *InputError.
	Configure(ctx context.Context, limits Limits) error
	// Reserve checks every limit and records a Reserved hold of r.Amount, atomically. A limit
	// that refuses is a *Refusal, and nothing is recorded.
	Reserve(ctx context.Context, r Reservation) (HoldID, error)
	// Sign moves a Reserved hold to Signed and records s. It fails, changing nothing, with
	// ErrNotReserved when the hold is no longer Reserved, ErrDuplicateID when an outstanding
	// hold already has s.ID, and an *InputError for an empty ID or an expiry out of range.
	Sign(ctx context.Context, id HoldID, s Signing) error
	// Mark moves a hold to Refused (from Signed), InDoubt (from Signed or Refused),
	// Committed (from Reserved, Signed, Refused or InDoubt) or Released (from Reserved; from
	// Signed, Refused or InDoubt it is ErrSigned and nothing changes). Any other move is
	// ignored. It returns the state the hold is in afterwards.
	Mark(ctx context.Context, id HoldID, to State, now time.Time) (State, error)
	// Discard releases a Reserved or Signed hold whose signed payment never left the
	// process, so nobody can use it; any other state is left as it is. It returns the state
	// the hold is in afterwards.
	Discard(ctx context.Context, id HoldID, now time.Time) (State, error)
	// Resolve ends the outstanding hold whose signing ID is id, once the caller has looked
	// the payment up on its rail: settled commits it; not settled releases it, but only when
	// now is after its expiry plus ExpiryMargin (ErrNotExpired otherwise, and always for a
	// hold without an expiry). No outstanding signed hold with that ID is ErrUnknownID.
	Resolve(ctx context.Context, id string, settled bool, now time.Time) error
	// Totals returns the sums.
	Totals(ctx context.Context, now time.Time) (Totals, error)
	// Outstanding lists the holds neither committed nor released, oldest expiry first (holds
	// without an expiry first), then by ID, then by HoldID.
	Outstanding(ctx context.Context, now time.Time) ([]Entry, error)
	// HoldState returns where a hold stands; ErrUnknownHold for an id the store never gave.
	HoldState(ctx context.Context, id HoldID, now time.Time) (State, error)
	// Close releases what the store holds open; later calls return ErrClosed. Closing
	// changes no hold.
	Close() error
}

// Sentinel errors of every store.
var (
	// ErrSigned reports a release asked for a hold whose payment was signed.
	ErrSigned = errors.New("ledger: the payment was signed; it stays counted until it is committed or expires")
	// ErrNotReserved reports a Sign on a hold that is no longer Reserved.
	ErrNotReserved = errors.New("ledger: the hold is no longer reserved")
	// ErrDuplicateID reports a Sign with an ID an outstanding hold already has.
	ErrDuplicateID = errors.New("ledger: an outstanding payment already has that id")
	// ErrUnknownHold reports a HoldID the store never gave.
	ErrUnknownHold = errors.New("ledger: no such hold")
	// ErrUnknownID reports a Resolve for an ID no outstanding signed hold has.
	ErrUnknownID = errors.New("ledger: no outstanding payment has that id")
	// ErrNotExpired reports a Resolve that would release a payment that could still settle.
	ErrNotExpired = errors.New("ledger: the payment has not expired yet; it could still settle")
	// ErrConfigured reports a second Configure.
	ErrConfigured = errors.New("ledger: the store's limits are already configured")
	// ErrNotConfigured reports a call before Configure.
	ErrNotConfigured = errors.New("ledger: the store's limits are not configured")
	// ErrClosed reports a call after Close.
	ErrClosed = errors.New("ledger: the store is closed")
)

// InputError reports an argument a store refuses: a negative amount, an empty ID, a time out
// of range, an invalid limit.
type InputError struct {
	// Field names the argument.
	Field string
	// Reason says what is wrong.
	Reason string
}

// Error names the field and the reason.
func (e *InputError) Error() string { return "ledger: " + e.Field + ": " + e.Reason }

// The range of times a store accepts: Unix nanoseconds represent them exactly.
var (
	minTime = time.Unix(0, 0)
	maxTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Nanos returns t as Unix nanoseconds, or an *InputError naming field when t is not after
// 1970 or is after 2200.
func Nanos(field string, t time.Time) (int64, error) {
	if !t.After(minTime) || t.After(maxTime) {
		return 0, &InputError{Field: field, Reason: "must be a time between 1970 and 2200"}
	}
	return t.UnixNano(), nil
}

// Time returns the UTC time of Unix nanoseconds n.
func Time(n int64) time.Time { return time.Unix(0, n).UTC() }

// AddNanos returns a + d, for d >= 0, saturated at the largest int64 instead of wrapping.
func AddNanos(a int64, d time.Duration) int64 {
	if s := a + int64(d); s >= a {
		return s
	}
	return 1<<63 - 1
}

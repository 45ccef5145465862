package ledger

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math/big"
	"time"
)

// ExpiryMargin is how long after its expiry a refused hold stays counted: the chain's clock
// may run behind the store's, and until it passes the expiry too the payee can still settle.
const ExpiryMargin = 2 * time.Minute

// HoldID identifies a hold. The caller generates it (NewHoldID) before it asks the store to
// reserve, so that a reservation whose answer was lost (a context ended, a connection broke
// after the store committed) can be found again by it: HoldState answers ErrUnknownHold for
// an identifier the store never recorded.
type HoldID [16]byte

// NewHoldID returns a new random HoldID (128 bits from crypto/rand).
func NewHoldID() HoldID {
	var id HoldID
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails (Go 1.24)
	return id
}

// ParseHoldID reads the 32 hexadecimal digits String writes.
func ParseHoldID(s string) (HoldID, error) {
	var id HoldID
	if len(s) != 2*len(id) {
		return id, &InputError{Field: "hold id", Reason: "must be 32 hexadecimal digits"}
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return HoldID{}, &InputError{Field: "hold id", Reason: "must be 32 hexadecimal digits"}
	}
	return id, nil
}

// String returns the identifier as 32 lower-case hexadecimal digits.
func (id HoldID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero HoldID, which no store accepts.
func (id HoldID) IsZero() bool { return id == HoldID{} }

// State is where a hold stands.
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

// Outstanding reports whether a hold in state s still counts without being spent: reserved,
// signed, refused or in doubt.
func (s State) Outstanding() bool { return s >= Reserved && s <= InDoubt }

// Reservation asks for an amount to be held for one payment.
type Reservation struct {
	// Amount is the amount to hold, in atomic units; never negative.
	Amount *big.Int
	// PayTo is the payee, in the form in which two addresses of its chain compare equal
	// (EVM: lower-case hex; Solana: base58 as it is): the store compares payees exactly.
	PayTo string
	// Rail names the payment rail, such as "x402 eip155:8453", "x402 solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" or
	// "solana" (gpuprice's key purchase).
	Rail string
	// Resource describes what is paid for.
	Resource string
	// Payer is who pays (an EVM address, a Solana wallet), and Asset what with (the token
	// contract, the mint): with the signature's ID, what a reconciler needs to look the
	// payment up on its rail.
	Payer, Asset string
}

// Signature records what a reserved hold's payment signed, before it leaves.
type Signature struct {
	// ID identifies the payment on its rail (an EIP-3009 nonce, a Solana signature); not
	// empty, and unique among the store's outstanding holds.
	ID string
	// Expires is when the payment can no longer be used; zero when unknown (the hold then
	// never expires by time).
	Expires time.Time
	// Ref is what else the rail needs to look the payment up, in the rail's own notation
	// (for a Solana transaction, its blockhash and last valid block height); may be empty.
	Ref string
}

// Outstanding is a hold neither committed nor released, as a store lists it.
type Outstanding struct {
	// Hold identifies the hold.
	Hold HoldID
	// Amount is the amount held, in atomic units.
	Amount *big.Int
	// PayTo, Rail, Resource, Payer and Asset are the reservation's.
	PayTo, Rail, Resource, Payer, Asset string
	// Reserved is when the hold was reserved, on the store's clock (the time its windows
	// count it from).
	Reserved time.Time
	// Signature is what was signed; its fields are empty while the hold is Reserved.
	Signature
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

// Store keeps the holds of one budget: the contract every budget store implements (the
// in-memory Memory of this package, x402/budgetfile, x402/budgetpg, or a store of the
// caller's), and proves with the conformance suite of package ledgertest. See the package
// documentation for what every store guarantees.
//
// A store decides with its own clock: whether a refused hold has expired, which holds a
// rolling window counts, when a hold was reserved. No method takes the caller's time, so no
// caller's clock can free money. Every method that names a hold takes the HoldID the caller
// generated before it reserved. A Store is safe for concurrent use.
type Store interface {
	// Configure sets the limits every later Reserve enforces. It is called once, before
	// anything else; a second call is ErrConfigured, and other methods called before it
	// (or ChangeLimits) return ErrNotConfigured. Invalid limits are an *InputError. A
	// durable store that recorded other limits refuses with ErrLimitsDiffer: every process
	// sharing a budget must enforce the same limits.
	Configure(ctx context.Context, limits Limits) error
	// ChangeLimits replaces the limits, on purpose: in place of Configure, or after it. Every
	// hold and Spent stay as they are; later reservations are checked against the new
	// limits. A durable store records them, so that a later Configure with the new limits
	// succeeds and one with the old ones fails with ErrLimitsDiffer.
	ChangeLimits(ctx context.Context, limits Limits) error
	// Reserve checks every limit and records a Reserved hold of r.Amount under id,
	// atomically. A limit that refuses is a *Refusal, and nothing is recorded. An id the
	// store has already recorded is ErrDuplicateHold, and nothing changes; the zero HoldID
	// is an *InputError.
	Reserve(ctx context.Context, id HoldID, r Reservation) error
	// Sign moves a Reserved hold to Signed and records s. It fails, changing nothing, with
	// ErrNotReserved when the hold is no longer Reserved (Signed already included),
	// ErrDuplicateID when another outstanding hold already has s.ID, and an *InputError for
	// an empty ID or an expiry out of range.
	Sign(ctx context.Context, id HoldID, s Signature) error
	// Mark moves a hold to Refused (from Signed), InDoubt (from Signed or Refused),
	// Committed (from Reserved, Signed, Refused or InDoubt) or Released (from Reserved; from
	// Signed, Refused or InDoubt it is ErrSigned and nothing changes). Any other move is
	// ignored, so a repeated Mark changes nothing. It returns the state the hold is in
	// afterwards.
	Mark(ctx context.Context, id HoldID, to State) (State, error)
	// Discard releases a Reserved or Signed hold whose signed payment never left the
	// process, so nobody can use it; any other state is left as it is. It returns the state
	// the hold is in afterwards.
	Discard(ctx context.Context, id HoldID) (State, error)
	// Resolve ends the outstanding signed hold whose Signature.ID is paymentID, once the
	// caller has looked the payment up on its rail: settled commits it; not settled releases
	// it, but only when the store's clock is after its expiry plus ExpiryMargin
	// (ErrNotExpired otherwise, and always for a hold without an expiry). No outstanding
	// signed hold with that ID is ErrUnknownID.
	Resolve(ctx context.Context, paymentID string, settled bool) error
	// Totals returns the sums.
	Totals(ctx context.Context) (Totals, error)
	// Outstanding lists the holds neither committed nor released, oldest expiry first (holds
	// without an expiry first), then by Signature.ID, then by reservation.
	Outstanding(ctx context.Context) ([]Outstanding, error)
	// HoldState returns where a hold stands; ErrUnknownHold for an id the store never
	// recorded, which is how a caller whose Reserve lost its answer finds out whether the
	// reservation was made.
	HoldState(ctx context.Context, id HoldID) (State, error)
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
	// ErrDuplicateID reports a Sign with an ID another outstanding hold already has.
	ErrDuplicateID = errors.New("ledger: an outstanding payment already has that id")
	// ErrDuplicateHold reports a Reserve with a HoldID the store has already recorded.
	ErrDuplicateHold = errors.New("ledger: a hold with that id was already reserved")
	// ErrUnknownHold reports a HoldID the store never recorded.
	ErrUnknownHold = errors.New("ledger: no such hold")
	// ErrUnknownID reports a Resolve for an ID no outstanding signed hold has.
	ErrUnknownID = errors.New("ledger: no outstanding payment has that id")
	// ErrNotExpired reports a Resolve that would release a payment that could still settle.
	ErrNotExpired = errors.New("ledger: the payment has not expired yet; it could still settle")
	// ErrConfigured reports a second Configure.
	ErrConfigured = errors.New("ledger: the store's limits are already configured")
	// ErrNotConfigured reports a call before Configure.
	ErrNotConfigured = errors.New("ledger: the store's limits are not configured")
	// ErrLimitsDiffer reports a Configure whose limits differ from those a durable store
	// recorded: processes with other limits would each let through what another refuses.
	// A deliberate change is ChangeLimits.
	ErrLimitsDiffer = errors.New("ledger: the budget was configured with other limits")
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

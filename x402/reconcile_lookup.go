package x402

import (
	"context"
	"errors"
	"strconv"
)

// ChainState is what a PaymentLookup found of a payment on its rail.
type ChainState int

// The states a lookup reports.
const (
	// ChainPending: the payment was not found, has not settled yet, or the lookup cannot
	// tell; it could still settle. Its hold stays as it is.
	ChainPending ChainState = iota
	// ChainSettled: the payment went through. Its hold is committed.
	ChainSettled
	// ChainFailed: the payment landed with an error and moved nothing (a Solana transaction
	// that failed on chain; it still cost its fee, which the budget does not count). Its
	// hold is released once its expiry, plus ExpiryMargin, has passed.
	ChainFailed
	// ChainNotSettled: the payment has not settled and, by the rules of its rail, can no
	// longer settle once it has expired: an EIP-3009 authorization still unused at a block
	// past its validBefore, a Solana transaction not found once the block height passed its
	// blockhash's last valid block height. Its hold is released once its expiry, plus
	// ExpiryMargin, has passed on the reconciler's clock, and never before.
	ChainNotSettled
)

// chainStateNames are the names of the states, by value.
var chainStateNames = [...]string{ChainPending: "pending", ChainSettled: "settled", ChainFailed: "failed",
	ChainNotSettled: "not settled"}

// String names the state.
func (s ChainState) String() string {
	if s < 0 || int(s) >= len(chainStateNames) {
		return "unknown"
	}
	return chainStateNames[s]
}

// LookupResult is what a PaymentLookup found of one payment.
type LookupResult struct {
	// ID is the payment's Signature.ID, as the lookup was given it.
	ID string
	// State is what the lookup found.
	State ChainState
	// Transaction is the transaction that settled the payment, where it differs from the
	// ID and is known: the settlement of an x402 authorization (0x hex). Empty otherwise; a
	// Solana payment's ID is its transaction.
	Transaction string
	// Err, when set, says why this payment could not be looked up; State is then ignored
	// and the payment's hold stays as it is.
	Err error
}

// PaymentLookup looks payments up on the rails it handles, so that a Reconciler can resolve
// the holds left in doubt. The Reconciler looks x402 authorizations up itself (WithEVMRPC);
// other rails bring their own lookup, such as gpuprice's for its Solana key purchases.
//
// A lookup reports facts of its chain and nothing else: whether each payment settled,
// failed, can no longer settle, or may still settle. The Reconciler decides what that means
// for the budget, and never releases a payment before its expiry (plus ExpiryMargin) on its
// own clock, whatever a lookup says.
type PaymentLookup interface {
	// Handles reports whether the lookup covers payments of rail (Signature.Rail), such as
	// "x402 eip155:8453" or "solana".
	Handles(rail string) bool
	// Lookup looks up payments, all of one rail it handles, at most the Reconciler's batch
	// size at a time. It returns what it found of each, in any order, matched by ID; a
	// payment it says nothing of, or one whose result has Err set, stays as it is. An
	// error, such as a node's failure, a timeout or an answer it cannot read, leaves every
	// payment of the call as it is. Lookup must return once ctx ends.
	Lookup(ctx context.Context, payments []Outstanding) ([]LookupResult, error)
}

// ErrNoLookup is the error of a payment whose rail no lookup of the Reconciler handles: a
// network without WithEVMRPC, a rail without WithLookup.
var ErrNoLookup = errors.New("x402: no lookup handles the payment's rail")

// errNoResult is the error of a payment a lookup said nothing of.
var errNoResult = errors.New("x402: the lookup returned nothing for the payment")

// LookupError reports a lookup that failed: the payments it covered stay as they are.
type LookupError struct {
	// Rail is the rail of the payments it covered.
	Rail string
	// Payments is how many payments it covered.
	Payments int
	// Err is the lookup's failure.
	Err error
}

// Error names the rail, the number of payments and the failure.
func (e *LookupError) Error() string {
	return "x402: looking up " + strconv.Itoa(e.Payments) + " payment(s) on " + e.Rail + ": " + e.Err.Error()
}

// Unwrap returns the lookup's failure.
func (e *LookupError) Unwrap() error { return e.Err }

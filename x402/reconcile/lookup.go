package reconcile

import (
	"context"
	"errors"
	"strconv"

	"github.com/agentapis/sdk/x402/ledger"
)

// ChainState is what a Lookup found of a payment on its rail.
type ChainState int

// The states a lookup reports.
const (
	// Pending: the payment was not found, has not settled yet, or the lookup cannot
	// tell; it could still settle. Its hold stays as it is.
	Pending ChainState = iota
	// Settled: the payment went through. Its hold is committed.
	Settled
	// Failed: the payment landed with an error and moved nothing (a Solana transaction
	// that failed on chain; it still cost its fee, which the budget does not count). Its
	// hold is released once its expiry, plus ExpiryMargin, has passed.
	Failed
	// NotSettled: the payment has not settled and, by the rules of its rail, can no
	// longer settle once it has expired: an EIP-3009 authorization still unused at a block
	// past its validBefore, a Solana transaction not found once the block height passed its
	// blockhash's last valid block height. Its hold is released once its expiry, plus
	// ExpiryMargin, has passed on the reconciler's clock, and never before.
	NotSettled
)

// chainStateNames are the names of the states, by value.
var chainStateNames = [...]string{Pending: "pending", Settled: "settled", Failed: "failed",
	NotSettled: "not settled"}

// String names the state.
func (s ChainState) String() string {
	if s < 0 || int(s) >= len(chainStateNames) {
		return "unknown"
	}
	return chainStateNames[s]
}

// Result is what a Lookup found of one payment.
type Result struct {
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

// Lookup looks payments up on the rails it handles, so that a Reconciler can resolve the
// holds left in doubt: one lookup per scheme and chain family, such as evm.Lookup for the
// EIP-3009 authorizations of an EVM network and svm.Lookup for the payments on Solana (x402
// payments and gpuprice's key purchases alike). A rail of the caller's brings its own.
//
// A lookup reports facts of its chain and nothing else: whether each payment settled,
// failed, can no longer settle, or may still settle. The Reconciler decides what that means
// for the budget, and never releases a payment before its expiry (plus ExpiryMargin) on its
// own clock, whatever a lookup says.
type Lookup interface {
	// Handles reports whether the lookup covers payments of rail (Signature.Rail), such as
	// "x402 eip155:8453" or "solana".
	Handles(rail string) bool
	// Lookup looks up payments, all of one rail it handles, at most the Reconciler's batch
	// size at a time. It returns what it found of each, in any order, matched by ID; a
	// payment it says nothing of, or one whose result has Err set, stays as it is. An
	// error, such as a node's failure, a timeout or an answer it cannot read, leaves every
	// payment of the call as it is. Lookup must return once ctx ends.
	Lookup(ctx context.Context, payments []ledger.Outstanding) ([]Result, error)
}

// Cautious is what a Lookup may also implement to say what its answers still trust: an EVM
// lookup with one RPC endpoint trusts that node not to lie consistently about state, events
// and time at once. A Reconciler reports the caveats of the lookups it used
// (Report.Caveats), so that whoever reads a report knows what a release rested on.
type Cautious interface {
	// Caveats returns what the lookup's answers still trust, one sentence each; none when
	// nothing beyond its rail's rules. A caveat never quotes a secret (an endpoint's URL).
	Caveats() []string
}

// ErrUnreachable marks the failure of a lookup whose node could not be reached or did not
// answer in time: a Reconciler asks that rail's lookup nothing more in the same
// reconciliation, so that a dead node costs one bounded wait, not one per batch. A lookup
// wraps it (errors.Is) in such a failure; a lookup that outlives the Reconciler's
// WithLookupTimeout is taken as unreachable too.
var ErrUnreachable = errors.New("reconcile: the node is unreachable or did not answer in time")

// ErrNoLookup is the error of a payment whose rail no lookup of the Reconciler handles: a
// rail without a lookup given with WithLookup.
var ErrNoLookup = errors.New("reconcile: no lookup handles the payment's rail")

// errNoResult is the error of a payment a lookup said nothing of.
var errNoResult = errors.New("reconcile: the lookup returned nothing for the payment")

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
	return "reconcile: looking up " + strconv.Itoa(e.Payments) + " payment(s) on " + e.Rail + ": " + e.Err.Error()
}

// Unwrap returns the lookup's failure.
func (e *LookupError) Unwrap() error { return e.Err }

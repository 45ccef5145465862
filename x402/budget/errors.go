package budget

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/usdc"
)

// invalid returns the *sdk.ValidationError for field: a configuration or an input the budget
// refuses before anything is recorded.
func invalid(field, reason string) error {
	return &sdk.ValidationError{Service: "x402", Field: field, Reason: reason}
}

// The limits a reservation can be refused by, matched with errors.Is against a *LimitError
// (and, through the payer, an *x402.PolicyError, whose package exports the same values).
var (
	// ErrAmountOverCap reports a payment above WithPaymentLimit (or, from a payer, above
	// Policy.MaxPerPayment).
	ErrAmountOverCap = errors.New("amount above the per-payment cap")
	// ErrBudgetExceeded reports a payment that would take spent plus held past the total.
	ErrBudgetExceeded = errors.New("payment would exceed the total budget")
	// ErrWindowExceeded reports a payment that would take the amount reserved in a rolling
	// window past its bound (WithWindowLimit).
	ErrWindowExceeded = errors.New("payment would exceed the amount allowed in a rolling window")
	// ErrPaymentCountExceeded reports a payment that would take the number of payments in a
	// rolling window past its bound (WithWindowLimit).
	ErrPaymentCountExceeded = errors.New("payment would exceed the number of payments allowed in a rolling window")
	// ErrPayeeLimitExceeded reports a payment that would take what a payee gets past its
	// bound (WithPayeeLimit, WithPayeeLimitFor).
	ErrPayeeLimitExceeded = errors.New("payment would exceed what the payee may get")
)

// Errors of a Budget and its holds, matched with errors.Is.
var (
	// ErrHoldSigned is returned by Release for a hold whose payment was signed: only a
	// commit, its expiry or Resolve can end it.
	ErrHoldSigned = errors.New("budget: the payment was signed; its amount stays counted until it is committed or expires")
	// ErrHoldNotReserved is returned by Hold.Sign for a hold that is no longer reserved
	// (released, or signed already): nothing may be sent.
	ErrHoldNotReserved = errors.New("budget: the hold is no longer reserved; nothing may be signed against it")
	// ErrPaymentNotFound is returned by Resolve when no outstanding payment has the id.
	ErrPaymentNotFound = errors.New("budget: no outstanding payment has that id")
	// ErrPaymentNotExpired is returned by Resolve for a payment found unsettled that could
	// still settle: it has not expired, plus ledger.ExpiryMargin, or it has no known expiry.
	ErrPaymentNotExpired = errors.New("budget: the payment has not expired yet; it could still settle")
)

// LimitError reports a payment a limit of the budget refused. Nothing was reserved.
type LimitError struct {
	// Service names the payment rail that reports the refusal, the start of its text
	// ("gpuprice"); "budget" when empty.
	Service string
	// Rule is the sentinel of the limit: ErrAmountOverCap, ErrBudgetExceeded,
	// ErrWindowExceeded, ErrPaymentCountExceeded or ErrPayeeLimitExceeded.
	Rule error
	// Amount is the payment's amount and PayTo its payee.
	Amount *big.Int
	PayTo  string
	// Max is the limit: an amount in atomic units, or a number of payments
	// (ErrPaymentCountExceeded).
	Max *big.Int
	// Left is what the limit had left before this payment, in the same unit; never negative.
	Left *big.Int
	// Spent, set only for ErrBudgetExceeded, is what the budget had spent when that is above
	// the total limit Max: a budget reopened with a lower limit than it had spent refuses
	// every payment until the limit is raised. Nil otherwise.
	Spent *big.Int
	// Window is the length of the rolling window that refused (ErrWindowExceeded,
	// ErrPaymentCountExceeded).
	Window time.Duration
	// RetryAt is when enough frees up under the limit for this payment, if nothing else
	// happens: the oldest payments leave the window, or refused payments expire. Zero when
	// only a release or a resolution can free enough, or nothing can.
	RetryAt time.Time
}

// Error says which limit refused and what is left of what, under the rail's name: "budget:
// payment would exceed the total budget: amount $5.00, $1.00 left of $6.00". A budget that
// has spent more than its limit says so first: "budget: spent $0.05 is above the limit of
// $0.02; every payment is refused until the limit is raised: payment would exceed the total
// budget: amount $0.01, $0.00 left of $0.02".
func (e *LimitError) Error() string { return cmp.Or(e.Service, "budget") + ": " + e.Describe() }

// Describe is Error without the service's name, for a rail that reports the refusal inside an
// error of its own (x402's *PolicyError).
func (e *LimitError) Describe() string {
	var b strings.Builder
	if e.Spent != nil && e.Max != nil {
		fmt.Fprintf(&b, "spent %s is above the limit of %s; every payment is refused until the limit is raised: ",
			usdc.Format(e.Spent), usdc.Format(e.Max))
	}
	b.WriteString(e.Rule.Error())
	if e.Amount != nil {
		fmt.Fprintf(&b, ": amount %s", usdc.Format(e.Amount))
	}
	switch {
	case e.Left == nil:
	case errors.Is(e.Rule, ErrPaymentCountExceeded):
		fmt.Fprintf(&b, ", %s payments left of %s", e.Left, e.Max)
	case errors.Is(e.Rule, ErrAmountOverCap):
		fmt.Fprintf(&b, ", limit %s", usdc.Format(e.Max))
	default:
		fmt.Fprintf(&b, ", %s left of %s", usdc.Format(e.Left), usdc.Format(e.Max))
	}
	if e.Window > 0 {
		fmt.Fprintf(&b, " in any %s", e.Window)
	}
	if errors.Is(e.Rule, ErrPayeeLimitExceeded) {
		fmt.Fprintf(&b, ", payTo %s", e.PayTo)
	}
	if !e.RetryAt.IsZero() {
		fmt.Fprintf(&b, ", enough frees up at %s", e.RetryAt.UTC().Format(time.RFC3339Nano))
	}
	return b.String()
}

// Unwrap returns the limit's sentinel.
func (e *LimitError) Unwrap() error { return e.Rule }

// RetryableError reports false: an HTTP retry layer must not send the request again, since
// the limit refuses the same payment again (until RetryAt, at the earliest).
func (e *LimitError) RetryableError() bool { return false }

// ruleOf maps each limit of the ledger to the sentinel of its refusals.
var ruleOf = map[ledger.Kind]error{ledger.KindPerPayment: ErrAmountOverCap, ledger.KindTotal: ErrBudgetExceeded,
	ledger.KindPayee: ErrPayeeLimitExceeded, ledger.KindWindowAmount: ErrWindowExceeded,
	ledger.KindWindowCount: ErrPaymentCountExceeded}

// limitError returns the *LimitError of a refusal of r.
func limitError(refusal *ledger.Refusal, r ledger.Reservation) *LimitError {
	return &LimitError{Rule: ruleOf[refusal.Kind], Amount: new(big.Int).Set(r.Amount), PayTo: r.PayTo,
		Max: refusal.Max, Left: refusal.Left, Window: refusal.Window, RetryAt: refusal.RetryAt}
}

// StoreError reports a failure of a budget's store. The change may or may not have been
// recorded; the Budget never gives an amount back because of it, so a payment that may have
// left stays counted.
type StoreError struct {
	// Op names the operation, such as "reserve" or "commit".
	Op string
	// Err is the store's failure.
	Err error
}

// Error names the operation and the failure.
func (e *StoreError) Error() string { return "budget: store: " + e.Op + ": " + e.Err.Error() }

// Unwrap returns the store's failure.
func (e *StoreError) Unwrap() error { return e.Err }

// RetryableError reports false: an HTTP retry layer must not send the request again, since
// another attempt would reserve (and may sign) a new payment while the store cannot say
// what became of this one.
func (e *StoreError) RetryableError() bool { return false }

// storeError turns an error of the store into this package's: its sentinels, a
// *sdk.ValidationError, or a *StoreError.
func storeError(op string, err error) error {
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
	return &StoreError{Op: op, Err: err}
}

package ledger

import (
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Kind names the limit that refused a reservation.
type Kind int

// The limits.
const (
	// KindPerPayment is Limits.PerPayment.
	KindPerPayment Kind = iota + 1
	// KindTotal is Limits.Total.
	KindTotal
	// KindPayee is a payee's limit (Limits.Payees or Limits.PerPayee).
	KindPayee
	// KindWindowAmount is a window's Amount.
	KindWindowAmount
	// KindWindowCount is a window's Count.
	KindWindowCount
)

// kindNames are the names of the limits, by value.
var kindNames = [...]string{KindPerPayment: "per-payment limit", KindTotal: "total", KindPayee: "payee limit",
	KindWindowAmount: "window amount", KindWindowCount: "window count"}

// String names the limit.
func (k Kind) String() string {
	if k < KindPerPayment || int(k) >= len(kindNames) {
		return "unknown limit"
	}
	return kindNames[k]
}

// Refusal reports a reservation a limit refused; nothing was recorded.
type Refusal struct {
	// Kind is the limit.
	Kind Kind
	// Window is the window's length (KindWindowAmount, KindWindowCount).
	Window time.Duration
	// PayTo is the payee as reserved (KindPayee).
	PayTo string
	// Max is the limit: an amount, or a number of payments for KindWindowCount.
	Max *big.Int
	// Left is what the limit had left before this reservation (the same unit as Max);
	// never negative.
	Left *big.Int
	// RetryAt is the first instant at which the reservation fits under this limit if
	// nothing else happens; zero when only a release or a resolution can make room, or
	// nothing can.
	RetryAt time.Time
}

// Error names the limit, what is left and when enough frees up.
func (r *Refusal) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ledger: refused by the %s", r.Kind)
	if r.Window > 0 {
		fmt.Fprintf(&b, " of %s", r.Window)
	}
	if r.PayTo != "" {
		fmt.Fprintf(&b, " of %s", r.PayTo)
	}
	fmt.Fprintf(&b, ": %s left of %s", r.Left, r.Max)
	if !r.RetryAt.IsZero() {
		fmt.Fprintf(&b, ", enough frees up at %s", r.RetryAt.Format(time.RFC3339Nano))
	}
	return b.String()
}

// Verdict keeps, among the refusals of one reservation given in the order of the package
// documentation (per payment, total, payee, windows), the one to report: the first that
// cannot free up by time alone, else the one that frees up last.
type Verdict struct {
	chosen *Refusal
}

// Add considers r and reports whether the verdict is final: r cannot free up by time, so
// no later refusal would be reported instead.
func (v *Verdict) Add(r *Refusal) (final bool) {
	switch {
	case v.chosen != nil && v.chosen.RetryAt.IsZero():
	case v.chosen == nil, r.RetryAt.IsZero(), r.RetryAt.After(v.chosen.RetryAt):
		v.chosen = r
	}
	return v.chosen.RetryAt.IsZero()
}

// Err returns the refusal to report, or nil when none was added.
func (v *Verdict) Err() error {
	if v.chosen == nil {
		return nil
	}
	return v.chosen
}

// leftOf returns max - used, or 0 when used is already past max.
func leftOf(max, used *big.Int) *big.Int {
	left := new(big.Int).Sub(max, used)
	if left.Sign() < 0 {
		left.SetInt64(0)
	}
	return left
}

package ledger

import (
	"fmt"
	"math/big"
	"time"
)

// Limits are what a store checks every reservation against. A nil amount and a zero count
// are unlimited.
type Limits struct {
	// Total bounds Spent plus Held.
	Total *big.Int
	// PerPayment bounds one reservation's amount.
	PerPayment *big.Int
	// Windows bound what is reserved in every rolling window of their length.
	Windows []Window
	// PerPayee bounds the Spent plus Held to any one payee without an entry in Payees.
	PerPayee *big.Int
	// Payees bounds the Spent plus Held to the payees it names, each in the form the
	// reservations give it (Reservation.PayTo): payees are compared exactly.
	Payees map[string]*big.Int
}

// Window bounds the reservations of a rolling window: at every instant, the holds reserved
// within the last Length and not released.
type Window struct {
	// Length is the window's length; positive.
	Length time.Duration
	// Amount bounds the sum of those holds; nil is unlimited.
	Amount *big.Int
	// Count bounds their number; 0 is unlimited.
	Count int
}

// Validate reports the first invalid limit as an *InputError: a negative amount or count, a
// window without a positive length or without any bound, an empty payee.
func (l *Limits) Validate() error {
	for _, c := range []struct {
		field string
		v     *big.Int
	}{{"total", l.Total}, {"per-payment limit", l.PerPayment}, {"per-payee limit", l.PerPayee}} {
		if c.v != nil && c.v.Sign() < 0 {
			return &InputError{Field: c.field, Reason: "must not be negative"}
		}
	}
	for i, w := range l.Windows {
		field := fmt.Sprintf("window %d", i+1)
		switch {
		case w.Length <= 0:
			return &InputError{Field: field, Reason: "its length must be positive"}
		case w.Amount != nil && w.Amount.Sign() < 0, w.Count < 0:
			return &InputError{Field: field, Reason: "its amount and count must not be negative"}
		case w.Amount == nil && w.Count == 0:
			return &InputError{Field: field, Reason: "bounds nothing: set an amount, a count or both"}
		}
	}
	for payee, v := range l.Payees {
		switch {
		case payee == "":
			return &InputError{Field: "payee limit", Reason: "the payee must not be empty"}
		case v == nil || v.Sign() < 0:
			return &InputError{Field: "payee limit " + payee, Reason: "must be a non-negative amount"}
		}
	}
	return nil
}

// PayeeCap returns the limit on what may go to payTo: its entry in Payees, else PerPayee;
// nil when nothing limits it.
func (l *Limits) PayeeCap(payTo string) *big.Int {
	if c, ok := l.Payees[payTo]; ok {
		return c
	}
	return l.PerPayee
}

// longest returns the length of the longest window, 0 when there is none.
func (l *Limits) longest() time.Duration {
	var d time.Duration
	for _, w := range l.Windows {
		d = max(d, w.Length)
	}
	return d
}

// Clone returns a deep copy of l, so that the caller's values can change without changing
// the store's.
func (l Limits) Clone() Limits {
	c := Limits{Total: clone(l.Total), PerPayment: clone(l.PerPayment), PerPayee: clone(l.PerPayee)}
	for _, w := range l.Windows {
		c.Windows = append(c.Windows, Window{Length: w.Length, Amount: clone(w.Amount), Count: w.Count})
	}
	if l.Payees != nil {
		c.Payees = make(map[string]*big.Int, len(l.Payees))
		for k, v := range l.Payees {
			c.Payees[k] = clone(v)
		}
	}
	return c
}

// clone returns a copy of v, or nil.
func clone(v *big.Int) *big.Int {
	if v == nil {
		return nil
	}
	return new(big.Int).Set(v)
}

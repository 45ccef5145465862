package ledger

import "math/big"

// Usage is what a store knows of its holds when it checks a reservation: the sums its
// atomic step keeps, and the walks that say when enough frees up. Check asks for a walk only
// for a limit that refuses, so a store that keeps its sums checks a reservation in flat
// cost. The windows are those of the limits, in order, moved to the reservation's time.
// Payees are compared exactly.
type Usage interface {
	// Total returns the spent plus held of every hold.
	Total() *big.Int
	// TotalFreeing returns the deadline (expiry plus ExpiryMargin) of the refused hold whose
	// release, with that of every refused hold before it (by deadline, then reservation),
	// frees at least need; false when all of them together free less.
	TotalFreeing(need *big.Int) (deadline int64, ok bool)
	// Payee returns the spent plus held of the holds to payee; nil is zero.
	Payee(payee string) *big.Int
	// PayeeFreeing is TotalFreeing for the refused holds to payee.
	PayeeFreeing(payee string, need *big.Int) (deadline int64, ok bool)
	// Window returns the number and the sum of the holds inside window i and not released:
	// those reserved after the reservation's time minus the window's length (at a later
	// time, before the clock went back, included).
	Window(i int) (count int, sum *big.Int)
	// Nth returns the reservation time of the n-th of those holds by reservation time (n
	// from 1).
	Nth(i, n int) (at int64, ok bool)
	// Leaving returns the reservation time of the hold of window i whose leaving, with that
	// of every one reserved before it, frees at least need; false when all of them together
	// free less.
	Leaving(i int, need *big.Int) (at int64, ok bool)
}

// zero is the use of an account without holds; never written.
var zero big.Int

// Checker checks reservations against limits, as every store must: it computes the
// refusals, what is left under each limit and RetryAt, and chooses the one to report (see
// the package documentation), so that no store writes these rules again. It reuses its
// working values: one goroutine uses a Checker at a time.
type Checker struct {
	need big.Int
}

// Check returns the *Refusal of a reservation of amount to payTo under l, given what u says
// of the store's holds, or nil when it fits under every limit.
func (c *Checker) Check(l *Limits, amount *big.Int, payTo string, u Usage) error {
	var v Verdict
	if l.PerPayment != nil && amount.Cmp(l.PerPayment) > 0 {
		v.Add(&Refusal{Kind: KindPerPayment, Max: clone(l.PerPayment), Left: clone(l.PerPayment)})
		return v.Err()
	}
	if l.Total != nil {
		if r := c.over(KindTotal, l.Total, u.Total(), amount, u.TotalFreeing); r != nil && v.Add(r) {
			return v.Err()
		}
	}
	if limit := l.PayeeCap(payTo); limit != nil {
		freeing := func(need *big.Int) (int64, bool) { return u.PayeeFreeing(payTo, need) }
		if r := c.over(KindPayee, limit, u.Payee(payTo), amount, freeing); r != nil {
			r.PayTo = payTo
			if v.Add(r) {
				return v.Err()
			}
		}
	}
	for i, w := range l.Windows {
		if c.window(&v, i, w, amount, u) {
			break
		}
	}
	return v.Err()
}

// over returns the refusal of a limit max, of which used (nil: nothing) is taken, for
// amount, or nil when amount fits; freeing says when refused holds free enough of used.
func (c *Checker) over(kind Kind, max, used, amount *big.Int, freeing func(need *big.Int) (int64, bool)) *Refusal {
	if used == nil {
		used = &zero
	}
	need := c.need.Add(used, amount)
	if need.Sub(need, max).Sign() <= 0 {
		return nil
	}
	r := &Refusal{Kind: kind, Max: clone(max), Left: leftOf(max, used)}
	if deadline, ok := freeing(need); ok {
		r.RetryAt = Time(deadline + 1) // released once now is after the deadline
	}
	return r
}

// window adds to v the refusals of window i, w, for a reservation of amount, and reports
// whether the verdict is final.
func (c *Checker) window(v *Verdict, i int, w Window, amount *big.Int, u Usage) bool {
	count, sum := u.Window(i)
	if w.Count > 0 && count+1 > w.Count {
		r := &Refusal{Kind: KindWindowCount, Window: w.Length, Max: big.NewInt(int64(w.Count)),
			Left: big.NewInt(int64(max(w.Count-count, 0)))}
		if at, ok := u.Nth(i, count+1-w.Count); ok {
			r.RetryAt = Time(AddNanos(at, w.Length))
		}
		if v.Add(r) {
			return true
		}
	}
	if w.Amount == nil {
		return false
	}
	total := c.need.Add(sum, amount)
	if total.Cmp(w.Amount) <= 0 {
		return false
	}
	r := &Refusal{Kind: KindWindowAmount, Window: w.Length, Max: clone(w.Amount), Left: leftOf(w.Amount, sum)}
	if amount.Cmp(w.Amount) <= 0 {
		if at, ok := u.Leaving(i, total.Sub(total, w.Amount)); ok {
			r.RetryAt = Time(AddNanos(at, w.Length))
		}
	}
	return v.Add(r)
}

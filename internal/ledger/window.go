package ledger

import (
	"math"
	"math/big"
)

// window keeps one Window's running sums: the holds reserved within its length and not
// released, in a queue ordered by reservation time. Holds enter at the back and leave at the
// front as time passes (amortised O(1) each); a hold released while inside leaves the sums
// at once and its queue entry when it reaches the front.
type window struct {
	Window
	queue []*hold // queue[head:] are the holds reserved after mark - Length
	head  int
	// mark is the latest time the window was moved to: a hold is inside when its
	// reservation time plus Length is after mark.
	mark  int64
	sum   big.Int // the amounts of the holds inside and not released
	count int     // their number
}

// newWindow returns the running sums of w, empty.
func newWindow(w Window) *window { return &window{Window: w, mark: math.MinInt64} }

// inside reports whether h, reserved at or before the latest time the window was moved to,
// still counts in it.
func (w *window) inside(h *hold) bool { return AddNanos(h.at, w.Length) > w.mark }

// advance moves the window to now: the holds whose time in it has passed leave.
func (w *window) advance(now int64) {
	if now <= w.mark {
		return
	}
	w.mark = now
	for w.head < len(w.queue) && !w.inside(w.queue[w.head]) {
		if h := w.queue[w.head]; h.state != Released {
			w.sum.Sub(&w.sum, &h.amount)
			w.count--
		}
		w.queue[w.head] = nil
		w.head++
	}
	if w.head > 64 && w.head*2 > len(w.queue) {
		w.queue = append(w.queue[:0], w.queue[w.head:]...)
		w.head = 0
	}
}

// add counts h, reserved at the time the window was last moved to.
func (w *window) add(h *hold) {
	w.queue = append(w.queue, h)
	w.sum.Add(&w.sum, &h.amount)
	w.count++
}

// release takes the amount of h, just released, out of the sums if it was inside.
func (w *window) release(h *hold) {
	if w.inside(h) {
		w.sum.Sub(&w.sum, &h.amount)
		w.count--
	}
}

// check adds to v the refusals of the window, moved to now, for a reservation of amount;
// it reports whether the verdict is final. total is scratch space.
func (w *window) check(v *Verdict, amount, total *big.Int) bool {
	if w.Count > 0 && w.count+1 > w.Count {
		r := &Refusal{Kind: KindWindowCount, Window: w.Length, Max: big.NewInt(int64(w.Count)),
			Left: big.NewInt(int64(max(w.Count-w.count, 0)))}
		if h := w.nth(w.count + 1 - w.Count); h != nil {
			r.RetryAt = Time(AddNanos(h.at, w.Length))
		}
		if v.Add(r) {
			return true
		}
	}
	if w.Amount == nil {
		return false
	}
	if total.Add(&w.sum, amount).Cmp(w.Amount) <= 0 {
		return false
	}
	r := &Refusal{Kind: KindWindowAmount, Window: w.Length, Max: new(big.Int).Set(w.Amount), Left: leftOf(w.Amount, &w.sum)}
	if amount.Cmp(w.Amount) <= 0 {
		if h := w.freeing(total.Sub(total, w.Amount)); h != nil {
			r.RetryAt = Time(AddNanos(h.at, w.Length))
		}
	}
	return v.Add(r)
}

// nth returns the n-th oldest hold inside and not released (n from 1), or nil.
func (w *window) nth(n int) *hold {
	for _, h := range w.queue[w.head:] {
		if h.state == Released {
			continue
		}
		if n--; n == 0 {
			return h
		}
	}
	return nil
}

// freeing returns the hold whose leaving, with the older ones, frees at least need, or nil.
func (w *window) freeing(need *big.Int) *hold {
	var freed big.Int
	for _, h := range w.queue[w.head:] {
		if h.state == Released {
			continue
		}
		if freed.Add(&freed, &h.amount); freed.Cmp(need) >= 0 {
			return h
		}
	}
	return nil
}

//go:build ignore

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

package ledger

import (
	"container/heap"
	"math/big"
	"time"
)

// window keeps one Window's running sums as of the latest reading of the store's clock it
// was moved to: the holds reserved after that reading minus Length, and not released, count
// (those reserved at a later reading, before the clock went back, included). The holds that
// count sit in a heap by reservation time, so that the clock moving forward takes the oldest
// out in O(log n) each; those taken out are kept, by reservation time, for the window's
// Length of credited time (see Memory.tick), so that the clock going back counts them again.
type window struct {
	Window
	inside reservationHeap // the holds reserved after cutoff; released ones stay until they leave
	kept   []keptHold      // kept[head:] are holds reserved at or before cutoff, by reservation time
	head   int
	cutoff int64   // the reading the window was moved to, minus Length
	sum    big.Int // the amounts of the holds inside and not released
	count  int     // their number
}

// keptHold is a hold that left a window, and the credited time when it left.
type keptHold struct {
	h      *hold
	credit int64
}

// newWindow returns the running sums of w, empty, as of reading now.
func newWindow(w Window, now int64) *window {
	return &window{Window: w, cutoff: now - int64(w.Length)}
}

// moveTo moves the window to reading now, forward or back: the holds whose time in it has
// passed leave it (kept, from credit on), and kept holds reserved within Length before now
// count again. It then forgets the kept holds that left more than Length of credited time
// ago, and the released ones at the front.
func (w *window) moveTo(now, credit int64) {
	cut := now - int64(w.Length)
	for len(w.inside.items) > 0 && w.inside.items[0].at <= cut {
		if h := heap.Pop(&w.inside).(*hold); h.state != Released {
			w.uncount(h)
			w.kept = append(w.kept, keptHold{h: h, credit: credit})
		}
	}
	for n := len(w.kept); n > w.head && w.kept[n-1].h.at > cut; n = len(w.kept) {
		h := w.kept[n-1].h
		w.kept[n-1] = keptHold{}
		w.kept = w.kept[:n-1]
		if h.state != Released {
			heap.Push(&w.inside, h)
			w.tally(h)
		}
	}
	w.cutoff = cut
	for w.head < len(w.kept) && (w.kept[w.head].h.state == Released || credit-w.kept[w.head].credit > int64(w.Length)) {
		w.kept[w.head] = keptHold{}
		w.head++
	}
	if w.head > 64 && w.head*2 > len(w.kept) {
		w.kept = append(w.kept[:0], w.kept[w.head:]...)
		w.head = 0
	}
}

// place puts h, read back by Restore, where it belongs: inside when reserved after the
// cutoff, else kept as having left at credit. Holds are placed in reservation-time order.
func (w *window) place(h *hold, credit int64) {
	if h.at > w.cutoff {
		w.add(h)
		return
	}
	w.kept = append(w.kept, keptHold{h: h, credit: credit})
}

// add counts h, reserved after the cutoff.
func (w *window) add(h *hold) {
	heap.Push(&w.inside, h)
	w.tally(h)
}

// tally adds h to the sums.
func (w *window) tally(h *hold) {
	w.sum.Add(&w.sum, &h.amount)
	w.count++
}

// uncount takes h out of the sums.
func (w *window) uncount(h *hold) {
	w.sum.Sub(&w.sum, &h.amount)
	w.count--
}

// release takes the amount of h, just released, out of the sums if it counts.
func (w *window) release(h *hold) {
	if h.at > w.cutoff {
		w.uncount(h)
	}
}

// holds returns the holds the window knows of and that are not released: those it counts
// and those it keeps.
func (w *window) holds() []*hold {
	var out []*hold
	for _, k := range w.kept[w.head:] {
		if k.h.state != Released {
			out = append(out, k.h)
		}
	}
	for _, h := range w.inside.items {
		if h.state != Released {
			out = append(out, h)
		}
	}
	return out
}

// nth returns the n-th oldest hold inside and not released (n from 1), or nil.
func (w *window) nth(n int) (found *hold) {
	walkHeap(w.inside.items, reservedBefore, func(h *hold) bool {
		if h.state == Released {
			return true
		}
		if n--; n == 0 {
			found = h
		}
		return found == nil
	})
	return found
}

// freeing returns the hold whose leaving, with the older ones, frees at least need, or nil.
func (w *window) freeing(need *big.Int) (found *hold) {
	var freed big.Int
	walkHeap(w.inside.items, reservedBefore, func(h *hold) bool {
		if h.state == Released {
			return true
		}
		if freed.Add(&freed, &h.amount); freed.Cmp(need) >= 0 {
			found = h
		}
		return found == nil
	})
	return found
}

// reservedBefore orders two holds by reservation time, then by reservation.
func reservedBefore(a, b *hold) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// reservationHeap is a binary heap of holds by reservation time.
type reservationHeap struct{ items []*hold }

// Len is heap.Interface's: the number of holds.
func (x *reservationHeap) Len() int { return len(x.items) }

// Less is heap.Interface's: whether the i-th comes first.
func (x *reservationHeap) Less(i, j int) bool { return reservedBefore(x.items[i], x.items[j]) }

// Swap is heap.Interface's: it exchanges the i-th and the j-th.
func (x *reservationHeap) Swap(i, j int) { x.items[i], x.items[j] = x.items[j], x.items[i] }

// Push is heap.Interface's.
func (x *reservationHeap) Push(v any) { x.items = append(x.items, v.(*hold)) }

// Pop is heap.Interface's.
func (x *reservationHeap) Pop() any {
	n := len(x.items) - 1
	h := x.items[n]
	x.items[n] = nil
	x.items = x.items[:n]
	return h
}

// retentionStep is the most a step forward of the store's clock adds to the credited time
// that bounds how long a window keeps the holds that left it: a clock that jumps years ahead
// adds a second, so the holds that left on the jump are still there when the clock is
// corrected back.
const retentionStep = time.Second

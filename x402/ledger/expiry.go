package ledger

import (
	"container/heap"
	"math/big"
)

// expiryIndex holds refused holds ordered by deadline (expiry plus ExpiryMargin), then by
// reservation: a binary heap whose holds know their position (hold.pos[slot]), so a hold
// leaves it in O(log n) when it stops being refused. It keeps the sum of its amounts.
type expiryIndex struct {
	items []*hold
	slot  int // which of hold.pos this index uses
	sum   big.Int
}

// expiresBefore orders two holds by deadline, then by reservation.
func expiresBefore(a, b *hold) bool {
	if a.deadline != b.deadline {
		return a.deadline < b.deadline
	}
	return a.seq < b.seq
}

// Len is heap.Interface's: the number of holds.
func (x *expiryIndex) Len() int { return len(x.items) }

// Less is heap.Interface's: whether the i-th comes first.
func (x *expiryIndex) Less(i, j int) bool { return expiresBefore(x.items[i], x.items[j]) }

// Swap is heap.Interface's: it exchanges the i-th and the j-th.
func (x *expiryIndex) Swap(i, j int) {
	x.items[i], x.items[j] = x.items[j], x.items[i]
	x.items[i].pos[x.slot] = i
	x.items[j].pos[x.slot] = j
}

// Push is heap.Interface's; use add.
func (x *expiryIndex) Push(v any) {
	h := v.(*hold)
	h.pos[x.slot] = len(x.items)
	x.items = append(x.items, h)
}

// Pop is heap.Interface's; use remove.
func (x *expiryIndex) Pop() any {
	n := len(x.items) - 1
	h := x.items[n]
	x.items[n] = nil
	x.items = x.items[:n]
	h.pos[x.slot] = -1
	return h
}

// add puts h in the index.
func (x *expiryIndex) add(h *hold) {
	heap.Push(x, h)
	x.sum.Add(&x.sum, &h.amount)
}

// remove takes h out of the index, if it is in.
func (x *expiryIndex) remove(h *hold) {
	if i := h.pos[x.slot]; i >= 0 {
		heap.Remove(x, i)
		x.sum.Sub(&x.sum, &h.amount)
	}
}

// freeing returns the deadline of the hold whose expiry, with all those expiring before it,
// frees at least need; false when all of them together free less.
func (x *expiryIndex) freeing(need *big.Int) (deadline int64, ok bool) {
	if x.sum.Cmp(need) < 0 {
		return 0, false
	}
	var freed big.Int
	walkHeap(x.items, expiresBefore, func(h *hold) bool {
		if freed.Add(&freed, &h.amount); freed.Cmp(need) >= 0 {
			deadline, ok = h.deadline, true
			return false
		}
		return true
	})
	return deadline, ok
}

//go:build ignore

package ledger

import (
	"container/heap"
	"math/big"
)

// expiryIndex holds refused holds ordered by deadline (expiry plus ExpiryMargin), then by
// HoldID: a binary heap whose holds know their position (hold.pos[slot]), so a hold
// leaves it in O(log n) when it stops being refused. It keeps the sum of its amounts.
type expiryIndex struct {
	items []*hold
	slot  int // which of hold.pos this index uses
	sum   big.Int
}

// before orders two holds by deadline, then by HoldID.
func before(a, b *hold) bool {
	if a.deadline != b.deadline {
		return a.deadline < b.deadline
	}
	return a.id < b.id
}

func (x *expiryIndex) Len() int           { return len(x.items) }
func (x *expiryIndex) Less(i, j int) bool { return before(x.items[i], x.items[j]) }
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
// frees at least need; false when all of them together free less. It visits the holds in
// deadline order without changing the index: O(k log k) for the k holds visited.
func (x *expiryIndex) freeing(need *big.Int) (int64, bool) {
	if x.sum.Cmp(need) < 0 {
		return 0, false
	}
	var freed big.Int
	front := &frontier{x: x, idx: []int{0}}
	for front.Len() > 0 {
		i := heap.Pop(front).(int)
		h := x.items[i]
		if freed.Add(&freed, &h.amount); freed.Cmp(need) >= 0 {
			return h.deadline, true
		}
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(x.items) {
				heap.Push(front, c)
			}
		}
	}
	return 0, false
}

// frontier is the set of positions of an expiryIndex whose parents were visited, ordered as
// the index orders their holds: its minimum is the next hold in deadline order.
type frontier struct {
	x   *expiryIndex
	idx []int
}

func (f *frontier) Len() int           { return len(f.idx) }
func (f *frontier) Less(i, j int) bool { return before(f.x.items[f.idx[i]], f.x.items[f.idx[j]]) }
func (f *frontier) Swap(i, j int)      { f.idx[i], f.idx[j] = f.idx[j], f.idx[i] }

// Push is heap.Interface's.
func (f *frontier) Push(v any) { f.idx = append(f.idx, v.(int)) }

// Pop is heap.Interface's.
func (f *frontier) Pop() any {
	n := len(f.idx) - 1
	v := f.idx[n]
	f.idx = f.idx[:n]
	return v
}

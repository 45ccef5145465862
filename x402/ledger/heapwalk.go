package ledger

import "container/heap"

// walkHeap visits the holds of items, a binary heap ordered by less, in that order without
// changing it, until visit returns false: O(k log k) for the k holds visited, so that a walk
// that stops early never reads the whole heap.
func walkHeap(items []*hold, less func(a, b *hold) bool, visit func(*hold) bool) {
	if len(items) == 0 {
		return
	}
	front := &frontier{items: items, less: less, idx: []int{0}}
	for front.Len() > 0 {
		i := heap.Pop(front).(int)
		if !visit(items[i]) {
			return
		}
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(items) {
				heap.Push(front, c)
			}
		}
	}
}

// frontier is the set of positions of a heap whose parents were visited, ordered as the heap
// orders their holds: its minimum is the next hold in order.
type frontier struct {
	items []*hold
	less  func(a, b *hold) bool
	idx   []int
}

// Len is heap.Interface's: the number of positions.
func (f *frontier) Len() int { return len(f.idx) }

// Less is heap.Interface's: whether the i-th comes first.
func (f *frontier) Less(i, j int) bool { return f.less(f.items[f.idx[i]], f.items[f.idx[j]]) }

// Swap is heap.Interface's: it exchanges the i-th and the j-th.
func (f *frontier) Swap(i, j int) { f.idx[i], f.idx[j] = f.idx[j], f.idx[i] }

// Push is heap.Interface's.
func (f *frontier) Push(v any) { f.idx = append(f.idx, v.(int)) }

// Pop is heap.Interface's.
func (f *frontier) Pop() any {
	n := len(f.idx) - 1
	v := f.idx[n]
	f.idx = f.idx[:n]
	return v
}

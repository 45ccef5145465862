package x402

import (
	"math/big"
	"sync"
)

// ledger keeps the running total of a Payer. A payment reserves its amount before it is
// signed; the reservation is committed when the server accepts the payment, released when the
// server refuses it, and otherwise kept, so that the total never passes the cap even when a
// payment's outcome is unknown. It is safe for concurrent use.
type ledger struct {
	mu        sync.Mutex
	limit     *big.Int // nil: no cap
	committed big.Int
	reserved  big.Int
}

// reservation is an amount held in a ledger until it is committed or released.
type reservation struct {
	l      *ledger
	amount *big.Int
	done   bool // guarded by l.mu
}

// reserve holds amount when committed + reserved + amount stays within the limit. Otherwise it
// reports false and the budget left.
func (l *ledger) reserve(amount *big.Int) (*reservation, *big.Int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit != nil {
		left := new(big.Int).Sub(l.limit, &l.committed)
		left.Sub(left, &l.reserved)
		if amount.Cmp(left) > 0 {
			return nil, left, false
		}
	}
	l.reserved.Add(&l.reserved, amount)
	return &reservation{l: l, amount: new(big.Int).Set(amount)}, nil, true
}

// commit moves the reservation into the spent total; only the first commit or release counts.
func (r *reservation) commit() {
	r.l.mu.Lock()
	defer r.l.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	r.l.reserved.Sub(&r.l.reserved, r.amount)
	r.l.committed.Add(&r.l.committed, r.amount)
}

// release gives the reservation back; only the first commit or release counts.
func (r *reservation) release() {
	r.l.mu.Lock()
	defer r.l.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	r.l.reserved.Sub(&r.l.reserved, r.amount)
}

// totals returns copies of the committed and reserved totals.
func (l *ledger) totals() (committed, reserved *big.Int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return new(big.Int).Set(&l.committed), new(big.Int).Set(&l.reserved)
}

//go:build ignore

package ledger

import (
	"context"
	"math/big"
	"time"
)

// Journal is where a durable store keeps the holds of a Memory that does its accounting
// (Restore). The Memory tells it every change to a hold, under its lock and in the order they
// happen, then asks it once per operation, before the operation returns, to write them. The
// Memory keeps the sums, the windows and the indexes, and gives the answers; the journal
// keeps what a new process needs to restore them.
type Journal interface {
	// Record tells of a hold as it now stands: a new one (State Reserved, with its Payer and
	// Asset), one just signed (State Signed, with ID, Expires and Ref), or one moved to Refused, InDoubt, Committed or
	// Released. e.Amount is the Memory's own: read it before returning, never change it.
	Record(e Entry)
	// Commit writes what Record told since the last Commit in one atomic step, and returns
	// once it survives the end of the process; with sync, once it survives a power loss too.
	// With nothing told it does nothing. A failure breaks the Memory: the operation and
	// every later call return it, until the store is opened again.
	Commit(sync bool) error
	// Ended returns the state of a hold that is no longer outstanding (Committed or
	// Released), what Record told since the last Commit included, or ErrUnknownHold for an
	// id never given.
	Ended(id HoldID) (State, error)
}

// Snapshot is what a durable store read back of its holds when it opened, after applying
// the reopening rules: what Restore rebuilds a Memory from.
type Snapshot struct {
	// Holds are, in HoldID order, the holds neither committed nor released, and the
	// committed ones that may still count in a window: those reserved less than the longest
	// window's length before LastAt. Others are ignored.
	Holds []Entry
	// Spent is, by payee in lower case, the sum of the committed holds to that payee.
	Spent map[string]*big.Int
	// Last is the latest HoldID given (0 when none was), and LastAt its reservation time.
	Last   HoldID
	LastAt time.Time
}

// Restore returns a Memory configured with limits that holds what s describes and writes
// every change through j: the accounts of a durable store while its process has it open.
// Every later HoldID is above s.Last, and every later reservation at or after s.LastAt.
// Invalid limits are an *InputError.
func Restore(limits Limits, s Snapshot, j Journal) (*Memory, error) {
	m := NewMemory()
	if err := m.Configure(context.Background(), limits); err != nil {
		return nil, err
	}
	m.journal, m.last = j, s.Last
	if s.Last > 0 {
		m.lastAt = s.LastAt.UnixNano()
	}
	for payTo, v := range s.Spent {
		m.spent.Add(&m.spent, v)
		if m.limits.PayeeCap(payTo) != nil {
			acct := m.account(payTo)
			acct.used.Add(&acct.used, v)
		}
	}
	for _, e := range s.Holds {
		if e.State == Released {
			continue
		}
		h := &hold{id: e.Hold, payTo: e.PayTo, rail: e.Rail, resource: e.Resource, payer: e.Payer, asset: e.Asset,
			at: e.Reserved.UnixNano(), sigID: e.ID, ref: e.Ref, state: e.State, pos: [2]int{-1, -1}}
		h.amount.Set(e.Amount)
		if !e.Expires.IsZero() {
			h.expires = e.Expires.UnixNano()
			h.deadline = AddNanos(h.expires, ExpiryMargin)
		}
		for _, w := range m.windows {
			w.add(h)
		}
		if e.State == Committed {
			continue // counted in Spent already; it only counts in the windows
		}
		m.admit(h)
		if h.sigID != "" {
			m.byID[h.sigID] = h
		}
		if h.state == Refused {
			m.index(h)
		}
	}
	for _, w := range m.windows {
		w.advance(m.lastAt) // the holds that have left the window go
	}
	return m, nil
}

// record tells the journal, if any, of h as it now stands.
func (m *Memory) record(h *hold) {
	if m.journal != nil {
		m.journal.Record(h.entry())
	}
}

// entry returns h as an Entry whose Amount is h's own.
func (h *hold) entry() Entry {
	e := Entry{Hold: h.id, Amount: &h.amount, PayTo: h.payTo, Rail: h.rail, Resource: h.resource,
		Payer: h.payer, Asset: h.asset, Reserved: Time(h.at), ID: h.sigID, Ref: h.ref, State: h.state}
	if h.expires != 0 {
		e.Expires = Time(h.expires)
	}
	return e
}

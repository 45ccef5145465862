package ledger

import (
	"math/big"
	"time"

	sdk "github.com/agentapis/sdk"
)

// Journal is where a durable store keeps the holds of a Memory that does its accounting
// (Restore). The Memory tells it every change to a hold, under its lock and in the order they
// happen, then asks it once per operation, before the operation returns, to write them. The
// Memory keeps the sums, the windows and the indexes, and gives the answers; the journal
// keeps what a new process needs to restore them.
type Journal interface {
	// Record tells of a hold as it now stands: a new one (State Reserved, with its
	// reservation and Reserved time), one just signed (State Signed, with its Signature),
	// or one moved to Refused, InDoubt, Committed or Released. o.Amount is the Memory's own:
	// read it before returning, never change it.
	Record(o Outstanding)
	// Commit writes what Record told since the last Commit in one atomic step, and returns
	// once it survives the end of the process; with sync, once it survives a power loss too.
	// With nothing told it does nothing. A failure breaks the Memory: the operation and
	// every later call return it, until the store is opened again.
	Commit(sync bool) error
	// Ended returns the state of a hold that is no longer outstanding (Committed or
	// Released), what Record told since the last Commit included, or ErrUnknownHold for an
	// id never recorded.
	Ended(id HoldID) (State, error)
}

// Snapshot is what a durable store read back of its holds when it opened, after applying
// the reopening rules: what Restore rebuilds a Memory from.
type Snapshot struct {
	// At is the reading of the store's clock when it read the holds back.
	At time.Time
	// Holds are, in reservation order, the holds neither committed nor released, and the
	// committed ones reserved after Limits.Since(At). Others are ignored.
	Holds []Outstanding
	// Spent is, by payee, the sum of the committed holds to that payee.
	Spent map[string]*big.Int
	// Expired are refused holds that the Memory being replaced released when their deadline
	// passed by its clock (Memory.Expired): a release that is that process's reading of its
	// clock, which the journal is never told, so the store still holds them refused. A store
	// that reads its holds back while its process keeps running (a limit change) passes them,
	// and Restore keeps them released; a process that opens the store anew decides again.
	Expired []HoldID
}

// Since returns the reservation time after which a Memory configured with l counts or keeps
// holds in its windows at reading at: twice the longest window's length before it, so that a
// clock going back by up to a window's length finds them; the zero Time when l has no window.
func (l *Limits) Since(at time.Time) time.Time {
	longest := l.longest()
	if longest == 0 {
		return time.Time{}
	}
	return at.Add(-2 * longest)
}

// Restore returns a Memory configured with limits, reading clock (nil: sdk.SystemClock()),
// that holds what s describes and writes every change through j: the accounts of a durable
// store while its process has it open. Its windows start at s.At. Invalid limits are an
// *InputError.
func Restore(limits Limits, s Snapshot, j Journal, clock sdk.Clock) (*Memory, error) {
	if err := limits.Validate(); err != nil {
		return nil, err
	}
	at, err := Nanos("snapshot time", s.At)
	if err != nil {
		return nil, err
	}
	m := NewMemory(clock)
	m.journal, m.read = j, at
	for payTo, v := range s.Spent {
		m.spent.Add(&m.spent, v)
		acct := m.account(payTo)
		acct.used.Add(&acct.used, v)
	}
	for _, id := range s.Expired {
		m.ended[id] = false
	}
	var counted []*hold // the holds the windows may count, in reservation order
	for _, o := range s.Holds {
		if _, expired := m.ended[o.Hold]; expired || o.State == Released {
			continue
		}
		m.seq++
		h := &hold{id: o.Hold, seq: m.seq, payTo: o.PayTo, rail: o.Rail, resource: o.Resource, payer: o.Payer, asset: o.Asset,
			at: o.Reserved.UnixNano(), sigID: o.ID, ref: o.Ref, state: o.State, pos: [2]int{-1, -1}}
		h.amount.Set(o.Amount)
		if !o.Expires.IsZero() {
			h.expires = o.Expires.UnixNano()
			h.deadline = AddNanos(h.expires, ExpiryMargin)
		}
		counted = append(counted, h)
		if o.State == Committed {
			continue // counted in Spent already; it only counts in the windows
		}
		m.admit(h)
		if h.sigID != "" {
			if m.byID[h.sigID] == nil {
				m.byID[h.sigID] = h
			} else {
				m.sharedIDs = true
			}
		}
		if h.state == Refused {
			m.index(h)
		}
	}
	m.setLimits(limits, at, counted)
	return m, nil
}

// record tells the journal, if any, of h as it now stands.
func (m *Memory) record(h *hold) {
	if m.journal != nil {
		m.journal.Record(h.outstanding())
	}
}

// outstanding returns h as an Outstanding whose Amount is h's own.
func (h *hold) outstanding() Outstanding {
	o := Outstanding{Hold: h.id, Amount: &h.amount, PayTo: h.payTo, Rail: h.rail, Resource: h.resource,
		Payer: h.payer, Asset: h.asset, Reserved: Time(h.at), Signature: Signature{ID: h.sigID, Ref: h.ref}, State: h.state}
	if h.expires != 0 {
		o.Expires = Time(h.expires)
	}
	return o
}

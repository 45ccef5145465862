//go:build ignore

package ledger

import (
	"cmp"
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"
)

// Memory is the in-memory Store, the default of x402.Budget. Its holds last as long as the
// process: nothing survives a restart, and two processes each have their own. Every
// operation costs the same whatever the number of outstanding holds (see the package
// documentation); it keeps one bit per hold ever reserved, so that HoldState answers for
// ended holds too.
//
// A reservation is recorded at the caller's time, or at the latest reservation's time when
// the caller's is earlier (two goroutines reading the clock in one order and reserving in
// the other): a hold then counts in its windows a little longer, never shorter.
//
// A durable store keeps its accounts in a Memory too, restored from what it read back
// (Restore) and writing every change through its Journal.
type Memory struct {
	mu         sync.Mutex
	configured bool
	closed     bool
	limits     Limits
	windows    []*window
	spent      big.Int
	held       big.Int
	last       HoldID // the latest HoldID given
	lastAt     int64  // the latest reservation time
	live       map[HoldID]*hold
	byID       map[string]*hold  // the signed live holds by signing ID
	committed  []uint64          // bit id-1 is set for a committed hold (without a journal)
	refused    expiryIndex       // the refused live holds that expire
	payees     map[string]*payee // lower-case payee -> account, for the payees with a limit
	checker    Checker           // Reserve's, whose working values it reuses
	total      big.Int           // a working value of Reserve: spent plus held
	journal    Journal           // nil: the holds live in memory only
	broken     error             // the journal's failure, after which every call fails
}

// payee is the account of one limited payee.
type payee struct {
	used    big.Int     // spent plus held
	refused expiryIndex // its refused live holds that expire
}

// hold is one hold of a Memory.
type hold struct {
	id       HoldID
	amount   big.Int
	payTo    string
	rail     string
	resource string
	payer    string
	asset    string
	ref      string
	at       int64 // reservation time
	sigID    string
	expires  int64 // 0: unknown
	deadline int64 // expires plus ExpiryMargin
	state    State
	pos      [2]int // positions in Memory.refused and payee.refused; -1 outside
	account  *payee // nil when the payee has no limit
}

// NewMemory returns an empty in-memory store, to be configured.
func NewMemory() *Memory {
	return &Memory{live: make(map[HoldID]*hold), byID: make(map[string]*hold), payees: make(map[string]*payee)}
}

// ready reports whether m is open, configured and not broken; m.mu is held.
func (m *Memory) ready() error {
	switch {
	case m.closed:
		return ErrClosed
	case !m.configured:
		return ErrNotConfigured
	}
	return m.broken
}

// unlock ends an operation: it writes the operation's changes through the journal, durably
// enough to survive a power loss with sync, then unlocks m.mu. A failure to write becomes
// the operation's error, and every later call's.
func (m *Memory) unlock(err *error, sync bool) {
	if m.journal != nil && m.broken == nil {
		if jerr := m.journal.Commit(sync); jerr != nil {
			m.broken = fmt.Errorf("ledger: a change could not be written, so the store takes no more; reopen it: %w", jerr)
			*err = m.broken
		}
	}
	m.mu.Unlock()
}

// expire releases the refused holds whose deadline is before now; m.mu is held.
func (m *Memory) expire(now int64) {
	for len(m.refused.items) > 0 && now > m.refused.items[0].deadline {
		m.end(m.refused.items[0], Released) // the earliest deadline; end takes it out of the index
	}
}

// begin locks m for an operation at now (a time the caller gave): it checks that m is open
// and configured, and releases the refused holds that have expired. The caller unlocks
// m.mu when begin succeeds.
func (m *Memory) begin(field string, t time.Time) (int64, error) {
	now, err := Nanos(field, t)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	if err := m.ready(); err != nil {
		m.mu.Unlock()
		return 0, err
	}
	m.expire(now)
	return now, nil
}

// Configure sets the limits; see Store.
func (m *Memory) Configure(_ context.Context, limits Limits) error {
	if err := limits.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closed:
		return ErrClosed
	case m.configured:
		return ErrConfigured
	}
	m.limits, m.configured = limits.Clone(), true
	for _, w := range m.limits.Windows {
		m.windows = append(m.windows, newWindow(w))
	}
	return nil
}

// Reserve checks every limit and records the hold; see Store.
func (m *Memory) Reserve(_ context.Context, r Reservation) (_ HoldID, err error) {
	if r.Amount == nil || r.Amount.Sign() < 0 {
		return 0, &InputError{Field: "amount", Reason: "must be a non-negative number of atomic units"}
	}
	now, err := Nanos("reservation time", r.Now)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.unlock(&err, false)
	if err := m.ready(); err != nil {
		return 0, err
	}
	now = max(now, m.lastAt)
	m.expire(now)
	for _, w := range m.windows {
		w.advance(now)
	}
	if err := m.checker.Check(&m.limits, r.Amount, r.PayTo, (*memoryUsage)(m)); err != nil {
		return 0, err
	}
	m.last++
	h := &hold{id: m.last, payTo: r.PayTo, rail: r.Rail, resource: r.Resource, payer: r.Payer, asset: r.Asset, at: now, pos: [2]int{-1, -1}}
	h.amount.Set(r.Amount)
	m.admit(h)
	for _, w := range m.windows {
		w.add(h)
	}
	m.lastAt = now
	m.record(h)
	return h.id, nil
}

// admit counts h, just reserved or read back, as live: in the sum held and in its payee's
// account when the payee has a limit.
func (m *Memory) admit(h *hold) {
	m.live[h.id] = h
	m.held.Add(&m.held, &h.amount)
	if key := strings.ToLower(h.payTo); m.limits.PayeeCap(key) != nil {
		h.account = m.account(key)
		h.account.used.Add(&h.account.used, &h.amount)
	}
}

// account returns the account of payee key (lower case), made empty when it has none.
func (m *Memory) account(key string) *payee {
	acct := m.payees[key]
	if acct == nil {
		acct = &payee{refused: expiryIndex{slot: 1}}
		m.payees[key] = acct
	}
	return acct
}

// memoryUsage is what Reserve's Checker reads of a Memory, whose mu is held and whose
// windows were moved to the reservation's time.
type memoryUsage Memory

// Total returns the spent plus held; see Usage.
func (u *memoryUsage) Total() *big.Int { return u.total.Add(&u.spent, &u.held) }

// TotalFreeing walks the refused holds by deadline; see Usage.
func (u *memoryUsage) TotalFreeing(need *big.Int) (int64, bool) { return u.refused.freeing(need) }

// Payee returns the payee's use; see Usage.
func (u *memoryUsage) Payee(payee string) *big.Int {
	if acct := u.payees[payee]; acct != nil {
		return &acct.used
	}
	return nil
}

// PayeeFreeing walks the payee's refused holds by deadline; see Usage.
func (u *memoryUsage) PayeeFreeing(payee string, need *big.Int) (int64, bool) {
	if acct := u.payees[payee]; acct != nil {
		return acct.refused.freeing(need)
	}
	return 0, false
}

// Window returns a window's running sums; see Usage.
func (u *memoryUsage) Window(i int) (int, *big.Int) { return u.windows[i].count, &u.windows[i].sum }

// Nth walks a window's queue; see Usage.
func (u *memoryUsage) Nth(i, n int) (int64, bool) { return reservedAt(u.windows[i].nth(n)) }

// Leaving walks a window's queue; see Usage.
func (u *memoryUsage) Leaving(i int, need *big.Int) (int64, bool) {
	return reservedAt(u.windows[i].freeing(need))
}

// reservedAt returns the reservation time of h, or false when h is nil.
func reservedAt(h *hold) (int64, bool) {
	if h == nil {
		return 0, false
	}
	return h.at, true
}

// Sign records the signing of a reserved hold; see Store.
func (m *Memory) Sign(_ context.Context, id HoldID, s Signing) (err error) {
	if s.ID == "" {
		return &InputError{Field: "signing id", Reason: "must not be empty"}
	}
	var expires int64
	if !s.Expires.IsZero() {
		if expires, err = Nanos("expiry", s.Expires); err != nil {
			return err
		}
	}
	if _, err := m.begin("time", s.Now); err != nil {
		return err
	}
	defer m.unlock(&err, true) // once Sign returns, the payment may leave
	h := m.live[id]
	switch {
	case h == nil:
		if _, err := m.ended(id); err != nil {
			return err
		}
		return ErrNotReserved
	case h.state != Reserved:
		return ErrNotReserved
	case m.byID[s.ID] != nil:
		return ErrDuplicateID
	}
	h.state, h.sigID, h.expires, h.ref = Signed, s.ID, expires, s.Ref
	if expires != 0 {
		h.deadline = AddNanos(expires, ExpiryMargin)
	}
	m.byID[s.ID] = h
	m.record(h)
	return nil
}

// Mark moves a hold; see Store.
func (m *Memory) Mark(_ context.Context, id HoldID, to State, now time.Time) (_ State, err error) {
	switch to {
	case Refused, InDoubt, Committed, Released:
	default:
		return 0, &InputError{Field: "state", Reason: "a hold can be marked refused, in doubt, committed or released only"}
	}
	if _, err := m.begin("time", now); err != nil {
		return 0, err
	}
	defer m.unlock(&err, false)
	h := m.live[id]
	if h == nil {
		return m.ended(id)
	}
	switch {
	case to == Released && h.state == Reserved:
		m.end(h, Released)
	case to == Released:
		return h.state, ErrSigned
	case to == Committed:
		m.end(h, Committed)
	case to == Refused && h.state == Signed:
		h.state = Refused
		m.index(h)
		m.record(h)
	case to == InDoubt && (h.state == Signed || h.state == Refused):
		m.unindex(h)
		h.state = InDoubt
		m.record(h)
	}
	return h.state, nil
}

// Discard releases a hold whose payment never left; see Store.
func (m *Memory) Discard(_ context.Context, id HoldID, now time.Time) (_ State, err error) {
	if _, err := m.begin("time", now); err != nil {
		return 0, err
	}
	defer m.unlock(&err, false)
	h := m.live[id]
	if h == nil {
		return m.ended(id)
	}
	if h.state == Reserved || h.state == Signed {
		m.end(h, Released)
	}
	return h.state, nil
}

// Resolve ends an outstanding payment by its signing ID; see Store.
func (m *Memory) Resolve(_ context.Context, id string, settled bool, now time.Time) (err error) {
	n, err := m.begin("time", now)
	if err != nil {
		return err
	}
	defer m.unlock(&err, false)
	h := m.byID[id]
	switch {
	case h == nil:
		return ErrUnknownID
	case settled:
		m.end(h, Committed)
	case h.expires == 0 || n <= h.deadline:
		return ErrNotExpired
	default:
		m.end(h, Released)
	}
	return nil
}

// Totals returns the sums; see Store.
func (m *Memory) Totals(_ context.Context, now time.Time) (_ Totals, err error) {
	if _, err := m.begin("time", now); err != nil {
		return Totals{}, err
	}
	defer m.unlock(&err, false) // the refused holds begin released
	return Totals{Spent: new(big.Int).Set(&m.spent), Held: new(big.Int).Set(&m.held)}, nil
}

// Outstanding lists the live holds; see Store.
func (m *Memory) Outstanding(_ context.Context, now time.Time) (_ []Entry, err error) {
	if _, err := m.begin("time", now); err != nil {
		return nil, err
	}
	defer m.unlock(&err, false)
	out := make([]Entry, 0, len(m.live))
	for _, h := range m.live {
		e := h.entry()
		e.Amount = new(big.Int).Set(e.Amount)
		out = append(out, e)
	}
	slices.SortFunc(out, CompareEntries)
	return out, nil
}

// CompareEntries orders entries as Outstanding lists them: oldest expiry first (none
// first), then by ID, then by HoldID.
func CompareEntries(a, b Entry) int {
	if c := a.Expires.Compare(b.Expires); c != 0 {
		return c
	}
	if c := strings.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	return cmp.Compare(a.Hold, b.Hold)
}

// HoldState returns where a hold stands; see Store.
func (m *Memory) HoldState(_ context.Context, id HoldID, now time.Time) (_ State, err error) {
	if _, err := m.begin("time", now); err != nil {
		return 0, err
	}
	defer m.unlock(&err, false)
	if h := m.live[id]; h != nil {
		return h.state, nil
	}
	return m.ended(id)
}

// Close closes the store; see Store.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// ended returns the final state of a hold that is no longer live, or ErrUnknownHold.
func (m *Memory) ended(id HoldID) (State, error) {
	if m.journal != nil {
		return m.journal.Ended(id)
	}
	if id < 1 || id > m.last {
		return 0, ErrUnknownHold
	}
	if i := uint64(id - 1); i/64 < uint64(len(m.committed)) && m.committed[i/64]&(1<<(i%64)) != 0 {
		return Committed, nil
	}
	return Released, nil
}

// index puts h, refused, in the expiry indexes when it expires.
func (m *Memory) index(h *hold) {
	if h.expires != 0 {
		m.refused.add(h)
		if h.account != nil {
			h.account.refused.add(h)
		}
	}
}

// unindex takes h out of the expiry indexes.
func (m *Memory) unindex(h *hold) {
	m.refused.remove(h)
	if h.account != nil {
		h.account.refused.remove(h)
	}
}

// end moves a live hold to Committed or Released and updates the sums.
func (m *Memory) end(h *hold, to State) {
	m.unindex(h)
	m.held.Sub(&m.held, &h.amount)
	if to == Committed {
		m.spent.Add(&m.spent, &h.amount)
		if i := uint64(h.id - 1); m.journal == nil {
			for uint64(len(m.committed)) <= i/64 {
				m.committed = append(m.committed, 0)
			}
			m.committed[i/64] |= 1 << (i % 64)
		}
	} else {
		if h.account != nil {
			h.account.used.Sub(&h.account.used, &h.amount)
		}
		for _, w := range m.windows {
			w.release(h)
		}
	}
	delete(m.live, h.id)
	if h.sigID != "" {
		delete(m.byID, h.sigID)
	}
	h.state = to
	m.record(h)
}

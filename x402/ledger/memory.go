package ledger

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"sync"

	sdk "github.com/agentapis/sdk"
)

// Memory is the in-memory Store, the default of x402.Budget. Its holds last as long as the
// process: nothing survives a restart, and two processes each have their own. Every
// operation costs the same whatever the number of outstanding holds (see the package
// documentation). It remembers the final state of every hold it ended, so that HoldState
// answers for them too (about 40 bytes each).
//
// Its windows keep the committed holds that left them for the window's length of credited
// time, in which each step of the clock forward counts for at most a second: a clock that
// jumps ahead and is corrected back within that time finds them counted again. So a window
// added or lengthened by ChangeLimits counts the committed holds of its length that the
// windows before it kept, and every outstanding hold.
//
// A durable store keeps its accounts in a Memory too, restored from what it read back
// (Restore) and writing every change through its Journal.
type Memory struct {
	mu         sync.Mutex
	clock      sdk.Clock
	configured bool
	closed     bool
	limits     Limits
	windows    []*window
	spent      big.Int
	held       big.Int
	seq        uint64 // the latest reservation's place in the order of reservations
	live       map[HoldID]*hold
	ended      map[HoldID]bool   // the holds ended, true when committed (with a journal: those that expired only)
	byID       map[string]*hold  // the signed live holds by Signature.ID: the earliest reserved
	sharedIDs  bool              // Restore found live holds sharing a Signature.ID
	refused    expiryIndex       // the refused live holds that expire
	payees     map[string]*payee // payee -> account, for every payee reserved for
	checker    Checker           // Reserve's, whose working values it reuses
	total      big.Int           // a working value of Reserve: spent plus held
	read       int64             // the latest reading of the clock
	credit     int64             // the credited time (see tick)
	journal    Journal           // nil: the holds live in memory only
	broken     error             // the journal's failure, after which every call fails
}

// payee is the account of one payee.
type payee struct {
	used    big.Int     // spent plus held
	refused expiryIndex // its refused live holds that expire
}

// hold is one hold of a Memory.
type hold struct {
	id       HoldID
	seq      uint64 // its place in the order of reservations
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
	account  *payee
}

// NewMemory returns an empty in-memory store, to be configured, that reads clock (nil:
// sdk.SystemClock()).
func NewMemory(clock sdk.Clock) *Memory {
	if clock == nil {
		clock = sdk.SystemClock()
	}
	return &Memory{clock: clock, live: make(map[HoldID]*hold), ended: make(map[HoldID]bool),
		byID: make(map[string]*hold), payees: make(map[string]*payee)}
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

// now reads the clock; m.mu is held.
func (m *Memory) now() (int64, error) {
	t := m.clock.Now()
	now, err := Nanos("time", t)
	if err != nil {
		return 0, fmt.Errorf("ledger: the store's clock reads %s, outside the range a store accepts", t.UTC())
	}
	m.tick(now)
	return now, nil
}

// tick credits a step of the clock to now: the time it moved forward, at most
// retentionStep, nothing when it went back. The credited time only bounds how long the
// windows keep the holds that left them: no jump of the clock makes them forget at once.
func (m *Memory) tick(now int64) {
	if step := now - m.read; step > 0 && m.read != 0 {
		m.credit += min(step, int64(retentionStep))
	}
	m.read = now
}

// expire releases the refused holds whose deadline is before now; m.mu is held.
//
// The release is this process's reading of its clock, not a fact about the payment, so a
// journal is not told of it: the store keeps the hold refused, and every process that opens it
// later decides again by its own clock. A clock once far ahead thus frees nothing for good.
func (m *Memory) expire(now int64) {
	for len(m.refused.items) > 0 && now > m.refused.items[0].deadline {
		h := m.refused.items[0] // the earliest deadline; settle takes it out of the index
		m.settle(h, Released)
		m.ended[h.id] = false
	}
}

// begin locks m for an operation: it checks that m is open and configured, reads the clock
// and releases the refused holds that have expired. The caller unlocks m.mu when begin
// succeeds.
func (m *Memory) begin() (int64, error) {
	m.mu.Lock()
	if err := m.ready(); err != nil {
		m.mu.Unlock()
		return 0, err
	}
	now, err := m.now()
	if err != nil {
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
	now, err := m.now()
	if err != nil {
		return err
	}
	m.setLimits(limits, now, nil)
	return nil
}

// ChangeLimits replaces the limits; see Store. The windows are made again from the holds m
// has: every outstanding hold, and the committed ones the windows before kept.
func (m *Memory) ChangeLimits(_ context.Context, limits Limits) error {
	if err := limits.Validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closed:
		return ErrClosed
	case m.broken != nil:
		return m.broken
	}
	now, err := m.now()
	if err != nil {
		return err
	}
	m.expire(now)
	seen := make(map[*hold]bool)
	var holds []*hold
	for _, w := range m.windows {
		for _, h := range w.holds() {
			if !seen[h] {
				seen[h] = true
				holds = append(holds, h)
			}
		}
	}
	for _, h := range m.live {
		if !seen[h] {
			holds = append(holds, h)
		}
	}
	m.setLimits(limits, now, holds)
	return nil
}

// setLimits makes limits m's, with windows at reading now counting holds (in any order).
func (m *Memory) setLimits(limits Limits, now int64, holds []*hold) {
	m.limits, m.configured = limits.Clone(), true
	slices.SortFunc(holds, func(a, b *hold) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
	m.windows = m.windows[:0]
	for _, w := range m.limits.Windows {
		win := newWindow(w, now)
		for _, h := range holds {
			if h.at > win.cutoff-int64(w.Length) {
				win.place(h, m.credit)
			}
		}
		m.windows = append(m.windows, win)
	}
}

// Reserve checks every limit and records the hold; see Store.
func (m *Memory) Reserve(_ context.Context, id HoldID, r Reservation) (err error) {
	if id.IsZero() {
		return &InputError{Field: "hold id", Reason: "must not be zero"}
	}
	if r.Amount == nil || r.Amount.Sign() < 0 {
		return &InputError{Field: "amount", Reason: "must be a non-negative number of atomic units"}
	}
	now, err := m.begin()
	if err != nil {
		return err
	}
	defer m.unlock(&err, false)
	if m.live[id] != nil {
		return ErrDuplicateHold
	}
	switch _, err := m.endedState(id); {
	case err == nil:
		return ErrDuplicateHold
	case err != ErrUnknownHold:
		return err
	}
	for _, w := range m.windows {
		w.moveTo(now, m.credit)
	}
	if err := m.checker.Check(&m.limits, r.Amount, r.PayTo, (*memoryUsage)(m)); err != nil {
		return err
	}
	m.seq++
	h := &hold{id: id, seq: m.seq, payTo: r.PayTo, rail: r.Rail, resource: r.Resource, payer: r.Payer, asset: r.Asset,
		at: now, pos: [2]int{-1, -1}}
	h.amount.Set(r.Amount)
	m.admit(h)
	for _, w := range m.windows {
		w.add(h)
	}
	m.record(h)
	return nil
}

// admit counts h, just reserved or read back, as live: in the sum held and in its payee's
// account.
func (m *Memory) admit(h *hold) {
	m.live[h.id] = h
	m.held.Add(&m.held, &h.amount)
	h.account = m.account(h.payTo)
	h.account.used.Add(&h.account.used, &h.amount)
}

// account returns the account of payee payTo, made empty when it has none.
func (m *Memory) account(payTo string) *payee {
	acct := m.payees[payTo]
	if acct == nil {
		acct = &payee{refused: expiryIndex{slot: 1}}
		m.payees[payTo] = acct
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
func (u *memoryUsage) Payee(payTo string) *big.Int {
	if acct := u.payees[payTo]; acct != nil {
		return &acct.used
	}
	return nil
}

// PayeeFreeing walks the payee's refused holds by deadline; see Usage.
func (u *memoryUsage) PayeeFreeing(payTo string, need *big.Int) (int64, bool) {
	if acct := u.payees[payTo]; acct != nil {
		return acct.refused.freeing(need)
	}
	return 0, false
}

// Window returns a window's running sums; see Usage.
func (u *memoryUsage) Window(i int) (int, *big.Int) { return u.windows[i].count, &u.windows[i].sum }

// Nth walks a window's holds by reservation time; see Usage.
func (u *memoryUsage) Nth(i, n int) (int64, bool) { return reservedAt(u.windows[i].nth(n)) }

// Leaving walks a window's holds by reservation time; see Usage.
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

// Sign records the signature of a reserved hold; see Store.
func (m *Memory) Sign(_ context.Context, id HoldID, s Signature) (err error) {
	expires, err := checkSignature(s)
	if err != nil {
		return err
	}
	if _, err := m.begin(); err != nil {
		return err
	}
	defer m.unlock(&err, true) // once Sign returns, the payment may leave
	h := m.live[id]
	switch {
	case h == nil:
		if _, err := m.endedState(id); err != nil {
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

// checkSignature checks what Sign records, and returns its expiry in Unix nanoseconds (0:
// unknown).
func checkSignature(s Signature) (int64, error) {
	if s.ID == "" {
		return 0, &InputError{Field: "signature id", Reason: "must not be empty"}
	}
	if s.Expires.IsZero() {
		return 0, nil
	}
	return Nanos("expiry", s.Expires)
}

// checkMove checks the state Mark is asked to move a hold to.
func checkMove(to State) error {
	switch to {
	case Refused, InDoubt, Committed, Released:
		return nil
	}
	return &InputError{Field: "state", Reason: "a hold can be marked refused, in doubt, committed or released only"}
}

// Mark moves a hold; see Store.
func (m *Memory) Mark(_ context.Context, id HoldID, to State) (_ State, err error) {
	if err := checkMove(to); err != nil {
		return 0, err
	}
	if _, err := m.begin(); err != nil {
		return 0, err
	}
	defer m.unlock(&err, false)
	h := m.live[id]
	if h == nil {
		return m.endedState(id)
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
func (m *Memory) Discard(_ context.Context, id HoldID) (_ State, err error) {
	if _, err := m.begin(); err != nil {
		return 0, err
	}
	defer m.unlock(&err, false)
	h := m.live[id]
	if h == nil {
		return m.endedState(id)
	}
	if h.state == Reserved || h.state == Signed {
		m.end(h, Released)
	}
	return h.state, nil
}

// Resolve ends an outstanding payment by its Signature.ID; see Store.
func (m *Memory) Resolve(_ context.Context, paymentID string, settled bool) (err error) {
	now, err := m.begin()
	if err != nil {
		return err
	}
	defer m.unlock(&err, false)
	h := m.byID[paymentID]
	switch {
	case h == nil:
		return ErrUnknownID
	case settled:
		m.end(h, Committed)
	case h.expires == 0 || now <= h.deadline:
		return ErrNotExpired
	default:
		m.end(h, Released)
	}
	return nil
}

// Totals returns the sums; see Store.
func (m *Memory) Totals(context.Context) (_ Totals, err error) {
	if _, err := m.begin(); err != nil {
		return Totals{}, err
	}
	defer m.unlock(&err, false) // the refused holds begin released
	return Totals{Spent: new(big.Int).Set(&m.spent), Held: new(big.Int).Set(&m.held)}, nil
}

// Outstanding lists the live holds; see Store.
func (m *Memory) Outstanding(context.Context) (_ []Outstanding, err error) {
	if _, err := m.begin(); err != nil {
		return nil, err
	}
	defer m.unlock(&err, false)
	holds := make([]*hold, 0, len(m.live))
	for _, h := range m.live {
		holds = append(holds, h)
	}
	slices.SortFunc(holds, func(a, b *hold) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]Outstanding, len(holds))
	for i, h := range holds {
		out[i] = h.outstanding()
		out[i].Amount = new(big.Int).Set(&h.amount)
	}
	slices.SortStableFunc(out, CompareOutstanding)
	return out, nil
}

// CompareOutstanding orders holds as Store.Outstanding lists them, but for the last rule:
// oldest expiry first (none first), then by Signature.ID. Holds it finds equal (unsigned
// ones) are listed in reservation order: sort a list in that order with
// slices.SortStableFunc.
func CompareOutstanding(a, b Outstanding) int {
	if c := a.Expires.Compare(b.Expires); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// HoldState returns where a hold stands; see Store.
func (m *Memory) HoldState(_ context.Context, id HoldID) (_ State, err error) {
	if _, err := m.begin(); err != nil {
		return 0, err
	}
	defer m.unlock(&err, false)
	if h := m.live[id]; h != nil {
		return h.state, nil
	}
	return m.endedState(id)
}

// Close closes the store; see Store.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// Expired returns the refused holds m released because their deadline passed by its clock,
// when m writes through a journal (Restore), which is not told of them; see Snapshot.Expired.
func (m *Memory) Expired() []HoldID {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.journal == nil {
		return nil
	}
	return slices.Collect(maps.Keys(m.ended))
}

// endedState returns the final state of a hold that is no longer live, or ErrUnknownHold.
func (m *Memory) endedState(id HoldID) (State, error) {
	committed, ok := m.ended[id]
	if !ok && m.journal != nil {
		return m.journal.Ended(id)
	}
	switch {
	case !ok:
		return 0, ErrUnknownHold
	case committed:
		return Committed, nil
	}
	return Released, nil
}

// index puts h, refused, in the expiry indexes when it expires.
func (m *Memory) index(h *hold) {
	if h.expires != 0 {
		m.refused.add(h)
		h.account.refused.add(h)
	}
}

// unindex takes h out of the expiry indexes.
func (m *Memory) unindex(h *hold) {
	m.refused.remove(h)
	h.account.refused.remove(h)
}

// end moves a live hold to Committed or Released, updates the sums and tells the journal.
func (m *Memory) end(h *hold, to State) {
	m.settle(h, to)
	if m.journal == nil {
		m.ended[h.id] = to == Committed
	}
	m.record(h)
}

// settle moves a live hold to Committed or Released and updates the sums and indexes.
func (m *Memory) settle(h *hold, to State) {
	m.unindex(h)
	m.held.Sub(&m.held, &h.amount)
	if to == Committed {
		m.spent.Add(&m.spent, &h.amount)
	} else {
		h.account.used.Sub(&h.account.used, &h.amount)
		for _, w := range m.windows {
			w.release(h)
		}
	}
	delete(m.live, h.id)
	if h.sigID != "" && m.byID[h.sigID] == h {
		delete(m.byID, h.sigID)
		if m.sharedIDs {
			m.relink(h.sigID)
		}
	}
	h.state = to
}

// relink points byID at the earliest reserved live hold signed with id, if any. Live holds
// share an id only after Restore brought back a refused hold this process's predecessor had
// found expired while a later hold reused its id.
func (m *Memory) relink(id string) {
	var first *hold
	for _, h := range m.live {
		if h.sigID == id && (first == nil || h.seq < first.seq) {
			first = h
		}
	}
	if first != nil {
		m.byID[id] = first
	}
}

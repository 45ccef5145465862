package ledgertest

import (
	"cmp"
	"context"
	"math/big"
	"slices"
	"sync"
	"time"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402/ledger"
)

// Reference is a ledger.Store written to be obviously right rather than fast: it keeps every
// hold in a slice, in reservation order, and scans them all for every operation. It is the
// oracle of Differential, and its Reopen applies the reopening rules of a durable store, so
// that RunReopen is itself tested. Never use it to keep real money: its cost grows with
// every hold.
type Reference struct {
	mu         sync.Mutex
	clock      sdk.Clock
	configured bool
	closed     bool
	limits     ledger.Limits
	recorded   *ledger.Limits // the limits a durable store would have recorded
	holds      []*refHold
}

// refHold is one hold of a Reference.
type refHold struct {
	ledger.Outstanding
	at      int64 // reservation time
	expires int64 // 0: unknown
	lapsed  bool  // released because its deadline passed by the clock, not by a call
}

// NewReference returns an empty reference store, to be configured, that reads clock (nil:
// sdk.SystemClock()).
func NewReference(clock sdk.Clock) *Reference {
	if clock == nil {
		clock = sdk.SystemClock()
	}
	return &Reference{clock: clock}
}

// Reopen closes r and returns what a durable store holding r's holds would be once reopened
// by a process reading clock: the reserved holds released, the signed ones in doubt, the
// limits recorded, to be configured again.
func (r *Reference) Reopen(clock sdk.Clock) *Reference { return r.reopen(clock, false) }

// ReopenDecidingAgain is Reopen for a store whose processes each decide by their own clock
// when a refused hold has expired, writing none of those decisions: the refused holds that
// expired by the closing process's clock are refused again, for the new one to decide.
func (r *Reference) ReopenDecidingAgain(clock sdk.Clock) *Reference { return r.reopen(clock, true) }

// reopen is Reopen, deciding expiries again when again is set.
func (r *Reference) reopen(clock sdk.Clock, again bool) *Reference {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	next := NewReference(clock)
	next.recorded = r.recorded
	for _, h := range r.holds {
		c := *h
		c.Amount = new(big.Int).Set(h.Amount)
		switch c.State {
		case ledger.Reserved:
			c.State = ledger.Released
		case ledger.Signed:
			c.State = ledger.InDoubt
		case ledger.Released:
			if again && c.lapsed {
				c.State, c.lapsed = ledger.Refused, false
			}
		}
		next.holds = append(next.holds, &c)
	}
	return next
}

// begin locks r for an operation, reads the clock and releases the refused holds expired
// at its reading.
func (r *Reference) begin() (int64, error) {
	r.mu.Lock()
	switch {
	case r.closed:
		r.mu.Unlock()
		return 0, ledger.ErrClosed
	case !r.configured:
		r.mu.Unlock()
		return 0, ledger.ErrNotConfigured
	}
	now := r.clock.Now().UnixNano()
	for _, h := range r.holds {
		if h.State == ledger.Refused && h.expires != 0 && now > deadline(h) {
			h.State, h.lapsed = ledger.Released, true
		}
	}
	return now, nil
}

// deadline is when a refused hold stops counting: its expiry plus the margin.
func deadline(h *refHold) int64 { return ledger.AddNanos(h.expires, ledger.ExpiryMargin) }

// live reports whether h is neither committed nor released.
func live(h *refHold) bool { return h.State != ledger.Committed && h.State != ledger.Released }

// Configure sets the limits, or refuses limits other than those recorded.
func (r *Reference) Configure(_ context.Context, limits ledger.Limits) error {
	if err := limits.Validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return ledger.ErrClosed
	case r.configured:
		return ledger.ErrConfigured
	case r.recorded != nil && !r.recorded.Equal(limits):
		return &ledger.LimitsError{Recorded: r.recorded.Clone(), Asked: limits.Clone()}
	}
	r.setLimits(limits)
	return nil
}

// ChangeLimits replaces the limits and records them.
func (r *Reference) ChangeLimits(_ context.Context, limits ledger.Limits) error {
	if err := limits.Validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ledger.ErrClosed
	}
	r.setLimits(limits)
	return nil
}

// setLimits makes limits r's and records them; r.mu is held.
func (r *Reference) setLimits(limits ledger.Limits) {
	r.limits, r.configured = limits.Clone(), true
	recorded := limits.Clone()
	r.recorded = &recorded
}

// find returns the hold id, or nil.
func (r *Reference) find(id ledger.HoldID) *refHold {
	for _, h := range r.holds {
		if h.Hold == id {
			return h
		}
	}
	return nil
}

// Reserve checks every limit by scanning every hold, and records the hold.
func (r *Reference) Reserve(_ context.Context, id ledger.HoldID, res ledger.Reservation) error {
	if id.IsZero() {
		return &ledger.InputError{Field: "hold id", Reason: "must not be zero"}
	}
	if res.Amount == nil || res.Amount.Sign() < 0 {
		return &ledger.InputError{Field: "amount", Reason: "must be a non-negative number of atomic units"}
	}
	now, err := r.begin()
	if err != nil {
		return err
	}
	defer r.mu.Unlock()
	if r.find(id) != nil {
		return ledger.ErrDuplicateHold
	}
	if err := r.refusal(res, now); err != nil {
		return err
	}
	r.holds = append(r.holds, &refHold{Outstanding: ledger.Outstanding{Hold: id, Amount: new(big.Int).Set(res.Amount),
		PayTo: res.PayTo, Rail: res.Rail, Resource: res.Resource, Payer: res.Payer, Asset: res.Asset,
		Reserved: ledger.Time(now), State: ledger.Reserved}, at: now})
	return nil
}

// refusal returns the refusal of res at now, or nil.
func (r *Reference) refusal(res ledger.Reservation, now int64) error {
	l := &r.limits
	amount := res.Amount
	var v ledger.Verdict
	if l.PerPayment != nil && amount.Cmp(l.PerPayment) > 0 {
		v.Add(&ledger.Refusal{Kind: ledger.KindPerPayment, Max: l.PerPayment, Left: l.PerPayment})
		return v.Err()
	}
	if l.Total != nil {
		if over := r.over(ledger.KindTotal, l.Total, amount, func(*refHold) bool { return true }); over != nil && v.Add(over) {
			return v.Err()
		}
	}
	if limit := l.PayeeCap(res.PayTo); limit != nil {
		same := func(h *refHold) bool { return h.PayTo == res.PayTo }
		if over := r.over(ledger.KindPayee, limit, amount, same); over != nil {
			over.PayTo = res.PayTo
			if v.Add(over) {
				return v.Err()
			}
		}
	}
	for _, w := range l.Windows {
		// Inside: not released, and reserved within Length before now, or at a later reading.
		var in []*refHold
		sum := new(big.Int)
		for _, h := range r.holds {
			if h.State != ledger.Released && h.at > now-int64(w.Length) {
				in = append(in, h)
				sum.Add(sum, h.Amount)
			}
		}
		slices.SortStableFunc(in, func(a, b *refHold) int { return cmp.Compare(a.at, b.at) })
		leaves := func(h *refHold) time.Time { return ledger.Time(ledger.AddNanos(h.at, w.Length)) }
		if w.Count > 0 && len(in)+1 > w.Count {
			ref := &ledger.Refusal{Kind: ledger.KindWindowCount, Window: w.Length, Max: big.NewInt(int64(w.Count)),
				Left: big.NewInt(int64(max(w.Count-len(in), 0)))}
			ref.RetryAt = leaves(in[len(in)-w.Count])
			if v.Add(ref) {
				return v.Err()
			}
		}
		if w.Amount != nil && new(big.Int).Add(sum, amount).Cmp(w.Amount) > 0 {
			ref := &ledger.Refusal{Kind: ledger.KindWindowAmount, Window: w.Length, Max: w.Amount, Left: nonNegative(new(big.Int).Sub(w.Amount, sum))}
			if amount.Cmp(w.Amount) <= 0 {
				freed := new(big.Int)
				for _, h := range in {
					freed.Add(freed, h.Amount)
					if left := new(big.Int).Sub(sum, freed); left.Add(left, amount).Cmp(w.Amount) <= 0 {
						ref.RetryAt = leaves(h)
						break
					}
				}
			}
			if v.Add(ref) {
				return v.Err()
			}
		}
	}
	return v.Err()
}

// over returns the refusal of a limit on the spent plus held of the holds that match, or
// nil when amount fits; RetryAt comes from their refused holds, by deadline then
// reservation.
func (r *Reference) over(kind ledger.Kind, limit, amount *big.Int, match func(*refHold) bool) *ledger.Refusal {
	used := new(big.Int)
	var refused []*refHold
	for _, h := range r.holds {
		if h.State == ledger.Released || !match(h) {
			continue
		}
		used.Add(used, h.Amount)
		if h.State == ledger.Refused && h.expires != 0 {
			refused = append(refused, h)
		}
	}
	if new(big.Int).Add(used, amount).Cmp(limit) <= 0 {
		return nil
	}
	ref := &ledger.Refusal{Kind: kind, Max: limit, Left: nonNegative(new(big.Int).Sub(limit, used))}
	slices.SortStableFunc(refused, func(a, b *refHold) int { return cmp.Compare(deadline(a), deadline(b)) })
	for _, h := range refused {
		used.Sub(used, h.Amount)
		if new(big.Int).Add(used, amount).Cmp(limit) <= 0 {
			ref.RetryAt = ledger.Time(deadline(h) + 1)
			break
		}
	}
	return ref
}

// nonNegative returns v, or 0 when it is negative.
func nonNegative(v *big.Int) *big.Int {
	if v.Sign() < 0 {
		v.SetInt64(0)
	}
	return v
}

// Sign records the signature of a reserved hold.
func (r *Reference) Sign(_ context.Context, id ledger.HoldID, s ledger.Signature) error {
	if s.ID == "" {
		return &ledger.InputError{Field: "signature id", Reason: "must not be empty"}
	}
	var expires int64
	if !s.Expires.IsZero() {
		var err error
		if expires, err = ledger.Nanos("expiry", s.Expires); err != nil {
			return err
		}
	}
	if _, err := r.begin(); err != nil {
		return err
	}
	defer r.mu.Unlock()
	h := r.find(id)
	switch {
	case h == nil:
		return ledger.ErrUnknownHold
	case h.State != ledger.Reserved:
		return ledger.ErrNotReserved
	}
	for _, o := range r.holds {
		if live(o) && o.ID == s.ID {
			return ledger.ErrDuplicateID
		}
	}
	h.State, h.ID, h.Ref, h.expires = ledger.Signed, s.ID, s.Ref, expires
	if expires != 0 {
		h.Expires = ledger.Time(expires)
	}
	return nil
}

// Mark moves a hold by the state machine's rules.
func (r *Reference) Mark(_ context.Context, id ledger.HoldID, to ledger.State) (ledger.State, error) {
	switch to {
	case ledger.Refused, ledger.InDoubt, ledger.Committed, ledger.Released:
	default:
		return 0, &ledger.InputError{Field: "state", Reason: "a hold can be marked refused, in doubt, committed or released only"}
	}
	if _, err := r.begin(); err != nil {
		return 0, err
	}
	defer r.mu.Unlock()
	h := r.find(id)
	if h == nil {
		return 0, ledger.ErrUnknownHold
	}
	from := h.State
	switch {
	case !live(h):
	case to == ledger.Released && from != ledger.Reserved:
		return from, ledger.ErrSigned
	case to == ledger.Released, to == ledger.Committed,
		to == ledger.Refused && from == ledger.Signed,
		to == ledger.InDoubt && (from == ledger.Signed || from == ledger.Refused):
		h.State = to
	}
	return h.State, nil
}

// Discard releases a reserved or signed hold.
func (r *Reference) Discard(_ context.Context, id ledger.HoldID) (ledger.State, error) {
	if _, err := r.begin(); err != nil {
		return 0, err
	}
	defer r.mu.Unlock()
	h := r.find(id)
	if h == nil {
		return 0, ledger.ErrUnknownHold
	}
	if h.State == ledger.Reserved || h.State == ledger.Signed {
		h.State = ledger.Released
	}
	return h.State, nil
}

// Resolve ends the outstanding signed hold whose payment id is paymentID.
func (r *Reference) Resolve(_ context.Context, paymentID string, settled bool) error {
	now, err := r.begin()
	if err != nil {
		return err
	}
	defer r.mu.Unlock()
	for _, h := range r.holds {
		if !live(h) || h.State == ledger.Reserved || h.ID != paymentID {
			continue
		}
		switch {
		case settled:
			h.State = ledger.Committed
		case h.expires == 0 || now <= deadline(h):
			return ledger.ErrNotExpired
		default:
			h.State = ledger.Released
		}
		return nil
	}
	return ledger.ErrUnknownID
}

// Totals adds up every hold.
func (r *Reference) Totals(context.Context) (ledger.Totals, error) {
	if _, err := r.begin(); err != nil {
		return ledger.Totals{}, err
	}
	defer r.mu.Unlock()
	t := ledger.Totals{Spent: new(big.Int), Held: new(big.Int)}
	for _, h := range r.holds {
		switch {
		case h.State == ledger.Committed:
			t.Spent.Add(t.Spent, h.Amount)
		case live(h):
			t.Held.Add(t.Held, h.Amount)
		}
	}
	return t, nil
}

// Outstanding lists the live holds.
func (r *Reference) Outstanding(context.Context) ([]ledger.Outstanding, error) {
	if _, err := r.begin(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	out := []ledger.Outstanding{}
	for _, h := range r.holds {
		if live(h) {
			o := h.Outstanding
			o.Amount = new(big.Int).Set(h.Amount)
			out = append(out, o)
		}
	}
	slices.SortStableFunc(out, ledger.CompareOutstanding)
	return out, nil
}

// HoldState returns the state of hold id.
func (r *Reference) HoldState(_ context.Context, id ledger.HoldID) (ledger.State, error) {
	if _, err := r.begin(); err != nil {
		return 0, err
	}
	defer r.mu.Unlock()
	if h := r.find(id); h != nil {
		return h.State, nil
	}
	return 0, ledger.ErrUnknownHold
}

// Close closes the store.
func (r *Reference) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return nil
}

package ledgertest

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/ledger"
)

// differentialLimits returns two sets of limits under which every limit refuses often, with
// the same windows' lengths (so that a change between them keeps what every store keeps):
// with an even seed the total (seed%4 == 0) or the payees' limits, filled by holds in doubt
// and refused holds that expire; with an odd seed the windows.
func differentialLimits(seed uint64) [2]ledger.Limits {
	if seed%2 == 0 {
		total := 1500 + 1500*int64(seed/2%2)
		return [2]ledger.Limits{{
			Total:      amount(total),
			PerPayment: amount(45),
			PerPayee:   amount(300),
			Payees:     map[string]*big.Int{"0xbb": amount(90), "0xBb": amount(40)},
			Windows:    []ledger.Window{{Length: time.Minute, Count: 8}},
		}, {
			Total:      amount(total - 300),
			PerPayment: amount(40),
			PerPayee:   amount(250),
			Payees:     map[string]*big.Int{"0xcc": amount(60)},
			Windows:    []ledger.Window{{Length: time.Minute, Count: 6}},
		}}
	}
	return [2]ledger.Limits{{
		Total:      amount(1_000_000),
		PerPayment: amount(45),
		PerPayee:   amount(20_000),
		Windows: []ledger.Window{
			{Length: time.Minute, Amount: amount(100), Count: 5},
			{Length: 5 * time.Minute, Amount: amount(260)},
			{Length: 10 * time.Minute, Count: 14},
		},
	}, {
		Total:      amount(1_000_000),
		PerPayment: amount(45),
		Windows: []ledger.Window{
			{Length: 10 * time.Minute, Count: 12},
			{Length: time.Minute, Amount: amount(80), Count: 6},
			{Length: 5 * time.Minute, Amount: amount(300)},
		},
	}}
}

// Differential runs ops random operations, drawn from seed, on a store from open and on a
// Reference, both reading one clock that the operations move forward (and now and then back
// by less than a minute), with the same limits, and fails at the first answer that differs:
// a hold's state, a refusal (its limit, what is left, when it frees up), an error, the
// totals, the listing. Now and then it changes the limits on purpose, between two sets with
// windows of the same lengths.
func Differential(t *testing.T, open Open, seed uint64, ops int) {
	differential(t, open, nil, seed, ops, 0)
}

// DifferentialReopen is Differential for a durable store: about once every `every`
// operations, it reopens the store (reopen) and the reference (Reference.Reopen), configures
// both with the limits last set, and goes on comparing, so that what a store restores from
// what it wrote (sums, windows, payees, expiries, payment ids, hold ids, limits) is checked
// too.
func DifferentialReopen(t *testing.T, open Open, reopen Reopen, seed uint64, ops, every int) {
	differential(t, open, reopen, seed, ops, every)
}

// DifferentialReopenDecidingAgain is DifferentialReopen for a store whose processes each
// decide by their own clock when a refused hold has expired, and write none of those
// decisions: a reopened store (and the reference, Reference.ReopenDecidingAgain) counts the
// refused holds its predecessor found expired until the new process's clock says otherwise.
func DifferentialReopenDecidingAgain(t *testing.T, open Open, reopen Reopen, seed uint64, ops, every int) {
	differential(t, open, reopen, seed, ops, -every)
}

// differential runs Differential, reopening about once every |every| operations when
// reopen is set, deciding expiries again when every is negative.
func differential(t *testing.T, open Open, reopen Reopen, seed uint64, ops, every int) {
	again := every < 0
	every = max(every, -every)
	sets := differentialLimits(seed)
	limits := sets[0]
	got := configured(t, open, limits)
	ref := NewReference(got.clock)
	require.NoError(t, ref.Configure(t.Context(), limits))
	want := &fixture{t: t, s: ref, ctx: t.Context(), clock: got.clock}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	d := &differ{t: t, got: got, want: want, rng: rng, clock: got.clock, spends: seed%2 == 1}
	for i := range ops {
		d.step = i
		if reopen != nil && rng.IntN(every) == 0 {
			d.got = reopened(t, d.got, reopen, limits)
			ref := d.want.s.(*Reference)
			next := ref.Reopen
			if again {
				next = ref.ReopenDecidingAgain
			}
			d.want = &fixture{t: t, s: next(d.clock), ctx: t.Context(), clock: d.clock}
			require.NoError(t, d.want.s.Configure(t.Context(), limits))
		}
		if rng.IntN(20) == 0 {
			d.clock.Advance(-time.Duration(rng.IntN(30_000)) * time.Millisecond)
		} else {
			d.clock.Advance(time.Duration(rng.IntN(20_000)) * time.Millisecond)
		}
		switch n := rng.IntN(200); {
		case n < 1:
			limits = sets[rng.IntN(2)]
			d.changeLimits(limits)
		case n < 60:
			d.pay()
		case n < 90:
			d.reserve()
		case n < 120:
			d.sign(d.pick())
		case n < 160:
			d.randomMark()
		case n < 172:
			d.discard(d.pick())
		case n < 188:
			d.resolve()
		default:
			d.holdState()
		}
		d.compareTotals()
		if i%10 == 0 {
			d.compareOutstanding()
		}
	}
	d.compareOutstanding()
}

// differ drives a store and the reference in step.
type differ struct {
	t         *testing.T
	got, want *fixture
	rng       *rand.Rand
	clock     *sdktest.Clock
	step      int
	holds     []ledger.HoldID // the ids reserved or tried, in order
	payments  []string        // the payment ids used so far
	// spends lets holds be committed; without it the total and the payees' limits fill
	// with holds that free up, instead of with spent amounts that never do.
	spends bool
}

// fail stops the test at a difference.
func (d *differ) fail(format string, args ...any) {
	d.t.Helper()
	d.t.Fatalf("step %d at %s: %s", d.step, d.clock.Now().Format(time.RFC3339Nano), fmt.Sprintf(format, args...))
}

// pick returns a random hold id, most often one of the latest (which are still outstanding
// more often); the zero id when there is none.
func (d *differ) pick() ledger.HoldID {
	n := len(d.holds)
	if n == 0 {
		return ledger.HoldID{}
	}
	if d.rng.IntN(5) > 0 {
		return d.holds[max(0, n-1-d.rng.IntN(8))]
	}
	return d.holds[d.rng.IntN(n)]
}

// newID returns a hold id drawn from the test's random source, or now and then one used
// before.
func (d *differ) newID() ledger.HoldID {
	if len(d.holds) > 0 && d.rng.IntN(30) == 0 {
		return d.holds[d.rng.IntN(len(d.holds))]
	}
	var id ledger.HoldID
	for i := range id {
		id[i] = byte(d.rng.UintN(256))
	}
	return id
}

// payees are the payees the operations pay, some differing only in letter case.
var payees = []string{"0xAA", "0xaa", "0xBb", "0xbb", "0xcc", "0xDD", "0xee", "0xff", "0x11", "0x22", "0x33", "0x44"}

// changeLimits changes the limits of both.
func (d *differ) changeLimits(limits ledger.Limits) {
	gerr := d.got.s.ChangeLimits(d.got.ctx, limits)
	werr := d.want.s.ChangeLimits(d.want.ctx, limits)
	d.sameError("ChangeLimits", gerr, werr)
}

// pay takes a new hold through a payment's usual course: reserved, signed, then mostly
// refused (to expire), sometimes discarded, left in doubt, committed or left signed.
func (d *differ) pay() {
	id, ok := d.reserve()
	if !ok {
		return
	}
	d.sign(id)
	outcomes := []ledger.State{ledger.Refused, ledger.Refused, ledger.Refused, ledger.Released, ledger.InDoubt, ledger.Signed, ledger.Committed}
	if !d.spends {
		outcomes = outcomes[:6]
	}
	switch to := outcomes[d.rng.IntN(len(outcomes))]; to {
	case ledger.Released:
		d.discard(id)
	case ledger.Signed:
	default:
		d.mark(id, to)
	}
}

// reserve reserves a random amount to a random payee under a new id (now and then one used
// before), and reports whether it was granted.
func (d *differ) reserve() (ledger.HoldID, bool) {
	id := d.newID()
	r := ledger.Reservation{Amount: amount(int64(d.rng.IntN(50))), PayTo: payees[d.rng.IntN(len(payees))],
		Rail: "test", Resource: fmt.Sprintf("/item/%d", d.step), Payer: fmt.Sprintf("0xpayer%d", d.step%3), Asset: "0xasset"}
	gerr := d.got.s.Reserve(d.got.ctx, id, r)
	werr := d.want.s.Reserve(d.want.ctx, id, r)
	d.sameError("Reserve", gerr, werr)
	if gerr != nil {
		return id, false
	}
	d.holds = append(d.holds, id)
	return id, true
}

// sign signs hold id with a new payment id (now and then one used before), expiring within
// three minutes (now and then already expired, or unknown).
func (d *differ) sign(id ledger.HoldID) {
	if id.IsZero() {
		return
	}
	s := ledger.Signature{ID: fmt.Sprintf("0x%x", d.step), Ref: fmt.Sprintf("ref %d", d.step)}
	if len(d.payments) > 0 && d.rng.IntN(10) == 0 {
		s.ID = d.payments[d.rng.IntN(len(d.payments))]
	}
	if d.rng.IntN(5) > 0 {
		s.Expires = d.clock.Now().Add(time.Duration(d.rng.IntN(240)-60) * time.Second)
	}
	gerr := d.got.s.Sign(d.got.ctx, id, s)
	werr := d.want.s.Sign(d.want.ctx, id, s)
	d.sameError("Sign", gerr, werr)
	if gerr == nil {
		d.payments = append(d.payments, s.ID)
	}
}

// randomMark moves a random hold to a random state (now and then Signed, which Mark
// refuses).
func (d *differ) randomMark() {
	moves := []ledger.State{ledger.Refused, ledger.InDoubt, ledger.Released, ledger.Signed, ledger.Committed}
	if !d.spends {
		moves = moves[:4]
	}
	d.mark(d.pick(), moves[d.rng.IntN(len(moves))])
}

// mark moves hold id to state to.
func (d *differ) mark(id ledger.HoldID, to ledger.State) {
	if id.IsZero() {
		return
	}
	gs, gerr := d.got.s.Mark(d.got.ctx, id, to)
	ws, werr := d.want.s.Mark(d.want.ctx, id, to)
	d.sameError("Mark "+to.String(), gerr, werr)
	if !isInput(gerr) && gs != ws {
		d.fail("Mark %s of hold %s: %s, want %s", to, id, gs, ws)
	}
}

// discard discards hold id.
func (d *differ) discard(id ledger.HoldID) {
	if id.IsZero() {
		return
	}
	gs, gerr := d.got.s.Discard(d.got.ctx, id)
	ws, werr := d.want.s.Discard(d.want.ctx, id)
	d.sameError("Discard", gerr, werr)
	if gs != ws {
		d.fail("Discard of hold %s: %s, want %s", id, gs, ws)
	}
}

// resolve resolves a random payment id, settled or not.
func (d *differ) resolve() {
	id := "0xnone"
	if len(d.payments) > 0 {
		id = d.payments[d.rng.IntN(len(d.payments))]
	}
	settled := d.spends && d.rng.IntN(3) == 0
	gerr := d.got.s.Resolve(d.got.ctx, id, settled)
	werr := d.want.s.Resolve(d.want.ctx, id, settled)
	d.sameError(fmt.Sprintf("Resolve %s settled=%v", id, settled), gerr, werr)
}

// holdState compares the state of a random hold, or of an id never reserved.
func (d *differ) holdState() {
	id := d.pick()
	if id.IsZero() || d.rng.IntN(10) == 0 {
		id = d.newID()
	}
	gs, gerr := d.got.s.HoldState(d.got.ctx, id)
	ws, werr := d.want.s.HoldState(d.want.ctx, id)
	d.sameError("HoldState", gerr, werr)
	if gs != ws {
		d.fail("HoldState of hold %s: %s, want %s", id, gs, ws)
	}
}

// compareTotals compares the sums.
func (d *differ) compareTotals() {
	g, gerr := d.got.s.Totals(d.got.ctx)
	w, werr := d.want.s.Totals(d.want.ctx)
	d.sameError("Totals", gerr, werr)
	if g.Spent.Cmp(w.Spent) != 0 || g.Held.Cmp(w.Held) != 0 {
		d.fail("Totals: spent %s held %s, want spent %s held %s", g.Spent, g.Held, w.Spent, w.Held)
	}
}

// compareOutstanding compares the listings.
func (d *differ) compareOutstanding() {
	g, gerr := d.got.s.Outstanding(d.got.ctx)
	w, werr := d.want.s.Outstanding(d.want.ctx)
	d.sameError("Outstanding", gerr, werr)
	if len(g) != len(w) {
		d.fail("Outstanding lists %d holds, want %d", len(g), len(w))
	}
	for i := range g {
		ge, we := g[i], w[i]
		if ge.Hold != we.Hold || ge.Amount.Cmp(we.Amount) != 0 || ge.PayTo != we.PayTo || ge.Rail != we.Rail ||
			ge.Resource != we.Resource || ge.Payer != we.Payer || ge.Asset != we.Asset || ge.Ref != we.Ref ||
			!ge.Reserved.Equal(we.Reserved) || ge.ID != we.ID || !ge.Expires.Equal(we.Expires) || ge.State != we.State {
			d.fail("Outstanding[%d] = %+v, want %+v", i, ge, we)
		}
	}
}

// sentinels are the errors a store's answer is compared by.
var sentinels = []error{ledger.ErrSigned, ledger.ErrNotReserved, ledger.ErrDuplicateID, ledger.ErrDuplicateHold,
	ledger.ErrUnknownHold, ledger.ErrUnknownID, ledger.ErrNotExpired, ledger.ErrConfigured, ledger.ErrNotConfigured,
	ledger.ErrLimitsDiffer, ledger.ErrClosed}

// sameError fails unless got and want are the same answer: both nil, the same refusal, both
// input errors, or the same sentinel.
func (d *differ) sameError(op string, got, want error) {
	d.t.Helper()
	var gr, wr *ledger.Refusal
	switch {
	case got == nil && want == nil:
		return
	case got == nil || want == nil:
		d.fail("%s: error %v, want %v", op, got, want)
	case errors.As(want, &wr):
		if !errors.As(got, &gr) || gr.Kind != wr.Kind || gr.Window != wr.Window || gr.PayTo != wr.PayTo ||
			gr.Max.Cmp(wr.Max) != 0 || gr.Left.Cmp(wr.Left) != 0 || !gr.RetryAt.Equal(wr.RetryAt) {
			d.fail("%s: %v, want %v", op, got, want)
		}
		return
	case isInput(want):
		if !isInput(got) {
			d.fail("%s: %v, want an input error (%v)", op, got, want)
		}
		return
	}
	for _, s := range sentinels {
		if errors.Is(got, s) != errors.Is(want, s) {
			d.fail("%s: %v, want %v", op, got, want)
		}
	}
}
